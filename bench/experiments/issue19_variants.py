#!/usr/bin/python3
"""What the quota order costs on the utilisation benchmark's workload, in the simulator.

Each variant of shareq's scheduling is replayed on the benchmark's job lists (20 runs, seeds 7-26,
at time scales 1, 3 and 5) against the simulator's model of Slurm's stock plugins
(`bench/cluster/utilisation.py --simulate`), and the table gives the paired medians (shareq minus
stock in the same run): strict utilisation in points, production's P90 wait, and each share's
within-quota P90 wait, in seconds. The variants that change the order, the drain and the hold
are not in shareq: they are switched by environment variables in a build of the patch beside this
file (issue19-order-variants.patch, for commit 62e2c38):

    git worktree add /tmp/exp 62e2c38 && cd /tmp/exp && git apply \\
        $REPO/bench/experiments/issue19-order-variants.patch
    cmake -S . -B build -DSHAREQ_TESTS=OFF -DSHAREQ_PLUGINS=OFF && cmake --build build -t shareq
    bench/experiments/issue19_variants.py /tmp/exp/build/tools/shareq

With SHAREQ_WQ_STOP=1 in the environment every variant runs on the rule shareq took on 2026-12-04
(a share's first tier ends at its first job that does not fit what is left of its quota).
Figures only; docs/benchmarks.md ("What the quota order costs") has the table and what it says.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

UTILISATION = Path(__file__).resolve().parent.parent / "cluster" / "utilisation.py"
VARIANTS = [
    ("shareq as configured (within quota first, borrowers by share standing)", {}, []),
    ("borrowers in submission order", {"SHAREQ_ORDER": "fifo-borrow"}, []),
    ("larger jobs first inside each tier", {"SHAREQ_ORDER": "big-first"}, []),
    ("the job that crosses its share's quota ranked within quota", {"SHAREQ_WQ": "1"}, []),
    ("drain: a node held for the first admitted job with no room", {"SHAREQ_DRAIN": "1"}, []),
    ("hold: the first borrower refused holds its GPUs from later borrowers",
     {"SHAREQ_HOLD": "1"}, []),
    ("every job stops the main pass (bf_min_prio_reserve=1)", {},
     ["--shareq-sched-params", "bf_min_prio_reserve=1"]),
    ("main pass unbounded (partition_job_depth=0)", {},
     ["--shareq-sched-params", "partition_job_depth=0"]),
    ("no reclaim (ReclaimAfter=100000)", {}, ["--reclaim-after", "100000"]),
    ("one tier, submission order (no quota order)", {"SHAREQ_ORDER": "fifo"}, []),
    ("one tier, submission order, no reclaim", {"SHAREQ_ORDER": "fifo"},
     ["--reclaim-after", "100000"]),
]
FIGURES = [("GPU util (strict)", "strict (pts)"), ("production P90", "production P90"),
           ("production within quota P90", "production within quota P90"),
           ("research within quota P90", "research within quota P90"),
           ("hpo within quota P90", "hpo within quota P90")]


def paired_medians(tool, env, args, time_scale):
    out = subprocess.run([sys.executable, str(UTILISATION), "--simulate", "--runs", "20",
                          "--time-scale", str(time_scale), "--tool", tool, *args],
                         capture_output=True, text=True, env=dict(os.environ, **env), check=True)
    cells = []
    for figure, _ in FIGURES:
        line = next(line for line in out.stdout.splitlines()
                    if re.match(re.escape(figure) + r"\s{2,}", line))
        cells.append(re.findall(r"([+-]?[\d.]+) \[", line)[-1])
    return cells


def main():
    if len(sys.argv) != 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} PATH/TO/shareq (built with issue19-order-variants.patch)")
    print("| variant | time scale | " + " | ".join(f[1] for f in FIGURES) + " |")
    print("|---|---|" + "---|" * len(FIGURES))
    for name, env, args in VARIANTS:
        for time_scale in (1, 3, 5):
            cells = paired_medians(sys.argv[1], env, args, time_scale)
            print(f"| {name} | {time_scale} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
