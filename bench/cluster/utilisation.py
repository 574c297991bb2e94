#!/usr/bin/python3
"""GPU-time utilisation and wait per priority tier: stock Slurm plugins against shareq, one run.

A scripted bursty workload on family p5 (4 nodes x 8 GPUs = 32 GPUs) from three shares, as the
seed documents describe Amazon Search's teams: production (prodexp1, priority 80), research
(research, priority 50) and hyper-parameter search (prodexp2, priority 10). Each share submits
bursts of short GPU jobs at different times, so at times one share could use the whole family
and at others all three compete. The same job list (same seed) runs under the stock plugins
(priority/multifactor + preempt/qos + select/cons_tres, jobs under the same accounts) and under
shareq. Reports, from sacct, the family's GPU-time utilisation where the work was there to fill
it (see utilisation()), and the P50/P90 wait per tier.

Usage: bench/cluster/utilisation.py [--scale 1.0] [--time-scale 1.0] [--modes stock,shareq]
           [--dump-dir DIR] [--shareq-sched-params PARAMS]    (as root; build/ built)
       bench/cluster/utilisation.py --from-dumps DIR   (the table again from a --dump-dir run)
"""

import argparse
import os
import random
import re
import sys
import tempfile
import threading
import time
from datetime import datetime

from bench_cluster import REPO, run, start_cluster, stop_cluster
CAPACITY_GPUS = 32
GPUS_PER_NODE = 8
FAMILY_NODES = [f"p5n{i}" for i in range(1, 5)]
TIERS = [("production", "prodexp1", 80), ("research", "research", 50), ("hpo", "prodexp2", 10)]
SHAREQ_CONF = """
Family=p4 Partitions=p4 Capacity=node=4
Family=p5 Partitions=p5 Capacity=gres/gpu=32
Share=ProdExp1 Family=p4 Quota=node=2
Share=ProdExp2 Family=p4 Quota=node=2
Share=ProdExp1 Family=p5 Quota=gres/gpu=12
Share=Research Family=p5 Quota=gres/gpu=10
Share=ProdExp2 Family=p5 Quota=gres/gpu=10
ReclaimMinRuntime=0
"""
# Both modes run with sched_interval=5,bf_interval=5; tests/cluster/cluster adds what the README
# recommends with shareq (bf_min_prio_reserve at the within-quota tier) in shareq mode only.
SCHED_PARAMS = "sched_interval=5,bf_interval=5"


def workload(scale, time_scale=1.0):
    """(submit offset s, tier, share, priority, gpus, runtime s), deterministic. time_scale
    stretches submission times and run times alike: the same bursts, longer jobs."""
    rng = random.Random(7)
    jobs = []
    bursts = {"production": [0, 40], "research": [10, 50], "hpo": [0, 20, 60]}
    for tier, share, prio in TIERS:
        for start in bursts[tier]:
            for _ in range(int(8 * scale)):
                offset, gpus, runtime = start + rng.uniform(0, 5), rng.choice([2, 4, 8]), \
                    rng.randint(6, 14)
                jobs.append((offset * time_scale, tier, share, prio, gpus,
                             max(1, round(runtime * time_scale))))
    return sorted(jobs)


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def measure(mode, jobs, dump_dir=None, shareq_sched_params=""):
    env = dict(os.environ)
    conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    conf.write(SHAREQ_CONF)
    conf.close()
    env.update(SHAREQ_CLUSTER_DIR=str(REPO / "build" / "bench-cluster"), SHAREQ_PORT_BASE="16900",
               SHAREQ_STOCK="1" if mode == "stock" else "0", SHAREQ_CONF=conf.name,
               # Slurm reads the first occurrence of a parameter: --shareq-sched-params goes first
               # and overrides what tests/cluster adds in shareq mode.
               SHAREQ_SCHED_PARAMS=",".join(p for p in (
                   shareq_sched_params if mode == "shareq" else "", SCHED_PARAMS) if p))
    start_cluster(env)
    stop_polling = threading.Event()
    poller = None
    if dump_dir is not None:
        poller = threading.Thread(target=poll_queue, args=(
            env, os.path.join(dump_dir, f"utilisation-{mode}.queue"), stop_polling))
        poller.start()
    try:
        ids = {}
        t0 = time.monotonic()
        for offset, tier, share, prio, gpus, runtime in jobs:
            delay = offset - (time.monotonic() - t0)
            if delay > 0:
                time.sleep(delay)
            args = ["-p", "p5", f"--gres=gpu:{gpus}", "-o", "/dev/null",
                    f"--wrap=sleep {runtime}"]
            args += ([f"-A{share}"] if mode == "stock"
                     else [f"--share={share}", f"--share-priority={prio}"])
            out = run(["sbatch", "--parsable", *args], env)
            ids[int(out.stdout.strip())] = tier
        deadline = time.monotonic() + 900
        while run(["squeue", "-h", "-o", "%i"], env).stdout.strip():
            if time.monotonic() > deadline:
                sys.exit(f"{mode}: jobs still queued after 900 s")
            time.sleep(1)
        if dump_dir is None:
            return summarise(env, ids)
        with open(os.path.join(dump_dir, f"utilisation-{mode}.runs"), "w") as dump:
            return summarise(env, ids, dump)
    finally:
        stop_polling.set()
        if poller is not None:
            poller.join()
        stop_cluster(env)
        os.unlink(conf.name)


