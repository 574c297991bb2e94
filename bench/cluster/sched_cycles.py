#!/usr/bin/python3
"""Scheduler cycle times with shareq's plugins against Slurm's stock plugins, in one run.

For each mode (stock: select/cons_tres + priority/multifactor + preempt/qos; shareq: shareq's
plugins) it starts a private test cluster, fills every node with a long job, submits N pending
jobs spread over the shares, partitions and priorities, lets slurmctld schedule for a while, and
reads the main and backfill scheduler's cycle statistics from `sdiag`. Prints one table.

Usage: bench/cluster/sched_cycles.py [--jobs 5000] [--seconds 90]   (as root; build/ built)
"""

import argparse
import concurrent.futures
import os
import pathlib
import random
import re
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CLUSTER = REPO / "tests" / "cluster" / "cluster"
SHARES = {"p4": ["prodexp1", "prodexp2"], "p5": ["prodexp2", "research"]}


def run(cmd, env, check=True):
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if check and out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {out.stderr}")
    return out


def sbatch(env, args):
    return run(["sbatch", "--parsable", "-o", "/dev/null", *args], env)


def job_args(rng, partition, long=False):
    share = rng.choice(SHARES[partition])
    args = ["-p", partition, f"--share={share}", f"--share-priority={rng.randrange(100)}"]
    args += ["-N", "1", "--exclusive"] if partition == "p4" else ["--gres=gpu:8"]
    args.append("--wrap=sleep 3600" if long else "--wrap=sleep 10")
    return args


def sdiag_means(env):
    text = run(["sdiag"], env).stdout
    main = re.search(r"Main schedule statistics.*?Mean cycle:\s+(\d+)", text, re.S)
    cycles = re.search(r"Main schedule statistics.*?Total cycles:\s+(\d+)", text, re.S)
    bf = re.search(r"Backfilling stats.*?Mean cycle:\s+(\d+)", text, re.S)
    bf_cycles = re.search(r"Backfilling stats.*?Total cycles:\s+(\d+)", text, re.S)
    return {
        "main_mean_us": int(main.group(1)) if main else None,
        "main_cycles": int(cycles.group(1)) if cycles else 0,
        "bf_mean_us": int(bf.group(1)) if bf else None,
        "bf_cycles": int(bf_cycles.group(1)) if bf_cycles else 0,
    }


def measure(mode, jobs, seconds):
    env = dict(os.environ)
    env.update(SHAREQ_CLUSTER_DIR=str(REPO / "build" / "bench-cluster"), SHAREQ_PORT_BASE="16900",
               SHAREQ_STOCK="1" if mode == "stock" else "0",
               # Both modes: a main cycle every 5 s besides event-driven ones, backfill every 5 s.
               SHAREQ_SCHED_PARAMS="sched_interval=5,bf_interval=5")
    run([str(CLUSTER), "down"], env, check=False)
    up = run([str(CLUSTER), "up"], env)
    for line in up.stdout.splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        env[key] = value
    rng = random.Random(42)
    try:
        for partition in ("p4", "p5"):
            for _ in range(4):
                args = job_args(rng, partition, long=True)
                sbatch(env, to_stock(args) if mode == "stock" else args)
        started = time.monotonic()
        arg_lists = [job_args(rng, rng.choice(["p4", "p5"])) for _ in range(jobs)]
        if mode == "stock":
            arg_lists = [to_stock(a) for a in arg_lists]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda a: sbatch(env, a), arg_lists))
        submit_s = time.monotonic() - started
        run(["sdiag", "-r"], env)
        time.sleep(seconds)
        result = sdiag_means(env)
        result["submit_s"] = submit_s
        return result
    finally:
        run(["scancel", "--user=root"], env, check=False)
        run([str(CLUSTER), "down"], env, check=False)


def to_stock(args):
    """The same job for the stock plugins: --share becomes -A, --share-priority is dropped."""
    out = []
    for a in args:
        if a.startswith("--share="):
            out += ["-A", a.split("=", 1)[1]]
        elif not a.startswith("--share-priority="):
            out.append(a)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--seconds", type=int, default=90)
    opts = parser.parse_args()
    results = {mode: measure(mode, opts.jobs, opts.seconds) for mode in ("stock", "shareq")}
    print(f"\n{opts.jobs} pending jobs, {opts.seconds} s of scheduling, 8 nodes (all busy)\n")
    print(f"{'plugins':<8} {'main mean (us)':>15} {'main cycles':>12} "
          f"{'backfill mean (us)':>19} {'bf cycles':>10} {'submit (s)':>11}")
    for mode, r in results.items():
        print(f"{mode:<8} {r['main_mean_us'] or 0:>15} {r['main_cycles']:>12} "
              f"{r['bf_mean_us'] or 0:>19} {r['bf_cycles']:>10} {r['submit_s']:>11.1f}")
    stock, shareq = results["stock"], results["shareq"]
    for key, name in (("main_mean_us", "main"), ("bf_mean_us", "backfill")):
        if stock[key] and shareq[key]:
            print(f"{name} cycle ratio shareq/stock: {shareq[key] / stock[key]:.2f}")


if __name__ == "__main__":
    main()
