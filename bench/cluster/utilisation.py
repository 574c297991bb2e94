#!/usr/bin/python3
"""GPU-time utilisation and waits per share: stock Slurm plugins against shareq, in paired runs.

A scripted bursty workload on family p5 (4 nodes x 8 GPUs = 32 GPUs) from three shares, as the
seed documents describe Amazon Search's teams: production (prodexp1, priority 80), research
(research, priority 50) and hyper-parameter search (prodexp2, priority 10). Each share submits
bursts of short GPU jobs at different times, so at times one share could use the whole family
and at others all three compete. Each run draws one job list (seed S + run number) and runs it
under both modes: the stock plugins (priority/multifactor + preempt/qos + select/cons_tres, jobs
under the same accounts) and shareq. The modes alternate (stock first in even runs, shareq first
in odd ones), or with --parallel run at the same time on two private clusters. A single run is
never the evidence: the table gives each figure's median and range over the runs.

Figures, from sacct (see utilisation() and waits()): GPU-time utilisation where the work was
there to fill it, strict and placeable; the span; per share the P50/P90 wait from submission to
the start of the run that completed (a preempted job's lost run and its requeue count as
waiting), all jobs and the jobs that started within their share's quota; preempted runs, and
the share of the busy GPU time that preempted runs held (work lost).

Usage: bench/cluster/utilisation.py [--runs 5] [--seed 7] [--time-scale 1] [--parallel]
           [--modes stock,shareq] [--dump-dir DIR] [--shareq-sched-params PARAMS] [--scale 1]
           [--quotas production=12,research=10,hpo=10] [--borrow-weights production=10]
           (as root; build/ built)
       bench/cluster/utilisation.py --from-dumps DIR [--explain]   (the table again from dumps)
       bench/cluster/utilisation.py --simulate [--runs 200] [--time-scale K] ... (shareq sim:
           shareq against its model of the stock plugins, the same job lists, in seconds)
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime

from bench_cluster import (REPO, percentile, run, run_clusters_at_once, start_cluster,
                           stop_cluster)
CAPACITY_GPUS = 32
GPUS_PER_NODE = 8
FAMILY_NODES = [f"p5n{i}" for i in range(1, 5)]
TIERS = [("production", "prodexp1", 80), ("research", "research", 50), ("hpo", "prodexp2", 10)]
# Each share's quota in family p5, in GPUs: what the figures "within quota" and shareq.conf read.
# --quotas sets other values (and a dump's run.json the ones it was made with) before any run.
QUOTA_GPUS = {"production": 12, "research": 10, "hpo": 10}
DEFAULT_QUOTA_GPUS = dict(QUOTA_GPUS)
SHAREQ_CONF = """
Family=p4 Partitions=p4 Capacity=node=4
Family=p5 Partitions=p5 Capacity=gres/gpu=32
Share=ProdExp1 Family=p4 Quota=node=2
Share=ProdExp2 Family=p4 Quota=node=2
Share=ProdExp1 Family=p5 Quota=gres/gpu={production}{production_weight}
Share=Research Family=p5 Quota=gres/gpu={research}{research_weight}
Share=ProdExp2 Family=p5 Quota=gres/gpu={hpo}{hpo_weight}
ReclaimMinRuntime=0
ReclaimAfter={reclaim_after}
"""


# Each share's BorrowWeight in p5 (--borrow-weights); a share not in it has none (weight 1).
BORROW_WEIGHTS = {}


def shareq_conf(reclaim_after, quotas=None, weights=None):
    """The benchmark's shareq.conf, with `quotas` (default QUOTA_GPUS) and BorrowWeights
    `weights` (default BORROW_WEIGHTS)."""
    weights = BORROW_WEIGHTS if weights is None else weights
    words = {f"{share}_weight": f" BorrowWeight={weights[share]}" if share in weights else ""
             for share in DEFAULT_QUOTA_GPUS}
    return SHAREQ_CONF.format(reclaim_after=reclaim_after, **(quotas or QUOTA_GPUS), **words)


def use_quotas(made):
    """QUOTA_GPUS and BORROW_WEIGHTS as a run's run.json says it was made (the defaults before
    --quotas and --borrow-weights existed)."""
    QUOTA_GPUS.update(made.get("quotas") or DEFAULT_QUOTA_GPUS)
    BORROW_WEIGHTS.clear()
    BORROW_WEIGHTS.update(made.get("borrow_weights") or {})


# What a reclaim costs its victim on the test cluster before it can run again: the requeued job's
# BeginTime (cred_expire=10, + 1 s) and KillWait (5 s). --reclaim-after sets another value.
RECLAIM_AFTER_S = 16
# Both modes run with sched_interval=5,bf_interval=5; tests/cluster/cluster adds what the README
# recommends with shareq (bf_min_prio_reserve at the within-quota tier) in shareq mode only.
BF_INTERVAL_S = 5
SCHED_PARAMS = f"sched_interval=5,bf_interval={BF_INTERVAL_S}"
# Each mode's private cluster (directory under build/, first TCP port); two at once with
# --parallel. --slot K moves both (K * 100 ports up, directories suffixed -slotK), so that runs of
# different time scales can share a machine.
CLUSTERS = {"stock": ("bench-cluster", 16900), "shareq": ("bench-cluster-2", 16950)}
BATCH_SCHED_DELAY_S = 3  # Slurm's default: a submitted batch job waits for a pass up to this


def workload(scale, time_scale=1.0, seed=7):
    """(submit offset s, tier, share, priority, gpus, runtime s), deterministic for a seed.
    time_scale stretches submission times and run times alike: the same bursts, longer jobs."""
    rng = random.Random(seed)
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


class Cluster:
    """One mode's private test cluster: its environment, started and stopped."""

    def __init__(self, mode, shareq_sched_params="", reclaim_after=RECLAIM_AFTER_S, slot=0,
                 conf_lines=()):
        self.mode = mode
        directory, port = CLUSTERS[mode]
        directory, port = (f"{directory}-slot{slot}" if slot else directory), str(port + 100 * slot)
        self.env = dict(os.environ)
        conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
        conf.write(shareq_conf(reclaim_after))
        conf.write("".join(line + "\n" for line in conf_lines))
        conf.close()
        self.conf = conf.name
        self.env.update(
            SHAREQ_CLUSTER_DIR=str(REPO / "build" / directory), SHAREQ_PORT_BASE=port,
            SHAREQ_STOCK="1" if mode == "stock" else "0", SHAREQ_CONF=conf.name,
            # Slurm reads the first occurrence of a parameter: --shareq-sched-params goes first
            # and overrides what tests/cluster adds in shareq mode.
            SHAREQ_SCHED_PARAMS=",".join(p for p in (
                shareq_sched_params if mode == "shareq" else "", SCHED_PARAMS) if p))

    def __enter__(self):
        start_cluster(self.env)
        return self

    def __exit__(self, *_):
        stop_cluster(self.env)
        os.unlink(self.conf)


