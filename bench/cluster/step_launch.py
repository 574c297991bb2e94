#!/usr/bin/python3
"""What shareq adds to launching a job step: `srun true` inside a job, stock Slurm against shareq.

For each mode it starts a private test cluster and runs one batch job of user alice on one node
(-p p4 -N1 --exclusive) whose script launches `srun -n1 true` --steps times, one after the other,
and prints each launch's wall time (bash's $EPOCHREALTIME around the srun: the srun client,
slurmd, slurmstepd with its SPANK plugins, the task, and the step's end):
  stock   Slurm's stock plugins, no SPANK plugin;
  shareq  shareq's plugins, a job with neither --image nor a warm directory (most jobs). Each
          step's slurmstepd loads spank_shareq.so and, through it, shareq's node library
          (shareq_node.so: libcurl, OpenSSL).
Prints the median and P90 per mode. The first launch of each job is not counted (page cache).

Usage: bench/cluster/step_launch.py [--steps 40] [--modes stock,shareq] [--build-dir build]
           [--cluster-dir BUILD_DIR/bench-cluster] [--port-base 16900]
       (as root, with the build dir built)
"""

import argparse
import os
import pathlib
import statistics
import sys
import time

from bench_cluster import REPO, percentile, run, start_cluster, stop_cluster

USER = "alice"
MODES = ("stock", "shareq")
SCRIPT = """#!/bin/bash
for i in $(seq {steps}); do
  t0=$EPOCHREALTIME
  srun -n1 true || exit 1
  t1=$EPOCHREALTIME
  echo "step $t0 $t1"
done
"""


def wait_output(path, steps, timeout):
    """The job's step lines, once all are there (bounded wait)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        steps_done = [line for line in lines if line.startswith("step ")]
        if len(steps_done) >= steps:
            return steps_done
        time.sleep(0.5)
    sys.exit(f"the job did not print {steps} step lines within {timeout} s; see {path}")


def measure(mode, steps, opts):
    env = dict(os.environ)
    env.update(SHAREQ_CLUSTER_DIR=str(opts.cluster_dir), SHAREQ_BUILD_DIR=str(opts.build_dir),
               SHAREQ_PORT_BASE=str(opts.port_base), SHAREQ_STOCK="1" if mode == "stock" else "0")
    start_cluster(env)
    try:
        jobs_dir = opts.cluster_dir / "jobs"
        script = jobs_dir / "step_launch.sh"
        script.write_text(SCRIPT.format(steps=steps + 1))
        script.chmod(0o755)
        out = jobs_dir / f"step_launch_{mode}.out"
        out.unlink(missing_ok=True)
        args = ["sbatch", "--parsable", "-p", "p4", "-N1", "--exclusive", f"--chdir={jobs_dir}",
                f"--output={out}"]
        args += ["-A", "prodexp1"] if mode == "stock" else ["--share=prodexp1"]
        run(args + [str(script)], env, user=USER)
        lines = wait_output(out, steps + 1, timeout=60 + 5 * steps)
        return [(float(t1) - float(t0)) * 1000 for _, t0, t1 in (line.split() for line in lines)][1:]
    finally:
        run(["scancel", "--user=" + USER], env, check=False)
        stop_cluster(env)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40, help="steps counted per mode")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: " +
                        ", ".join(MODES))
    parser.add_argument("--build-dir", type=pathlib.Path, default=REPO / "build",
                        help="build tree whose plugins/ the cluster loads (default build/)")
    parser.add_argument("--cluster-dir", type=pathlib.Path, default=None,
                        help="the cluster's private directory (default BUILD_DIR/bench-cluster)")
    parser.add_argument("--port-base", type=int, default=16900,
                        help="first of the 32 TCP ports the cluster takes (default 16900)")
    opts = parser.parse_args()
    modes = opts.modes.split(",")
    if not set(modes) <= set(MODES) or opts.steps < 1:
        parser.error(f"--modes: a comma-separated list of {', '.join(MODES)}; --steps: >= 1")
    opts.build_dir = opts.build_dir.resolve()
    opts.cluster_dir = (opts.cluster_dir or opts.build_dir / "bench-cluster").resolve()
    results = {mode: measure(mode, opts.steps, opts) for mode in modes}
    print(f"\n`srun -n1 true` inside a job on one node, {opts.steps} launches per mode "
          "(wall time per launch)\n")
    print(f"{'mode':<6} {'median (ms)':>12} {'P90 (ms)':>9} {'min (ms)':>9}")
    for mode, times in results.items():
        print(f"{mode:<6} {statistics.median(times):>12.1f} {percentile(times, 90):>9.1f} "
              f"{min(times):>9.1f}")


if __name__ == "__main__":
    main()
