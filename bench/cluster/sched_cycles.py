#!/usr/bin/python3
"""Scheduler cycle times with shareq's plugins against Slurm's stock plugins, in one run.

For each mode (stock: select/cons_tres + priority/multifactor + preempt/qos; shareq: shareq's
plugins) it starts a private test cluster, fills every node with a long job (sbatch), submits N
pending jobs spread over the shares, partitions and priorities (--submit-threads processes of
tests/cluster/tools/burst_submit: sbatch's call without a process start per job, so that 20,000
jobs take minutes, not the better part of an hour), lets slurmctld schedule for a while, and
reads the main and backfill scheduler's cycle statistics from `sdiag`. Prints one table.

With --nodes beyond 8 (tests/cluster/cluster's SHAREQ_NODES: four partitions p4-p7 of N/4 nodes,
p4 and p6 counted in nodes, p5 and p7 in GPUs) it runs at scale, e.g. 256 nodes and 20,000
pending jobs; MaxJobCount is raised above --jobs when Slurm's default (10,000) would refuse some.
The cluster then takes 32 + N TCP ports from --port-base.

Usage: bench/cluster/sched_cycles.py [--jobs 5000] [--seconds 90] [--nodes 8] [--submit-threads 8]
           [--build-dir build]
           [--cluster-dir BUILD_DIR/bench-cluster] [--port-base 16900] [--fill quota|random]
           [--modes stock,shareq] [--shareq-sched-params PARAMS] [--stock-sched-params PARAMS]
       (as root, with the build dir built)
"""

import argparse
import os
import pathlib
import random
import re
import sys
import time

from bench_cluster import REPO, burst_submit, ctld_rss_mib, run, start_cluster, stop_cluster
SHARES = {"p4": ["prodexp1", "prodexp2"], "p5": ["prodexp2", "research"],
          "p6": ["prodexp1", "prodexp2"], "p7": ["prodexp2", "research"]}
NODE_PARTITIONS = ("p4", "p6")  # counted in nodes: whole-node jobs; p5 and p7 in GPUs