def await_scheduler_cadence(env, mode, timeout_s=60):
    """Waits until the controller has been up longer than bf_interval (sdiag's "Data since", the
    time its statistics start: the controller's start or a later reset), so that the workload meets
    Slurm's scheduling cadence as on a cluster that has been up a while. The backfill agent sleeps
    bf_interval after slurmctld starts before its first pass; with --parallel the cluster started
    second would otherwise meet the first burst that way while the first did not."""
    settle_s = BF_INTERVAL_S + 1
    deadline = time.monotonic() + timeout_s
    while True:
        since = re.search(r"Data since\s.*\((\d+)\)", run(["sdiag"], env).stdout)
        # 0 until slurmctld's background thread first runs, moments after the start
        if since and int(since.group(1)) > 0 and time.time() - int(since.group(1)) > settle_s:
            return
        if time.monotonic() > deadline:
            sys.exit(f"{mode}: slurmctld not up {settle_s} s within {timeout_s} s (sdiag: "
                     f"{since.group(0) if since else 'no Data since line'})")
        time.sleep(0.5)


def play(cluster, jobs, dump_dir, results, start_together=None):
    """Submits `jobs` on their schedule, waits for the queue to drain, and stores the runs (and,
    with dump_dir, the files of one run) in results[mode]. With start_together (a barrier), the
    first submission waits for the other modes' clusters to be ready too."""
    env, mode = cluster.env, cluster.mode
    stop_polling = threading.Event()
    poller = None
    if dump_dir is not None:
        poller = threading.Thread(target=poll_queue, args=(
            env, os.path.join(dump_dir, f"utilisation-{mode}.queue"), stop_polling))
        poller.start()
    try:
        await_scheduler_cadence(env, mode)
        if start_together is not None:
            start_together.wait(timeout=120)
        tiers = {}
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
            tiers[int(out.stdout.strip())] = tier
        deadline = time.monotonic() + 900 + 2 * max(j[0] + j[5] for j in jobs)
        while run(["squeue", "-h", "-o", "%i"], env).stdout.strip():
            if time.monotonic() > deadline:
                sys.exit(f"{mode}: jobs still queued long after the last should have ended")
            time.sleep(1)
        runs = accounted_runs(env, tiers)
    finally:
        stop_polling.set()
        if poller is not None:
            poller.join()
    if dump_dir is not None:
        write_runs(os.path.join(dump_dir, f"utilisation-{mode}.runs"), runs)
        # The configuration as the cluster ran it, for bench/cluster/sim_crosscheck.py.
        for name in ("slurm.conf", "shareq.conf"):
            shutil.copyfile(os.path.join(env["SHAREQ_CLUSTER_DIR"], "etc", name),
                            os.path.join(dump_dir, f"utilisation-{mode}.{name}"))
    results[mode] = runs