def poll_queue(env, path, stop):
    """Writes the pending queue once a second (time, job, priority, reason) for --dump-dir."""
    with open(path, "w") as out:
        while not stop.wait(1.0):
            now = time.time()
            queue = run(["squeue", "-h", "-t", "PD", "-o", "%i %Q %r"], env, check=False).stdout
            for line in queue.splitlines():
                out.write(f"{now:.1f} {line}\n")


def summarise(env, ids, dump=None):
    out = run(["sacct", "-a", "-X", "-n", "-P", "-D", "-o",
               "JobID,Submit,Start,End,ReqTRES,AllocTRES,State,NodeList"], env).stdout
    waits = {tier: [] for tier, _, _ in TIERS}
    runs = []  # (submit, start, end, gpus, nodes) of each run of each job
    for line in out.splitlines():
        job_id, submit, start, end, req, alloc, state, nodes = line.split("|")
        job = int(job_id.split("_")[0])
        if job not in ids or "Unknown" in (start, end) or "None" in (start, end):
            continue
        s, b, e = (datetime.fromisoformat(x).timestamp() for x in (submit, start, end))
        gpus = gpu_count(alloc) or gpu_count(req)
        runs.append((s, b, e, gpus, hostnames(nodes)))
        if dump is not None:
            dump.write(f"{job} {ids[job]} {state} {s:.0f} {b:.0f} {e:.0f} {gpus} {nodes}\n")
        if state == "COMPLETED":
            waits[ids[job]].append(b - s)
    return result(runs, waits, len(ids))


def result(runs, waits, jobs):
    strict, placeable = utilisation(runs)
    return {"utilisation": strict, "placeable": placeable, "jobs": jobs,
            "span_s": max(r[2] for r in runs) - min(r[0] for r in runs),
            "waits": {t: (percentile(w, 50), percentile(w, 90)) for t, w in waits.items()}}


def gpu_count(tres):
    return next((int(t.split("=")[1]) for t in tres.split(",") if t.startswith("gres/gpu=")), 0)


def hostnames(nodelist):
    """p5n[1-2,4] -> [p5n1, p5n2, p5n4] (Slurm's hostlist form, as sacct prints it)."""
    names = []
    for prefix, ranges in re.findall(r"([^,\[]+)(?:\[([^\]]*)\])?", nodelist):
        if not ranges:
            names.append(prefix)
            continue
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            names += [f"{prefix}{i:0{len(lo)}d}" for i in range(int(lo), int(hi or lo) + 1)]
    return names


def from_dump(path):
    """The result dict of a run written with --dump-dir, computed again from its .runs file."""
    waits = {tier: [] for tier, _, _ in TIERS}
    runs, jobs = [], set()
    with open(path) as dump:
        for line in dump:
            job, tier, state, s, b, e, gpus, nodes = line.split()
            jobs.add(job)
            runs.append((int(s), int(b), int(e), int(gpus), hostnames(nodes)))
            if state == "COMPLETED":
                waits[tier].append(int(b) - int(s))
    return result(runs, waits, len(jobs))


