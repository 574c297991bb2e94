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

Usage: bench/cluster/utilisation.py [--scale 1.0]    (as root; build/ built)
"""

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from datetime import datetime

from bench_cluster import REPO, run, start_cluster, stop_cluster
CAPACITY_GPUS = 32
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


def measure(mode, jobs, dump_dir=None):
    env = dict(os.environ)
    conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    conf.write(SHAREQ_CONF)
    conf.close()
    env.update(SHAREQ_CLUSTER_DIR=str(REPO / "build" / "bench-cluster"), SHAREQ_PORT_BASE="16900",
               SHAREQ_STOCK="1" if mode == "stock" else "0", SHAREQ_CONF=conf.name,
               SHAREQ_SCHED_PARAMS=SCHED_PARAMS)
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
    runs = []  # (submit, start, end, gpus) of each run of each job
    for line in out.splitlines():
        job_id, submit, start, end, req, alloc, state, nodes = line.split("|")
        job = int(job_id.split("_")[0])
        if job not in ids or "Unknown" in (start, end) or "None" in (start, end):
            continue
        s, b, e = (datetime.fromisoformat(x).timestamp() for x in (submit, start, end))
        gpus = gpu_count(alloc) or gpu_count(req)
        runs.append((s, b, e, gpus))
        if dump is not None:
            dump.write(f"{job} {ids[job]} {state} {s:.0f} {b:.0f} {e:.0f} {gpus} {nodes}\n")
        if state == "COMPLETED":
            waits[ids[job]].append(b - s)
    return {"utilisation": utilisation(runs), "jobs": len(ids),
            "span_s": max(e for _, _, e, _ in runs) - min(s for s, _, _, _ in runs),
            "waits": {t: (percentile(w, 50), percentile(w, 90)) for t, w in waits.items()}}


def gpu_count(tres):
    return next((int(t.split("=")[1]) for t in tres.split(",") if t.startswith("gres/gpu=")), 0)


def utilisation(runs):
    """GPU-seconds used / GPU-seconds the work could have used, second by second: at each second
    the family could use min(capacity, GPUs running + GPUs asked for by jobs waiting)."""
    first = int(min(s for s, _, _, _ in runs))
    last = int(max(e for _, _, e, _ in runs)) + 1
    used = fillable = 0
    for t in range(first, last):
        running = sum(g for _, b, e, g in runs if b <= t < e)
        waiting = sum(g for s, b, _, g in runs if s <= t < b)
        used += min(running, CAPACITY_GPUS)
        fillable += min(CAPACITY_GPUS, running + waiting)
    return used / fillable if fillable else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="jobs per burst = 8 x scale")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="stretch submission and run times by this factor (default 1: jobs"
                        " of 6-14 s); Slurm's own delays (batch_sched_delay, bf_interval, a"
                        " requeued job's BeginTime) stay as they are")
    parser.add_argument("--modes", default="stock,shareq", help="comma-separated: stock, shareq")
    parser.add_argument("--dump-dir", help="write each run (job, tier, state, submit, start, end,"
                        " GPUs, nodes) to DIR/utilisation-MODE.runs and the pending queue, once a"
                        " second (time, job, priority, reason), to DIR/utilisation-MODE.queue")
    opts = parser.parse_args()
    jobs = workload(opts.scale, opts.time_scale)
    results = {mode: measure(mode, jobs, opts.dump_dir) for mode in opts.modes.split(",")}
    print(f"\n{len(jobs)} GPU jobs on family p5 (32 GPUs), bursts from three shares, "
          f"time scale {opts.time_scale:g} (jobs of {min(j[5] for j in jobs)}-"
          f"{max(j[5] for j in jobs)} s)\n")
    print(f"{'plugins':<8} {'GPU util':>9} {'span (s)':>9}  " +
          "  ".join(f"{t + ' P50/P90 wait (s)':>30}" for t, _, _ in TIERS))
    for mode, r in results.items():
        waits = "  ".join(f"{r['waits'][t][0]:>14.1f} / {r['waits'][t][1]:>13.1f}"
                          for t, _, _ in TIERS)
        print(f"{mode:<8} {r['utilisation']:>8.1%} {r['span_s']:>9.0f}  {waits}")


if __name__ == "__main__":
    main()