def play_or_say_why(cluster, jobs, dump_dir, results, start_together):
    """play() in a thread: what ended it early goes into results["MODE failed"]."""
    try:
        play(cluster, jobs, dump_dir, results, start_together)
    except (SystemExit, Exception) as e:  # noqa: BLE001 - reported by run_pair
        results[f"{cluster.mode} failed"] = str(e) or type(e).__name__
        start_together.abort()  # the other modes stop waiting for this one


def poll_queue(env, path, stop):
    """Writes the pending queue once a second (time, job, priority, reason) for --dump-dir."""
    with open(path, "w") as out:
        while not stop.wait(1.0):
            now = time.time()
            queue = run(["squeue", "-h", "-t", "PD", "-o", "%i %Q %r"], env, check=False).stdout
            for line in queue.splitlines():
                out.write(f"{now:.1f} {line}\n")


# One run of one job, as sacct gives it (a requeued job has one per start).
# (job, tier, state, submit, start, end, gpus, nodelist)
def accounted_runs(env, tiers):
    out = run(["sacct", "-a", "-X", "-n", "-P", "-D", "-o",
               "JobID,Submit,Start,End,ReqTRES,AllocTRES,State,NodeList"], env).stdout
    runs = []
    for line in out.splitlines():
        job_id, submit, start, end, req, alloc, state, nodes = line.split("|")
        job = int(job_id.split("_")[0])
        if job not in tiers or "Unknown" in (start, end) or "None" in (start, end):
            continue
        s, b, e = (round(datetime.fromisoformat(x).timestamp()) for x in (submit, start, end))
        runs.append((job, tiers[job], state.split()[0], s, b, e,
                     gpu_count(alloc) or gpu_count(req), nodes))
    return runs


def write_runs(path, runs):
    with open(path, "w") as dump:
        for r in runs:
            dump.write(" ".join(str(x) for x in r) + "\n")


def read_runs(path):
    with open(path) as dump:
        return [(int(j), tier, state, int(s), int(b), int(e), int(g), nodes)
                for j, tier, state, s, b, e, g, nodes in (line.split() for line in dump)]


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


def figures(runs):
    """The figures of one mode in one run, from its accounted runs."""
    spans = [(s, b, e, g, hostnames(n)) for _, _, _, s, b, e, g, n in runs]
    strict, placeable = utilisation(spans)
    waits, within = waits_by_tier(runs)
    out = {"utilisation": strict, "placeable": placeable,
           "span_s": max(r[2] for r in spans) - min(r[0] for r in spans),
           "preempted_runs": sum(1 for r in runs if r[2] in ("PREEMPTED", "REQUEUED")),
           "lost": lost_share(runs)}
    for tier, _, _ in TIERS:
        out[f"{tier}_p50"], out[f"{tier}_p90"] = percentile(waits[tier], 50), \
            percentile(waits[tier], 90)
        out[f"{tier}_quota_p50"], out[f"{tier}_quota_p90"] = percentile(within[tier], 50), \
            percentile(within[tier], 90)
        out[f"{tier}_quota_jobs"] = len(within[tier])
    return out


def lost_share(runs):
    """Of the GPU-seconds the runs held (busy in the utilisation figures), the share held by runs
    that were preempted: GPUs that ran work that was then lost."""
    held = {True: 0, False: 0}
    for _, _, state, _, b, e, gpus, _ in runs:
        held[state in ("PREEMPTED", "REQUEUED")] += (e - b) * gpus
    total = held[True] + held[False]
    return held[True] / total if total else 0.0


def waits_by_tier(runs):
    """Per tier: each completed job's wait, from its first submission to the start of the run
    that completed (a preempted run and its requeue count as waiting); and the same for the jobs
    within their share's quota when submitted: the share's GPUs running then, plus those of its
    jobs submitted before and still waiting, plus the job's own, at most the share's quota. The
    same rule reads both modes' runs."""
    first_submit, final_start = {}, {}
    for job, _, state, s, b, _, _, _ in runs:
        first_submit[job] = min(s, first_submit.get(job, s))
        if state == "COMPLETED":
            final_start[job] = b
    waits = {tier: [] for tier, _, _ in TIERS}
    within = {tier: [] for tier, _, _ in TIERS}
    for job, tier, state, _, b, _, gpus, _ in runs:
        if state != "COMPLETED":
            continue
        wait = b - first_submit[job]
        waits[tier].append(wait)
        if share_demand_at_submit(runs, job, tier, first_submit, final_start) + gpus <= \
                QUOTA_GPUS[tier]:
            within[tier].append(wait)
    return waits, within


def share_demand_at_submit(runs, job, tier, first_submit, final_start):
    """GPUs of `tier`'s other jobs running or waiting ahead of `job` when it was submitted."""
    t = first_submit[job]
    running = sum(r[6] for r in runs if r[1] == tier and r[0] != job and r[4] <= t < r[5])
    ahead = {r[0]: r[6] for r in runs if r[1] == tier and r[0] != job and
             (first_submit[r[0]], r[0]) < (t, job) and final_start.get(r[0], t + 1) > t and
             not any(x[0] == r[0] and x[4] <= t < x[5] for x in runs)}
    return running + sum(ahead.values())