def utilisation(runs):
    """GPU-seconds used over GPU-seconds the work could have used, second by second, two ways.
    strict: the family could use min(capacity, GPUs running + GPUs asked for by waiting jobs).
    placeable: only what the waiting jobs could have taken where GPUs were free, each on one
    node (largest first, best fit): GPUs idle on a node that no waiting job fits (4 free here, 4
    there, and 8-GPU jobs waiting) do not count. strict <= placeable; the gap is fragmentation."""
    first = int(min(r[0] for r in runs))
    last = int(max(r[2] for r in runs)) + 1
    used = fillable = placeable = 0
    for t in range(first, last):
        running = [r for r in runs if r[1] <= t < r[2]]
        waiting = [r[3] for r in runs if r[0] <= t < r[1]]
        busy = min(sum(r[3] for r in running), CAPACITY_GPUS)
        used += busy
        fillable += min(CAPACITY_GPUS, busy + sum(waiting))
        placeable += busy + min(CAPACITY_GPUS - busy, fits(free_gpus(running), waiting))
    return (used / fillable if fillable else 0.0, used / placeable if placeable else 0.0)


def free_gpus(running):
    free = {node: GPUS_PER_NODE for node in FAMILY_NODES}
    for _, _, _, gpus, nodes in running:
        for node in nodes:
            free[node] = free.get(node, 0) - gpus // max(1, len(nodes))
    return free


def fits(free, waiting):
    """GPUs of the waiting jobs that fit into the nodes' free GPUs, largest job first, best fit."""
    free = sorted(f for f in free.values() if f > 0)
    placed = 0
    for gpus in sorted(waiting, reverse=True):
        node = next((i for i, f in enumerate(free) if f >= gpus), None)
        if node is not None:
            free[node] -= gpus
            placed += gpus
            free.sort()
    return placed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="jobs per burst = 8 x scale")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="stretch submission and run times by this factor (default 1: jobs"
                        " of 6-14 s); Slurm's own delays (batch_sched_delay, bf_interval, a"
                        " requeued job's BeginTime) stay as they are")
    parser.add_argument("--shareq-sched-params", default="",
                        help="SchedulerParameters put first in shareq mode, e.g. "
                        "partition_job_depth=0 (Slurm reads the first occurrence)")
    parser.add_argument("--modes", default="stock,shareq", help="comma-separated: stock, shareq")
    parser.add_argument("--dump-dir", help="write each run (job, tier, state, submit, start, end,"
                        " GPUs, nodes) to DIR/utilisation-MODE.runs and the pending queue, once a"
                        " second (time, job, priority, reason), to DIR/utilisation-MODE.queue")
    parser.add_argument("--from-dumps", metavar="DIR",
                        help="run nothing: print the table again from DIR/utilisation-MODE.runs")
    opts = parser.parse_args()
    modes = opts.modes.split(",")
    if not set(modes) <= {"stock", "shareq"}:
        parser.error(f"--modes: {opts.modes!r}: a comma-separated list of stock, shareq")
    for name, value in (("--scale", opts.scale), ("--time-scale", opts.time_scale)):
        if not value > 0:
            parser.error(f"{name}: {value}: must be a number above 0")
    if opts.dump_dir:
        try:
            os.makedirs(opts.dump_dir, exist_ok=True)
        except OSError as e:
            parser.error(f"--dump-dir: {opts.dump_dir}: cannot create it: {e.strerror}")
    jobs = workload(opts.scale, opts.time_scale)
    if opts.from_dumps:
        dumps = {mode: os.path.join(opts.from_dumps, f"utilisation-{mode}.runs") for mode in modes}
        results = {mode: from_dump(path) for mode, path in dumps.items() if os.path.exists(path)}
        if not results:
            parser.error(f"--from-dumps: no utilisation-MODE.runs for {opts.modes} in "
                         f"{opts.from_dumps}")
    else:
        results = {mode: measure(mode, jobs, opts.dump_dir, opts.shareq_sched_params)
                   for mode in modes}
    print(f"\n{len(jobs)} GPU jobs on family p5 (32 GPUs), bursts from three shares, "
          f"time scale {opts.time_scale:g} (jobs of {min(j[5] for j in jobs)}-"
          f"{max(j[5] for j in jobs)} s)\n")
    print(f"{'plugins':<8} {'GPU util':>9} {'placeable':>10} {'span (s)':>9}  " +
          "  ".join(f"{t + ' P50/P90 wait (s)':>30}" for t, _, _ in TIERS))
    for mode, r in results.items():
        waits = "  ".join(f"{r['waits'][t][0]:>14.1f} / {r['waits'][t][1]:>13.1f}"
                          for t, _, _ in TIERS)
        print(f"{mode:<8} {r['utilisation']:>8.1%} {r['placeable']:>9.1%} {r['span_s']:>9.0f}  "
              f"{waits}")


if __name__ == "__main__":
    main()
