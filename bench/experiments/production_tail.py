#!/usr/bin/python3
"""What production's P90 is made of on the utilisation benchmark, in the simulator or on the cluster.

For each run and each mode (shareq, and stock), production's tail jobs are its jobs whose wait is
at or above the run's production P90. For them this prints their sizes, and the work that
overtook them: jobs submitted after a tail job that started before it, in GPU-seconds per tail
job, by share and by whether that job was within its share's quota when submitted (the
benchmark's rule, utilisation.py's share_demand_at_submit).

    bench/experiments/production_tail.py [--runs 200] [--time-scale 5] [--reclaim-after 16]
                                         [--tool build/tools/shareq]
    bench/experiments/production_tail.py --from-dumps DIR

The first form replays the benchmark's job lists (seeds 7 onwards) in `shareq sim` against its
model of the stock plugins. --from-dumps reads the cluster's runs from a tree that
`utilisation.py --dump-dir` wrote, and beside them, where `sim_crosscheck.py` left its replay of
a run (RUN/sim/), the simulator's runs of the same job list, so that the two can be compared.

Figures only; docs/benchmarks.md says what they show ("What production's P90 is made of" for the
simulator, "Time scale 1 with 175 runs" for the cluster).
"""

import argparse
import collections
import csv
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cluster"))
import utilisation as U  # noqa: E402
import sim_crosscheck as X  # noqa: E402

MODES = ("stock", "shareq")


def tail_of(runs, tier):
    """The tier's completed jobs whose wait (from first submission) is at or above its P90."""
    waits, _ = U.waits_by_tier(runs)
    p90 = U.percentile(waits[tier], 90)
    first_submit = {}
    for job, _, _, submit, *_ in runs:
        first_submit[job] = min(submit, first_submit.get(job, submit))
    return [r for r in runs if r[1] == tier and r[2] == "COMPLETED" and
            r[4] - first_submit[r[0]] >= p90]


def overtaking(runs, tail_job):
    """{(tier, 'within quota' | 'borrowed'): GPU-seconds} of the completed jobs submitted after
    `tail_job` (a run) that started before it."""
    completed = [r for r in runs if r[2] == "COMPLETED"]
    submit = {r[0]: r[3] for r in runs}
    start = {r[0]: r[4] for r in completed}
    out = collections.Counter()
    for other, tier, _, submitted, started, ended, gpus, _ in completed:
        if submitted > submit[tail_job[0]] and started < tail_job[4]:
            within = U.share_demand_at_submit(runs, other, tier, submit, start) + gpus <= \
                U.QUOTA_GPUS[tier]
            out[(tier, "within quota" if within else "borrowed")] += gpus * (ended - started)
    return out


class Tally:
    """Production's tail jobs, their sizes and what overtook them, over many runs of one mode."""

    def __init__(self):
        self.tails, self.sizes, self.ahead, self.p90s = 0, collections.Counter(), \
            collections.Counter(), []

    def add(self, runs):
        waits, _ = U.waits_by_tier(runs)
        self.p90s.append(U.percentile(waits["production"], 90))
        for tail_job in tail_of(runs, "production"):
            self.tails += 1
            self.sizes[tail_job[6]] += 1
            self.ahead.update(overtaking(runs, tail_job))

    def print(self, name):
        if not self.tails:
            print(f"{name}: no runs")
            return
        size_text = ", ".join(f"{g} GPUs {100 * n / self.tails:.0f}%"
                              for g, n in sorted(self.sizes.items()))
        p90s = sorted(self.p90s)
        print(f"{name}: {len(p90s)} runs, production's P90 median {p90s[len(p90s) // 2]} s; "
              f"{self.tails} tail jobs ({size_text}); overtaken per tail job by, in GPU-seconds:")
        for key in sorted(self.ahead):
            print(f"  {key[0]:<11} {key[1]:<13} {self.ahead[key] / self.tails:8.0f}")


def simulated(opts):
    """{mode: Tally} of the benchmark's job lists replayed in shareq sim."""
    tallies = {m: Tally() for m in MODES}
    with tempfile.TemporaryDirectory() as sim_root:
        for k in range(opts.runs):
            jobs = U.simulated_jobs(1, opts.time_scale, 7 + k)
            for mode in MODES:
                sim_dir = os.path.join(sim_root, mode)
                _, runs = U.simulate_mode(opts.tool, sim_dir, sim_dir, mode, jobs,
                                          {"reclaim_after": opts.reclaim_after})
                tallies[mode].add(runs)
    return tallies


def sim_replay(run_dir, mode, cluster_runs):
    """The simulator's runs of a cluster run's job list, from sim_crosscheck.py's RUN/sim/ (its
    jobs CSV: each job's completed run), or None where it left none."""
    path = os.path.join(run_dir, "sim", "shareq.jobs.csv" if mode == "shareq"
                        else "stock.baseline.csv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        rows = list(csv.DictReader(f))
    jobs = {r[0]: (r[1], None, None, r[6]) for r in cluster_runs}  # tier and GPUs, as it reads
    return X.sim_runs(rows, jobs, 0)


def from_dumps(root):
    """{name: Tally} of a --dump-dir tree's cluster runs (or of one run's files in root), and of
    their replays where present."""
    tallies = collections.defaultdict(Tally)
    for run_dir in X.run_dirs(root):
        meta = os.path.join(run_dir, "run.json")
        if os.path.exists(meta):
            with open(meta) as f:
                U.use_quotas(json.load(f))
        for mode in MODES:
            path = os.path.join(run_dir, f"utilisation-{mode}.runs")
            if not os.path.exists(path):
                continue
            runs = U.read_runs(path)
            tallies[f"{mode} on the cluster"].add(runs)
            replay = sim_replay(run_dir, mode, runs)
            if replay is not None:
                tallies[f"{mode} in the simulator (the same job lists)"].add(replay)
    return tallies


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--time-scale", type=float, default=5)
    parser.add_argument("--tool", default=str(U.REPO / "build" / "tools" / "shareq"))
    parser.add_argument("--reclaim-after", type=int, default=U.RECLAIM_AFTER_S)
    parser.add_argument("--from-dumps", metavar="DIR",
                        help="a tree of cluster runs (utilisation.py --dump-dir) instead")
    opts = parser.parse_args()
    if opts.from_dumps:
        if not os.path.isdir(opts.from_dumps):
            parser.error(f"--from-dumps: {opts.from_dumps}: no such directory")
        tallies = from_dumps(opts.from_dumps)
        print(f"production's tail jobs (wait >= P90), cluster runs of {opts.from_dumps}")
    else:
        tallies = simulated(opts)
        print(f"production's tail jobs (wait >= P90), {opts.runs} runs, "
              f"time scale {opts.time_scale:g}")
    for name in sorted(tallies):
        tallies[name].print(name)


if __name__ == "__main__":
    main()