def utilisation(runs):
    """GPU-seconds used over GPU-seconds the work could have used, second by second, two ways.
    runs: (submit, start, end, gpus, nodes). strict: the family could use min(capacity, GPUs
    running + GPUs asked for by waiting jobs). placeable: only what the waiting jobs could have
    taken where GPUs were free, each on one node (largest first, best fit): GPUs idle on a node
    that no waiting job fits (4 free here, 4 there, and 8-GPU jobs waiting) do not count.
    strict <= placeable; the gap is fragmentation."""
    used = fillable = placeable = 0
    for _, running, waiting in seconds(runs):
        busy = min(sum(r[3] for r in running), CAPACITY_GPUS)
        used += busy
        fillable += min(CAPACITY_GPUS, busy + sum(r[3] for r in waiting))
        placeable += busy + min(CAPACITY_GPUS - busy,
                                fits(free_gpus(running), waiting))
    return (used / fillable if fillable else 0.0, used / placeable if placeable else 0.0)


def seconds(runs):
    """(t, running runs, waiting runs) for each second of the workload."""
    first = int(min(r[0] for r in runs))
    last = int(max(r[2] for r in runs)) + 1
    for t in range(first, last):
        yield (t, [r for r in runs if r[1] <= t < r[2]], [r for r in runs if r[0] <= t < r[1]])


def free_gpus(running):
    free = {node: GPUS_PER_NODE for node in FAMILY_NODES}
    for _, _, _, gpus, nodes, *_ in running:
        for node in nodes:
            free[node] = free.get(node, 0) - gpus // max(1, len(nodes))
    return free


def fits(free, waiting):
    """GPUs of the waiting runs that fit into the nodes' free GPUs (fitting_jobs)."""
    return sum(r[3] for r in fitting_jobs(free, waiting))


def idle_breakdown(runs, queue):
    """Where a mode's idle GPU-seconds went (strict measure), as shares of what the work could
    have used: fragmentation (no waiting job fits where GPUs are free), and, for idle GPUs some
    waiting job could take, by that job's state: submitted under batch_sched_delay ago, a
    requeued victim in its BeginTime, or a job Slurm had not started yet (waiting for a pass).
    queue: {(second, job): reason} from the .queue dump; jobs it does not name count as waiting
    for a pass."""
    first_submit = {}
    for job, _, _, s, _, _, _, _ in runs:
        first_submit[job] = min(s, first_submit.get(job, s))
    spans = [(s, b, e, g, hostnames(n), job) for job, _, _, s, b, e, g, n in runs]
    out = {"fragmentation": 0, "just submitted": 0, "victim in BeginTime": 0,
           "waiting for a pass": 0}
    fillable = 0
    for t, running, waiting in seconds(spans):
        busy = min(sum(r[3] for r in running), CAPACITY_GPUS)
        could = min(CAPACITY_GPUS, busy + sum(r[3] for r in waiting))
        fillable += could
        free = free_gpus(running)
        fitting = fitting_jobs(free, waiting)
        room = min(CAPACITY_GPUS - busy, sum(r[3] for r in fitting))
        out["fragmentation"] += could - busy - room
        for r in fitting:
            take = min(r[3], room)
            if take <= 0:
                break
            room -= take
            if queue.get((t, r[5]), "").startswith("BeginTime") or (
                    not queue and r[0] > first_submit[r[5]]):
                out["victim in BeginTime"] += take
            elif t - r[0] < BATCH_SCHED_DELAY_S:
                out["just submitted"] += take
            else:
                out["waiting for a pass"] += take
    return {k: v / fillable if fillable else 0.0 for k, v in out.items()}


def fitting_jobs(free, waiting):
    """The waiting runs (tuples whose [3] is their GPUs) that fit into the nodes' free GPUs,
    largest first, each on the fullest node it fits (best fit), in that order."""
    free = sorted(f for f in free.values() if f > 0)
    out = []
    for r in sorted(waiting, key=lambda r: -r[3]):
        node = next((i for i, f in enumerate(free) if f >= r[3]), None)
        if node is not None:
            free[node] -= r[3]
            out.append(r)
            free.sort()
    return out


