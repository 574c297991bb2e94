#!/usr/bin/python3
"""What the quota order costs on the utilisation benchmark's workload, in the simulator.

Each variant of shareq's scheduling is replayed on the benchmark's job lists (200 runs, seeds
7-206, at time scales 1, 3 and 5) against the simulator's model of Slurm's stock plugins
(`bench/cluster/utilisation.py --simulate`), and the table gives the paired medians (shareq minus
stock in the same run): strict utilisation in points, production's P90 wait, and each share's
within-quota P90 wait, in seconds, each at the three time scales. The variants that change the
order, the placement, the drain and the holds are not in shareq: they are switched by environment
variables in a build of the patch beside this file (issue19-order-variants.patch, for commit
62e2c38):

    git worktree add /tmp/exp 62e2c38 && cd /tmp/exp && git apply \\
        $REPO/bench/experiments/issue19-order-variants.patch
    cmake -S . -B build -DSHAREQ_TESTS=OFF -DSHAREQ_PLUGINS=OFF && cmake --build build -t shareq
    bench/experiments/issue19_variants.py /tmp/exp/build/tools/shareq

Every variant runs on the rule shareq took on 2026-12-04 (a share's first tier ends at its first
job that does not fit what is left of its quota: SHAREQ_WQ_STOP=1 in the patch); --first-fit-tier
runs them on the rule before it, and --runs 20 gives the table of that day.
Figures only; docs/benchmarks.md ("What the quota order costs") has the tables and what they say.
"""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

UTILISATION = Path(__file__).resolve().parent.parent / "cluster" / "utilisation.py"
NO_RESERVE = "bf_min_prio_reserve=4294967295,partition_job_depth=4"
VARIANTS = [
    ("shareq as configured (within quota first, borrowers by share standing)", {}, []),
    ("borrowers in submission order (AWS Batch's idle capacity order)",
     {"SHAREQ_ORDER": "fifo-borrow"}, []),
    ("borrowers by the GPUs their share runs now, not its decayed usage",
     {"SHAREQ_BORROW_CURRENT": "1"}, []),
    ("production's borrowers ahead of every other share's (a bound, not a rule)",
     {"SHAREQ_FIRST_SHARE_FIRST": "1"}, []),
    ("larger jobs first inside each tier", {"SHAREQ_ORDER": "big-first"}, []),
    ("placement by first fit in node order (cons_tres's) instead of best fit",
     {"SHAREQ_FF": "1"}, []),
    ("drain: a node held for the first admitted job with no room", {"SHAREQ_DRAIN": "1"}, []),
    ("a node held for the oldest waiting job that fits nowhere", {"SHAREQ_OLDEST": "0"}, []),
    ("hold: the first borrower refused holds its GPUs from later borrowers",
     {"SHAREQ_HOLD": "1"}, []),
    ("every job stops the main pass (bf_min_prio_reserve=1)", {},
     ["--shareq-sched-params", "bf_min_prio_reserve=1,partition_job_depth=4"]),
    ("no job stops the main pass", {}, ["--shareq-sched-params", NO_RESERVE]),
    ("main pass unbounded (partition_job_depth=0)", {},
     ["--shareq-sched-params", "partition_job_depth=0"]),
    ("ReclaimAfter=64 (16 as configured)", {}, ["--reclaim-after", "64"]),
    ("no reclaim (ReclaimAfter=100000)", {}, ["--reclaim-after", "100000"]),
    ("one tier, submission order (no quota order)", {"SHAREQ_ORDER": "fifo"}, []),
    ("one tier, submission order, no reclaim", {"SHAREQ_ORDER": "fifo"},
     ["--reclaim-after", "100000"]),
]
FIGURES = [("GPU util (strict)", "strict (pts)"), ("production P90", "production P90 (s)"),
           ("production within quota P90", "production within quota P90"),
           ("research within quota P90", "research within quota P90"),
           ("hpo within quota P90", "hpo within quota P90")]
TIME_SCALES = (1, 3, 5)


def paired_medians(tool, env, args, time_scale, runs):
    out = subprocess.run([sys.executable, str(UTILISATION), "--simulate", "--runs", str(runs),
                          "--time-scale", str(time_scale), "--tool", tool, *args],
                         capture_output=True, text=True, env=dict(os.environ, **env), check=True)
    cells = []
    for figure, _ in FIGURES:
        line = next(line for line in out.stdout.splitlines()
                    if re.match(re.escape(figure) + r"\s{2,}", line))
        cells.append(re.findall(r"([+-]?[\d.]+) \[", line)[-1])
    return cells


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tool", help="PATH/TO/shareq, built with issue19-order-variants.patch")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--first-fit-tier", action="store_true",
                        help="the rule before 2026-12-04: a share's first tier by first fit")
    opts = parser.parse_args()
    if not os.access(opts.tool, os.X_OK):
        sys.exit(f"{opts.tool}: not an executable")
    rule = {} if opts.first_fit_tier else {"SHAREQ_WQ_STOP": "1"}
    scales = " / ".join(str(k) for k in TIME_SCALES)
    print("| variant | " + " | ".join(f"{f[1]}, time scale {scales}" for f in FIGURES) + " |")
    print("|---|" + "---|" * len(FIGURES))
    for name, env, args in VARIANTS:
        per_scale = [paired_medians(opts.tool, dict(rule, **env), args, k, opts.runs)
                     for k in TIME_SCALES]
        cells = [" / ".join(scale[i] for scale in per_scale) for i in range(len(FIGURES))]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