def partitions(nodes):
    """The cluster's partitions and the nodes in each (tests/cluster/cluster's SHAREQ_NODES)."""
    if nodes == 8:
        return {"p4": 4, "p5": 4}
    return {p: nodes // 4 for p in ("p4", "p5", "p6", "p7")}


def sbatch(env, args):
    return run(["sbatch", "--parsable", "-o", "/dev/null", *args], env)


# The long jobs that fill every node. "quota" (default): each share runs exactly its quota (p4: 2
# nodes each; p5: 16 GPUs each) at --share-priority=99, so that under shareq no pending job can
# start, borrow, reclaim or preempt in its share -- the same "nothing can start" the stock plugins
# see, so both modes do the same work. "random" (the benchmark's first version): random shares and
# priorities, which leaves shares over their quota: shareq then reclaims and preempts within
# shares, and 10-s jobs keep starting and ending (a main cycle at every job end), while stock
# starts nothing. With more nodes (--nodes), each share of a partition holds half its nodes.
def quota_fill(partition, count):
    """The share of each of a partition's `count` fill jobs: half of them each."""
    return [SHARES[partition][0]] * (count // 2) + [SHARES[partition][1]] * (count - count // 2)


def fill_args(rng, fill, nodes):
    out = []
    for partition, count in partitions(nodes).items():
        shares = quota_fill(partition, count)
        for i in range(count):
            args = job_args(rng, partition)
            if fill == "quota":
                args = [f"--share={shares[i]}" if a.startswith("--share=") else
                        "--share-priority=99" if a.startswith("--share-priority=") else a
                        for a in args]
            out.append(args)
    return out


def draw_share(rng, partition):
    """A job's share and --share-priority, drawn at random: (share, priority)."""
    return rng.choice(SHARES[partition]), rng.randrange(100)


def job_args(rng, partition):
    """sbatch's arguments for a long fill job (`sleep 3600`): a whole node, or its 8 GPUs."""
    share, priority = draw_share(rng, partition)
    args = ["-p", partition, f"--share={share}", f"--share-priority={priority}"]
    args += ["-N", "1", "--exclusive"] if partition in NODE_PARTITIONS else ["--gres=gpu:8"]
    args.append("--wrap=sleep 3600")
    return args


def job_line(rng, partition):
    """A pending job of the fill's shape but `sleep 10`, as a line of burst_submit's input."""
    share, priority = draw_share(rng, partition)
    exclusive, gpus = (1, 0) if partition in NODE_PARTITIONS else (0, 8)
    return f"{partition} {exclusive} {gpus} 10 {share} {priority}\n"


def wait_running(env, count, timeout=60):
    """Waits (bounded) until `count` jobs run: the fill holds every node before the queue fills."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(run(["squeue", "-h", "-t", "R", "-o", "%i"], env).stdout.split()) >= count:
            return
        time.sleep(0.5)
    sys.exit(f"the {count} fill jobs did not all start within {timeout} s")


def sdiag_means(env):
    text = run(["sdiag"], env).stdout
    main = re.search(r"Main schedule statistics.*?Mean cycle:\s+(\d+)", text, re.S)
    cycles = re.search(r"Main schedule statistics.*?Total cycles:\s+(\d+)", text, re.S)
    bf = re.search(r"Backfilling stats.*?Mean cycle:\s+(\d+)", text, re.S)
    bf_cycles = re.search(r"Backfilling stats.*?Total cycles:\s+(\d+)", text, re.S)
    started = re.search(r"Jobs started:\s+(\d+)", text)
    return {
        "main_mean_us": int(main.group(1)) if main else None,
        "main_cycles": int(cycles.group(1)) if cycles else 0,
        "bf_mean_us": int(bf.group(1)) if bf else None,
        "bf_cycles": int(bf_cycles.group(1)) if bf_cycles else 0,
        "started": int(started.group(1)) if started else 0,
    }


def measure(mode, jobs, seconds, opts):
    env = dict(os.environ)
    env.update(SHAREQ_CLUSTER_DIR=str(opts.cluster_dir), SHAREQ_BUILD_DIR=str(opts.build_dir),
               SHAREQ_PORT_BASE=str(opts.port_base),
               SHAREQ_STOCK="1" if mode == "stock" else "0",
               SHAREQ_NODES=str(opts.nodes),
               # Both modes: a main cycle every 5 s besides event-driven ones, backfill every 5 s.
               # Slurm reads the first occurrence of a parameter, so --shareq-sched-params goes
               # first and overrides what tests/cluster adds.
               SHAREQ_SCHED_PARAMS=",".join(
                   p for p in (opts.shareq_sched_params if mode == "shareq"
                               else opts.stock_sched_params,
                               "sched_interval=5,bf_interval=5") if p))
    # Room for every pending job and the fill (Slurm's default MaxJobCount is 10,000).
    if jobs + opts.nodes > 9000:
        env["SHAREQ_MAX_JOB_COUNT"] = str(jobs + opts.nodes + 1000)
    # Hundreds of slurmds register and the fill's prologs run on a 2-core machine: longer waits.
    env.setdefault("SHAREQ_WAIT", str(max(60, opts.nodes)))
    start_cluster(env)
    rng = random.Random(42)
    try:
        rss_idle = ctld_rss_mib(opts.cluster_dir)
        for args in fill_args(rng, opts.fill, opts.nodes):
            sbatch(env, to_stock(args) if mode == "stock" else args)
        wait_running(env, opts.nodes, timeout=max(60, opts.nodes))
        started = time.monotonic()
        names = list(partitions(opts.nodes))
        lines = [job_line(rng, rng.choice(names)) for _ in range(jobs)]
        chunks = [(None, lines[k::opts.submit_threads]) for k in range(opts.submit_threads)]
        _, submitted = burst_submit(env, opts.build_dir, chunks, mode == "shareq", label=mode)
        submit_s = time.monotonic() - started
        refused = [message for outcome, message, _ in submitted if outcome == "refused"]
        if refused:
            sys.exit(f"{mode}: {len(refused)} of {jobs} jobs refused, e.g. {refused[0]}")
        pending = len(run(["squeue", "-h", "-t", "PD", "-o", "%i"], env).stdout.split())
        if pending != jobs:
            sys.exit(f"{mode}: {pending} jobs pending after submitting {jobs}")
        run(["sdiag", "-r"], env)
        time.sleep(seconds)
        result = sdiag_means(env)
        result["submit_s"] = submit_s
        result["rss_idle"] = rss_idle
        result["rss_end"] = ctld_rss_mib(opts.cluster_dir)
        result["load"] = os.getloadavg()[0]
        return result
    finally:
        run(["scancel", "--user=root"], env, check=False)
        stop_cluster(env)


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
    parser.add_argument("--submit-threads", type=int, default=8,
                        help="submitting processes at once while the queue fills (default 8)")
    parser.add_argument("--nodes", type=int, default=8,
                        help="the cluster's nodes: 8 (default), or 16 to 1024 in steps of 16")
    parser.add_argument("--build-dir", type=pathlib.Path, default=REPO / "build",
                        help="build tree whose plugins/ the cluster loads (default build/)")
    parser.add_argument("--cluster-dir", type=pathlib.Path, default=None,
                        help="the cluster's private directory (default BUILD_DIR/bench-cluster)")
    parser.add_argument("--fill", choices=["quota", "random"], default="quota",
                        help="the long jobs that fill the nodes (see QUOTA_FILL; default quota)")
    parser.add_argument("--port-base", type=int, default=16900,
                        help="first of the TCP ports the cluster takes (32, and one per node "
                        "beyond 8 nodes; default 16900)")
    parser.add_argument("--modes", default="stock,shareq", help="comma-separated: stock, shareq")
    parser.add_argument("--shareq-sched-params", default="",
                        help="SchedulerParameters put first in shareq mode, e.g. "
                        "partition_job_depth=10 (Slurm reads the first occurrence)")
    parser.add_argument("--stock-sched-params", default="",
                        help="SchedulerParameters added in stock mode, e.g. partition_job_depth=4 "
                        "to bound stock's main pass as shareq's recommended configuration does")
    opts = parser.parse_args()
    if opts.nodes != 8 and not (16 <= opts.nodes <= 1024 and opts.nodes % 16 == 0):
        parser.error(f"--nodes: {opts.nodes}: 8, or 16 to 1024 in steps of 16")
    if not set(opts.modes.split(",")) <= {"stock", "shareq"}:
        parser.error(f"--modes: {opts.modes!r}: a comma-separated list of stock, shareq")
    if opts.submit_threads < 1:
        parser.error(f"--submit-threads: {opts.submit_threads}: at least 1")
    if opts.jobs < 1:
        parser.error(f"--jobs: {opts.jobs}: at least 1")
    opts.build_dir = opts.build_dir.resolve()
    opts.cluster_dir = (opts.cluster_dir or opts.build_dir / "bench-cluster").resolve()
    results = {}
    for mode in opts.modes.split(","):
        results[mode] = measure(mode, opts.jobs, opts.seconds, opts)
        # Each mode's figures as soon as they are taken: a later mode's failure keeps them.
        print(f"{mode}: {results[mode]}", flush=True)
    print(f"\n{opts.jobs} pending jobs, {opts.seconds} s of scheduling, {opts.nodes} nodes "
          f"(all busy), fill={opts.fill}; started = jobs started during the measurement; "
          f"slurmctld RSS before the fill and at the end; load = 1-min load average at the end\n")
    print(f"{'plugins':<8} {'main mean (us)':>15} {'main cycles':>12} "
          f"{'backfill mean (us)':>19} {'bf cycles':>10} {'started':>8} {'submit (s)':>11} "
          f"{'RSS MiB':>13} {'load':>5}")
    for mode, r in results.items():
        rss = f"{r['rss_idle'] or 0:.0f}->{r['rss_end'] or 0:.0f}"
        print(f"{mode:<8} {r['main_mean_us'] or 0:>15} {r['main_cycles']:>12} "
              f"{r['bf_mean_us'] or 0:>19} {r['bf_cycles']:>10} {r['started']:>8} "
              f"{r['submit_s']:>11.1f} {rss:>13} {r['load']:>5.1f}")
    if set(results) != {"stock", "shareq"}:
        return
    stock, shareq = results["stock"], results["shareq"]
    for key, name in (("main_mean_us", "main"), ("bf_mean_us", "backfill")):
        if stock[key] and shareq[key]:
            print(f"{name} cycle ratio shareq/stock: {shareq[key] / stock[key]:.2f}")


if __name__ == "__main__":
    main()