def read_queue(path):
    """{(second, job): reason} from a .queue dump ({} when there is none)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            t, job, _, reason = (line.rstrip("\n").split(" ", 3) + [""])[:4]
            out[(int(float(t)), int(job))] = reason
    return out


COLUMNS = [("utilisation", "GPU util (strict)", "pct"), ("placeable", "placeable", "pct"),
           ("span_s", "span (s)", "s")] + [
    (f"{t}_{k}", f"{t} {k.replace('quota_', 'within quota ').replace('p', 'P')}", "s")
    for t, _, _ in TIERS for k in ("p50", "p90", "quota_p50", "quota_p90")] + [
    ("preempted_runs", "preempted runs", "n"), ("lost", "busy GPU time lost", "pct")]


def fmt(value, kind):
    if value != value:  # nan
        return "-"
    if kind == "pts":  # a difference of two percentages, in points
        return f"{100 * value:+.1f}"
    return f"{value:.1%}" if kind == "pct" else f"{value:.0f}"


def spread(values, kind):
    """'median [min-max]' of the values ('-' when there are none)."""
    if not values:
        return "-"
    return (f"{fmt(statistics.median(values), kind)} "
            f"[{fmt(min(values), kind)}, {fmt(max(values), kind)}]")


def report(per_run, modes, markdown=False):
    """Median [min-max] of each figure per mode over the runs; with both modes, the same of the
    paired differences (shareq - stock in the same run: what the machine's state that run did to
    both cancels out); and how many runs shareq led."""
    paired = {"stock", "shareq"} <= set(modes)
    heads = [f"{m}: median [range]" for m in modes] + (["shareq - stock, paired"] if paired else [])
    if markdown:
        print("| figure | " + " | ".join(heads) + " |")
        print("|---|" + "---|" * len(heads))
    else:
        print(f"{'figure':<26}" + "".join(f"{h:>28}" for h in heads))
    for key, label, kind in COLUMNS:
        cells = []
        for mode in modes:
            cells.append(spread([r[mode][key] for r in per_run
                                 if mode in r and r[mode][key] == r[mode][key]], kind))
        if paired:
            diffs = paired_differences(per_run, key)
            cells.append(spread(diffs, "pts" if kind == "pct" else kind))
        if markdown:
            print(f"| {label} | " + " | ".join(cells) + " |")
        else:
            print(f"{label:<26}" + "".join(f"{cell:>28}" for cell in cells))
    if {"stock", "shareq"} <= set(modes):
        diffs = paired_differences(per_run, "utilisation")
        lead = sum(1 for d in diffs if d >= 0)
        print(f"\nshareq's strict utilisation at least stock's in {lead} of {len(diffs)} runs")
        for key, label, kind, higher_is_better in TARGETS:
            diffs = paired_differences(per_run, key)
            if len(diffs) >= 2:
                low, high = median_interval(diffs)
                unit = "points" if kind == "pts" else kind
                print(f"paired median of {label} {signed(statistics.median(diffs), kind)} {unit}, "
                      f"95% interval [{signed(low, kind)}, {signed(high, kind)}] (bootstrap over "
                      f"the {len(diffs)} runs): {interval_verdict(low, high, higher_is_better)}")


# The figures issue 19 holds shareq to against stock: strict utilisation at least stock's,
# production's P90 no longer, and every share's jobs within its quota waiting less (P90).
TARGETS = [("utilisation", "strict utilisation", "pts", True),
           ("production_p90", "production's P90 wait", "s", False)] + [
    (f"{t}_quota_p90", f"{t}'s within-quota P90 wait", "s", False) for t, _, _ in TIERS]


def signed(value, kind):
    """A paired difference with its sign: points as fmt() gives them ('+1.3'), seconds ('-6')."""
    return fmt(value, kind) if kind == "pts" else f"{value:+.0f}"


def paired_differences(per_run, key):
    """shareq - stock of one figure, run by run, over the runs where both modes have it."""
    return [r["shareq"][key] - r["stock"][key] for r in per_run
            if "shareq" in r and "stock" in r and
            r["shareq"][key] == r["shareq"][key] and r["stock"][key] == r["stock"][key]]


def interval_verdict(low, high, higher_is_better=True):
    """What a 95% interval of the paired median (shareq - stock) says about which mode leads:
    for utilisation the higher leads, for a wait the shorter."""
    if low > 0 or high < 0:
        return "shareq leads" if (low > 0) == higher_is_better else "stock leads"
    return "the interval holds 0, the leader is not settled"


def median_interval(values, draws=10000, level=0.95):
    """The bootstrap percentile interval of the median of `values`: the runs drawn again with
    replacement, `draws` times, from a fixed seed so that a report is the same each time. With
    the cluster's run-to-run noise (one run of a seed moves by 1-2 points) it says how far a
    median of this many runs can be trusted."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(values, k=len(values)))
                     for _ in range(draws))
    tail = int(draws * (1 - level) / 2)
    return medians[tail], medians[draws - 1 - tail]


