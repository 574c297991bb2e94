#!/usr/bin/python3
"""What production's P90 is made of on the utilisation benchmark, in the simulator.

For each run (the benchmark's job lists, seeds 7 onwards) and each mode (shareq, and the
simulator's model of the stock plugins), production's tail jobs are its jobs whose wait is at or
above the run's production P90. For them this prints their sizes, and the work that overtook
them: jobs submitted after a tail job that started before it, in GPU-seconds per tail job, by
share and by whether that job was within its share's quota when submitted (the benchmark's rule,
utilisation.py's share_demand_at_submit).

    bench/experiments/production_tail.py [--runs 200] [--time-scale 5] [--reclaim-after 16]
                                         [--tool build/tools/shareq]

Figures only; docs/benchmarks.md ("What any order can give production") says what they show.
"""

import argparse
import collections
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cluster"))
import utilisation as U  # noqa: E402

MODES = ("stock", "shareq")


def tail_of(runs, tier):
    """The tier's jobs whose wait is at or above its P90 wait."""
    waits = {r[0]: r[4] - r[3] for r in runs if r[1] == tier}
    p90 = U.percentile(sorted(waits.values()), 90)
    return [job for job, wait in waits.items() if wait >= p90]


def overtaking(runs, jobs, job):
    """{(tier, 'within quota' | 'borrowed'): GPU-seconds} of the jobs submitted after `job` that
    started before it."""
    submit = {r[0]: r[3] for r in runs}
    start = {r[0]: r[4] for r in runs}
    out = collections.Counter()
    for other, tier, *_ in runs:
        if submit[other] > submit[job] and start[other] < start[job]:
            within = U.share_demand_at_submit(runs, other, tier, submit, start) + \
                jobs[other][3] <= U.QUOTA_GPUS[tier]
            out[(tier, "within quota" if within else "borrowed")] += \
                jobs[other][3] * jobs[other][2]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--time-scale", type=float, default=5)
    parser.add_argument("--tool", default=str(U.REPO / "build" / "tools" / "shareq"))
    parser.add_argument("--reclaim-after", type=int, default=U.RECLAIM_AFTER_S)
    opts = parser.parse_args()
    sizes = {m: collections.Counter() for m in MODES}
    ahead = {m: collections.Counter() for m in MODES}
    tails = collections.Counter()
    with tempfile.TemporaryDirectory() as sim_root:
        for k in range(opts.runs):
            jobs = U.simulated_jobs(1, opts.time_scale, 7 + k)
            for mode in MODES:
                sim_dir = os.path.join(sim_root, mode)
                _, runs = U.simulate_mode(opts.tool, sim_dir, sim_dir, mode, jobs,
                                          {"reclaim_after": opts.reclaim_after})
                for job in tail_of(runs, "production"):
                    tails[mode] += 1
                    sizes[mode][jobs[job][3]] += 1
                    ahead[mode].update(overtaking(runs, jobs, job))
    print(f"production's tail jobs (wait >= P90), {opts.runs} runs, time scale {opts.time_scale:g}")
    for mode in MODES:
        size_text = ", ".join(f"{g} GPUs {100 * n / tails[mode]:.0f}%"
                              for g, n in sorted(sizes[mode].items()))
        print(f"{mode}: {tails[mode]} tail jobs ({size_text}); overtaken per tail job by, "
              "in GPU-seconds:")
        for key in sorted(ahead[mode]):
            print(f"  {key[0]:<11} {key[1]:<13} {ahead[mode][key] / tails[mode]:8.0f}")


if __name__ == "__main__":
    main()