def run_pair(index, seed, opts, modes, dump_root):
    jobs = workload(opts.scale, opts.time_scale, seed)
    dump_dir = None
    if dump_root:
        dump_dir = os.path.join(dump_root, f"run{index}")
        os.makedirs(dump_dir, exist_ok=True)
        with open(os.path.join(dump_dir, "run.json"), "w") as f:
            json.dump({"seed": seed, "time_scale": opts.time_scale, "scale": opts.scale,
                       "reclaim_after": opts.reclaim_after, "conf_lines": opts.conf_line,
                       "quotas": QUOTA_GPUS, "borrow_weights": BORROW_WEIGHTS, "modes": modes,
                       "parallel": opts.parallel,
                       "shareq_sched_params": opts.shareq_sched_params}, f)
    results = {}
    order = modes if index % 2 == 0 else list(reversed(modes))
    if opts.parallel:
        clusters = [Cluster(m, opts.shareq_sched_params, opts.reclaim_after, opts.slot,
                            opts.conf_line) for m in order]
        together = threading.Barrier(len(clusters))
        run_clusters_at_once(clusters,
                             lambda c: play_or_say_why(c, jobs, dump_dir, results, together))
    else:
        for mode in order:
            with Cluster(mode, opts.shareq_sched_params, opts.reclaim_after, opts.slot,
                         opts.conf_line) as c:
                play(c, jobs, dump_dir, results)
    missing = [f"{m} ({results.get(m + ' failed', 'no result')})" for m in modes
               if m not in results]
    if missing:
        sys.exit(f"run {index}: no result for {', '.join(missing)}")
    return {mode: figures(results[mode]) for mode in modes}


def simulated_jobs(scale, time_scale, seed):
    """The run's job list as sim_crosscheck.py replays it: {job id: (tier, submit s, run time s,
    GPUs)}, each submission rounded to the second."""
    return {k + 1: (tier, round(offset), runtime, gpus) for k, (offset, tier, _, _, gpus, runtime)
            in enumerate(workload(scale, time_scale, seed))}


def simulate_mode(tool, conf_dir, sim_dir, mode, jobs, made, sched_params=None):
    """One mode's replay of `jobs` in shareq sim (shareq, or --baseline stock), with the mode's
    slurm.conf and the benchmark's shareq.conf as sim_crosscheck.configs(conf_dir) gives them:
    (the mode's JSON figures, its runs in this module's form)."""
    import sim_crosscheck as X  # it imports this module
    slurm_conf, shareq_text = X.configs(conf_dir, mode, made)
    sim_opts = argparse.Namespace(sched_params=sched_params, sched_interval=None,
                                  submit_delay=None, verbose=False)
    sim, rows = X.simulate(tool, sim_dir, mode, slurm_conf, shareq_text, jobs, sim_opts,
                           stock=(mode == "stock"))
    return sim, X.sim_runs(rows, jobs, 0)


def simulate_pair(index, seed, opts, modes, sim_root):
    """run_pair's figures from `shareq sim` instead of the clusters: the run's job list (each
    submission rounded to the second) under shareq and under the simulator's model of the stock
    plugins (--baseline stock), each with its mode's slurm.conf and the benchmark's shareq.conf.
    Seconds instead of minutes, and no machine noise: the simulator leaves out some of Slurm's
    delays (docs/benchmarks.md, "Simulator against the cluster"), so it is a guide to what to
    measure on the cluster, not the evidence."""
    made = {"reclaim_after": opts.reclaim_after, "conf_lines": opts.conf_line,
            "quotas": QUOTA_GPUS, "borrow_weights": BORROW_WEIGHTS}
    jobs = simulated_jobs(opts.scale, opts.time_scale, seed)
    out = {}
    for mode in modes:
        sim, runs = simulate_mode(opts.tool, sim_root, os.path.join(sim_root, f"run{index}"), mode,
                                  jobs, made, opts.shareq_sched_params if mode == "shareq" else None)
        out[mode] = figures(runs)
        # The jobs CSV has each job's completed run only; the simulator's meter also counts the
        # GPUs a run held before it was preempted as busy, as the cluster's accounting does.
        family = next(f for f in sim["families"] if f["family"] == "p5")
        out[mode].update(utilisation=family["strict"], placeable=family["placeable"],
                         preempted_runs=family["preempted_runs"],
                         lost=family["lost_gpu_hours"] / family["used_gpu_hours"]
                         if family["used_gpu_hours"] else 0.0)
    return out


def from_dumps(root, modes, explain):
    """The per-run figures again from a --dump-dir tree (run*/utilisation-MODE.runs), or from a
    single run's files directly in root (the benchmark's first form)."""
    dirs = sorted((os.path.join(root, d) for d in os.listdir(root) if d.startswith("run")
                   and os.path.isdir(os.path.join(root, d))),
                  key=lambda d: int(re.sub(r"\D", "", os.path.basename(d)) or 0)) or [root]
    per_run = []
    for d in dirs:
        runs = {m: os.path.join(d, f"utilisation-{m}.runs") for m in modes}
        runs = {m: read_runs(p) for m, p in runs.items() if os.path.exists(p)}
        if not runs:
            continue
        meta = os.path.join(d, "run.json")
        if os.path.exists(meta):
            with open(meta) as f:
                use_quotas(json.load(f))
        per_run.append({m: figures(r) for m, r in runs.items()})
        if explain:
            print(f"{os.path.basename(d)}: idle GPU time, share of what the work could use")
            for m, r in runs.items():
                parts = idle_breakdown(r, read_queue(os.path.join(d, f"utilisation-{m}.queue")))
                print(f"  {m:<7} " + ", ".join(f"{k} {v:.1%}" for k, v in parts.items()))
    return per_run


def parse_quotas(text):
    """--quotas: SHARE=GPUS,... over the benchmark's shares; the quotas it leaves to the defaults
    filled in. argparse turns the ValueError into an error that names the option."""
    quotas = dict(DEFAULT_QUOTA_GPUS)
    for item in text.split(","):
        share, _, gpus = item.partition("=")
        if share.strip() not in quotas or not gpus.strip().isdigit():
            raise argparse.ArgumentTypeError(
                f"{item!r}: SHARE=GPUS, SHARE one of {', '.join(quotas)}, GPUS a whole number")
        quotas[share.strip()] = int(gpus)
    if sum(quotas.values()) > CAPACITY_GPUS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the quotas add up to {sum(quotas.values())} GPUs, more than family p5's "
            f"{CAPACITY_GPUS}")
    return quotas


def parse_borrow_weights(text):
    """--borrow-weights: SHARE=WEIGHT,... over the benchmark's shares (shareq.conf's BorrowWeight);
    argparse turns the ValueError into an error that names the option. The weights themselves are
    shareq.conf's to judge: main() runs `shareq check-config` on the configuration they make."""
    weights = {}
    for item in text.split(","):
        share, _, weight = item.partition("=")
        share, weight = share.strip(), weight.strip()
        if share not in DEFAULT_QUOTA_GPUS or not re.fullmatch(r"[^\s=,]+", weight):
            raise argparse.ArgumentTypeError(
                f"{item!r}: SHARE=WEIGHT, SHARE one of {', '.join(DEFAULT_QUOTA_GPUS)}, WEIGHT "
                "shareq.conf's BorrowWeight (0.001 to 1000, at most 3 decimals)")
        weights[share] = weight
    return weights


def check_shareq_conf(parser, opts, option, given):
    """The benchmark's shareq.conf with what `option` added (`given`, for the message) must pass
    `shareq check-config`, or a run would measure a controller that refused its configuration."""
    tool = opts.tool
    if not os.path.exists(tool):
        parser.error(f"{option}: {tool} is missing: build shareq first (or name it with --tool)")
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as conf:
        conf.write(shareq_conf(opts.reclaim_after))
        conf.write("".join(line + "\n" for line in opts.conf_line))
        conf.flush()
        out = run([tool, "check-config", conf.name], dict(os.environ), check=False)
    if out.returncode != 0:
        parser.error(f"{option}: {given}: shareq.conf refuses it:\n{out.stderr.strip()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int,
                        help="paired runs (each mode once per run; default 5, with --simulate "
                        "200: the simulator replays a run in milliseconds)")
    parser.add_argument("--seed", type=int, default=7,
                        help="run K draws its job list with seed SEED + K (default 7)")
    parser.add_argument("--scale", type=float, default=1.0, help="jobs per burst = 8 x scale")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="stretch submission and run times by this factor (default 1: jobs"
                        " of 6-14 s); Slurm's own delays (batch_sched_delay, bf_interval, a"
                        " requeued job's BeginTime) stay as they are")
    parser.add_argument("--parallel", action="store_true",
                        help="run the modes of a run at the same time on two private clusters")
    parser.add_argument("--slot", type=int, default=0, choices=range(0, 16),
                        help="run on the clusters of slot K (ports 16900 + 100 K...), so that"
                        " several benchmarks can run at once (default 0)")
    parser.add_argument("--shareq-sched-params", default="",
                        help="SchedulerParameters put first in shareq mode, e.g. "
                        "partition_job_depth=0 (Slurm reads the first occurrence)")
    parser.add_argument("--reclaim-after", type=int, default=RECLAIM_AFTER_S,
                        help="shareq.conf's ReclaimAfter in shareq mode (default %(default)s: what"
                        " a reclaim costs its victim on the test cluster)")
    parser.add_argument("--conf-line", action="append", default=[], metavar="KEY=VALUE",
                        help="a line added to the benchmark's shareq.conf, e.g. PreemptGraceTime=5"
                        " (repeatable)")
    parser.add_argument("--quotas", type=parse_quotas, metavar="SHARE=GPUS,...",
                        help="the shares' quotas in p5 instead of production=12,research=10,"
                        "hpo=10, e.g. production=16,research=8,hpo=8 (a share not named keeps "
                        "its own; in all at most the family's 32 GPUs)")
    parser.add_argument("--borrow-weights", type=parse_borrow_weights, metavar="SHARE=WEIGHT,...",
                        help="the shares' BorrowWeight in p5 (shareq mode; default none, i.e. 1),"
                        " e.g. production=10")
    parser.add_argument("--modes", default="stock,shareq", help="comma-separated: stock, shareq")
    parser.add_argument("--dump-dir", help="write each run's jobs (job, tier, state, submit, "
                        "start, end, GPUs, nodes) to DIR/runK/utilisation-MODE.runs and the "
                        "pending queue, once a second (time, job, priority, reason), to "
                        "DIR/runK/utilisation-MODE.queue, and the cluster's slurm.conf and "
                        "shareq.conf to DIR/runK/utilisation-MODE.{slurm,shareq}.conf "
                        "(bench/cluster/sim_crosscheck.py replays them in shareq sim)")
    parser.add_argument("--simulate", action="store_true",
                        help="run no cluster: replay the same runs in shareq sim, shareq against "
                        "its model of the stock plugins (--baseline stock), in seconds")
    parser.add_argument("--tool", default=str(REPO / "build" / "tools" / "shareq"),
                        help="the shareq tool that --simulate runs and that checks what --conf-line "
                             "and --borrow-weights add to shareq.conf (default "
                             "build/tools/shareq)")
    parser.add_argument("--from-dumps", metavar="DIR",
                        help="run nothing: print the table again from a --dump-dir tree")
    parser.add_argument("--markdown", action="store_true",
                        help="print the table as Markdown (for docs/benchmarks.md)")
    parser.add_argument("--explain", action="store_true",
                        help="with --from-dumps: where each run's idle GPU time went")
    opts = parser.parse_args()
    if opts.runs is None:
        opts.runs = 200 if opts.simulate else 5
    modes = opts.modes.split(",")
    if not modes or not set(modes) <= {"stock", "shareq"} or len(set(modes)) != len(modes):
        parser.error(f"--modes: {opts.modes!r}: a comma-separated list of stock, shareq")
    for name, value in (("--scale", opts.scale), ("--time-scale", opts.time_scale),
                        ("--runs", opts.runs)):
        if not value > 0:
            parser.error(f"{name}: {value}: must be a number above 0")
    if opts.reclaim_after < 0:
        parser.error(f"--reclaim-after: {opts.reclaim_after}: must be 0 or more seconds")
    if opts.quotas and opts.from_dumps:
        parser.error("--quotas: not with --from-dumps (each run's run.json has its quotas)")
    QUOTA_GPUS.update(opts.quotas or {})
    if opts.borrow_weights and opts.from_dumps:
        parser.error("--borrow-weights: not with --from-dumps (each run's run.json has them)")
    BORROW_WEIGHTS.update(opts.borrow_weights or {})
    if opts.borrow_weights:
        check_shareq_conf(parser, opts, "--borrow-weights",
                          ",".join(f"{k}={v}" for k, v in opts.borrow_weights.items()))
    if opts.conf_line and not opts.from_dumps:
        check_shareq_conf(parser, opts, "--conf-line", " ".join(opts.conf_line))
    if opts.explain and not opts.from_dumps:
        parser.error("--explain: only with --from-dumps DIR")
    if opts.simulate and (opts.from_dumps or opts.parallel):
        parser.error("--simulate: runs no cluster; not with --from-dumps or --parallel")
    if opts.dump_dir:
        try:
            os.makedirs(opts.dump_dir, exist_ok=True)
        except OSError as e:
            parser.error(f"--dump-dir: {opts.dump_dir}: cannot create it: {e.strerror}")
    if opts.from_dumps:
        if not os.path.isdir(opts.from_dumps):
            parser.error(f"--from-dumps: {opts.from_dumps}: no such directory")
        per_run = from_dumps(opts.from_dumps, modes, opts.explain)
        if not per_run:
            parser.error(f"--from-dumps: no utilisation-MODE.runs for {opts.modes} in "
                         f"{opts.from_dumps}")
    elif opts.simulate:
        if not os.access(opts.tool, os.X_OK):
            parser.error(f"--tool: {opts.tool} is missing: build the shareq tool first")
        with tempfile.TemporaryDirectory() as sim_root:
            per_run = [simulate_pair(k, opts.seed + k, opts, modes, opts.dump_dir or sim_root)
                       for k in range(opts.runs)]
    else:
        per_run = []
        for k in range(opts.runs):
            per_run.append(run_pair(k, opts.seed + k, opts, modes, opts.dump_dir))
            print(f"run {k} (seed {opts.seed + k}): " + "; ".join(
                f"{m} {r['utilisation']:.1%} strict, production P90 {fmt(r['production_p90'], 's')} s"
                for m, r in per_run[-1].items()), flush=True)
    if opts.from_dumps:  # the heading as the runs were made
        meta = os.path.join(opts.from_dumps, "run0", "run.json")
        if os.path.exists(meta):
            with open(meta) as f:
                made = json.load(f)
            opts.scale, opts.time_scale, opts.seed = made["scale"], made["time_scale"], made["seed"]
    jobs = workload(opts.scale, opts.time_scale, opts.seed)
    print(f"\n{len(jobs)} GPU jobs a run on family p5 (32 GPUs), bursts from three shares, "
          f"time scale {opts.time_scale:g} (jobs of {min(j[5] for j in jobs)}-"
          f"{max(j[5] for j in jobs)} s), {len(per_run)} run(s); waits in seconds\n")
    report(per_run, modes, opts.markdown)


if __name__ == "__main__":
    main()
