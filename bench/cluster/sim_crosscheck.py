#!/usr/bin/python3
"""The what-if simulator against the cluster: utilisation.py's runs replayed in `shareq sim`.

Takes a `bench/cluster/utilisation.py --dump-dir DIR` tree and, for each run in it, writes what
`shareq sim` reads (DIR/runK/sim/): the cluster's slurm.conf (with its SchedulerParameters: the
simulator runs Slurm's main and backfill passes from them) and shareq.conf as the run used them
(the copies utilisation.py saved beside the dumps, else regenerated as tests/cluster/lib/config.sh
and utilisation.py write them), and the run's jobs as an `sacct --parsable2` trace: one line per
job, its first submission, the elapsed time of the run that completed, its GPUs, Account = its
share and AdminComment priority=N (its --share-priority). It then runs

    shareq sim --slurm-conf ... --config ... --trace ... --json --jobs-csv ...

on the shareq run's trace, and (with the stock mode in the dump) `--baseline stock` on the stock
run's trace (the simulator's model of Slurm's stock plugins: submission order, cons_tres's first
fit, Slurm's passes), and sets the figures side by side, for each mode:

- family p5's strict and placeable GPU utilisation, the cluster's as utilisation.py computes
  them from the dump, the simulator's as its meter gives them (and, as a check on the two
  measures, utilisation.py's functions applied to the simulator's --jobs-csv);
- per share: its strict utilisation (the share's GPUs busy over what its running and waiting work
  could use, the simulator's definition, computed for both), and the order of its jobs' starts
  (the run that completed): the Kendall distance (pairs started in one order on the cluster and
  the other in the simulator; pairs started in the same second on either side count as neither)
  and the first position where the two orders differ.

With --against DIR2, a second dump of the same runs (utilisation.py with the same --seed,
--time-scale and --runs), it also sets the cluster against itself: per run and share, the Kendall
distance between the two cluster runs of the same job list, the order a cluster keeps from one run
to the next, beside the simulator's distance from the first. The summary gives, per share, the
share of discordant pairs (distance / pairs) of both, median [range] over the runs.

The summary ends with how far the simulator overstates shareq's lead over stock: per run, shareq's
sim - cluster less stock's, its median and that median's 95% bootstrap interval.

Figures only, never an assertion: the simulator's model (docs/benchmarks.md, "Simulator against
the cluster") leaves out some of Slurm's delays.

Usage: bench/cluster/sim_crosscheck.py DIR [--tool build/tools/shareq] [--runtime recorded]
           [--sched-params LIST] [--sched-interval S] [--submit-delay S] [--against DIR2]
           [--markdown] [--verbose]
"""

import argparse
import csv
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
from datetime import datetime, timezone

from bench_cluster import REPO
import utilisation as U

SLURM_NODES = ["p4n1", "p4n2", "p4n3", "p4n4", "p5n1", "p5n2", "p5n3", "p5n4"]
# What `shareq sim` reads of tests/cluster/lib/config.sh's slurm.conf: its nodes and partitions,
# its scheduling cadence (utilisation.py's SCHED_PARAMS; config.sh adds the README's
# bf_min_prio_reserve and partition_job_depth in shareq mode), a requeued job's 11 s, and
# priority/multifactor's settings, which the stock model orders by (shareq ignores them).
SLURM_CONF = "".join(f"NodeName={n} CPUs=16 RealMemory=64000 Gres=gpu:{U.GPUS_PER_NODE}\n"
                     for n in SLURM_NODES) + \
    "PartitionName=p4 Nodes=p4n[1-4] Default=YES MaxTime=INFINITE State=UP\n" \
    "PartitionName=p5 Nodes=p5n[1-4] MaxTime=INFINITE State=UP\n" \
    "SchedulerType=sched/backfill\n" \
    "AuthInfo=cred_expire=10\n" \
    "PriorityDecayHalfLife=1-0\nPriorityWeightFairshare=10000\nPriorityWeightAge=1000\n"


def cluster_shareq_sched_params():
    """What tests/cluster/lib/config.sh adds to SchedulerParameters in shareq mode (the README's
    bf_min_prio_reserve and partition_job_depth), read from there so that the two cannot differ."""
    text = (REPO / "tests" / "cluster" / "lib" / "config.sh").read_text()
    found = re.search(r'sched_params\+=",(bf_min_prio_reserve=\d+,partition_job_depth=\d+)', text)
    if not found:
        sys.exit("tests/cluster/lib/config.sh: no bf_min_prio_reserve=N,partition_job_depth=N line")
    return found.group(1)


SHAREQ_SCHED_PARAMS = cluster_shareq_sched_params()
SHARE_OF_TIER = {tier: share for tier, share, _ in U.TIERS}
PRIORITY_OF_TIER = {tier: prio for tier, _, prio in U.TIERS}


def run_dirs(root):
    dirs = sorted((os.path.join(root, d) for d in os.listdir(root)
                   if d.startswith("run") and os.path.isdir(os.path.join(root, d))),
                  key=lambda d: int(re.sub(r"\D", "", os.path.basename(d)) or 0))
    return dirs or [root]


def configs(run_dir, mode, made):
    """(slurm.conf text of `mode`'s cluster, shareq.conf text of the shareq cluster) as the run
    had them."""
    slurm_saved = os.path.join(run_dir, f"utilisation-{mode}.slurm.conf")
    shareq_saved = os.path.join(run_dir, "utilisation-shareq.shareq.conf")
    if os.path.exists(slurm_saved):
        slurm_conf = open(slurm_saved).read()
    else:
        params = [SHAREQ_SCHED_PARAMS] if mode == "shareq" else []
        slurm_conf = SLURM_CONF + "SchedulerParameters=" + ",".join(
            [U.SCHED_PARAMS] + params + ["preempt_send_user_signal"]) + "\n"
    if os.path.exists(shareq_saved):
        return slurm_conf, open(shareq_saved).read()
    shareq_conf = U.shareq_conf(made.get("reclaim_after", U.RECLAIM_AFTER_S),
                                made.get("quotas") or U.DEFAULT_QUOTA_GPUS,
                                made.get("borrow_weights") or {})
    shareq_conf += "".join(line + "\n" for line in made.get("conf_lines") or [])
    return slurm_conf, shareq_conf


def iso(epoch):
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def jobs_of(runs, runtime, made):
    """{job: (tier, first submit, run time, GPUs)} from a mode's accounted runs. runtime
    'recorded': the completed run's End - Start (what an sacct trace gives); 'requested': the
    sleep the benchmark asked for (utilisation.workload() with the run's seed)."""
    first_submit, elapsed, info = {}, {}, {}
    for job, tier, state, s, b, e, g, _ in runs:
        first_submit[job] = min(s, first_submit.get(job, s))
        info[job] = (tier, g)
        if state == "COMPLETED":
            elapsed[job] = e - b
    if runtime == "requested":
        asked = U.workload(made["scale"], made["time_scale"], made["seed"])
        for job, (_, _, _, _, _, sleep) in zip(sorted(info), asked):
            elapsed[job] = sleep
    return {job: (info[job][0], first_submit[job], elapsed[job], info[job][1])
            for job in sorted(info) if job in elapsed}


def write_trace(path, jobs):
    with open(path, "w") as out:
        out.write("JobID|Account|Partition|Submit|Elapsed|AllocTRES|State|AdminComment\n")
        for job, (tier, submit, run_s, gpus) in jobs.items():
            out.write(f"{job}|{SHARE_OF_TIER[tier]}|p5|{iso(submit)}|"
                      f"{run_s // 3600:02d}:{run_s % 3600 // 60:02d}:{run_s % 60:02d}|"
                      f"gres/gpu={gpus}|COMPLETED|priority={PRIORITY_OF_TIER[tier]}\n")


def simulate(tool, sim_dir, label, slurm_conf, shareq_conf, jobs, opts, stock):
    """(the sim's figures for the mode, its jobs CSV rows): shareq's run, or with `stock` the
    --baseline stock run."""
    os.makedirs(sim_dir, exist_ok=True)
    paths = {k: os.path.join(sim_dir, f"{label}.{k}")
             for k in ("slurm.conf", "shareq.conf", "sacct", "jobs.csv", "baseline.csv", "json")}
    with open(paths["slurm.conf"], "w") as f:
        f.write(slurm_conf)
    with open(paths["shareq.conf"], "w") as f:
        f.write(shareq_conf)
    write_trace(paths["sacct"], jobs)
    cmd = [tool, "sim", "--slurm-conf", paths["slurm.conf"], "--config", paths["shareq.conf"],
           "--trace", paths["sacct"], "--json", "--jobs-csv", paths["jobs.csv"]] + \
        (["--sched-params", opts.sched_params] if opts.sched_params else []) + \
        (["--sched-interval", str(opts.sched_interval)] if opts.sched_interval else []) + \
        (["--submit-delay", str(opts.submit_delay)] if opts.submit_delay is not None else []) + \
        (["--baseline", "stock", "--baseline-jobs-csv", paths["baseline.csv"]] if stock else [])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr}")
    with open(paths["json"], "w") as f:
        f.write(out.stdout)
    if opts.verbose:
        print("  " + " ".join(cmd), file=sys.stderr)
    result = json.loads(out.stdout)
    with open(paths["baseline.csv" if stock else "jobs.csv"]) as f:
        rows = list(csv.DictReader(f))
    return result["runs"][1 if stock else 0], rows


def sim_runs(rows, jobs, origin):
    """The simulator's jobs in utilisation.py's run form (its --jobs-csv gives each job's last
    run only: a preempted run it lost is missing here, but not from its meter)."""
    out = []
    for r in rows:
        job = int(r["id"])
        if int(r["start"]) < 0:
            continue
        tier, _, _, gpus = jobs[job]
        out.append((job, tier, "COMPLETED", origin + int(r["submit"]), origin + int(r["start"]),
                    origin + int(r["end"]), gpus, r["nodes"]))
    return out


def share_strict(runs):
    """{tier: GPUs busy / min(capacity, busy + waiting)} over the tier's own runs, second by
    second (the simulator's per-share strict figure)."""
    out = {}
    for tier, _, _ in U.TIERS:
        spans = [(s, b, e, g) for _, t, _, s, b, e, g, _ in runs if t == tier]
        if not spans:
            continue
        busy = could = 0
        for t in range(min(r[0] for r in spans), max(r[2] for r in spans) + 1):
            running = sum(r[3] for r in spans if r[1] <= t < r[2])
            waiting = sum(r[3] for r in spans if r[0] <= t < r[1])
            busy += running
            could += min(U.CAPACITY_GPUS, running + waiting)
        out[tier] = busy / could if could else 0.0
    return out


def final_starts(runs):
    """{job: start of the run that completed}."""
    return {job: b for job, _, state, _, b, _, _, _ in runs if state == "COMPLETED"}


def start_order(cluster_runs, simulated, tier):
    """(Kendall distance, comparable pairs, first divergence or None, jobs, Kendall distance
    among jobs of the same size) of `tier`'s starts: pairs the cluster started in one order and
    the simulator in the other (a tie on either side is neither order); the first divergence is
    the first position where the two orders, ties broken by job id, name different jobs."""
    c, s = final_starts(cluster_runs), final_starts(simulated)
    gpus = {r[0]: r[6] for r in cluster_runs}
    jobs = sorted(j for j in c if j in s and any(r[0] == j and r[1] == tier
                                                for r in cluster_runs))
    discordant = comparable = same_size = 0
    for a, b in itertools.combinations(jobs, 2):
        dc, ds = c[a] - c[b], s[a] - s[b]
        if dc == 0 or ds == 0:
            continue
        comparable += 1
        discordant += (dc > 0) != (ds > 0)
        same_size += (dc > 0) != (ds > 0) and gpus[a] == gpus[b]
    order_c = sorted(jobs, key=lambda j: (c[j], j))
    order_s = sorted(jobs, key=lambda j: (s[j], j))
    first = next((i for i, (x, y) in enumerate(zip(order_c, order_s)) if x != y), None)
    return discordant, comparable, first, len(jobs), same_size


def same_workload(made, other):
    """Whether two runs' run.json drew the same job list."""
    return all(made.get(k) == other.get(k) for k in ("seed", "time_scale", "scale"))


def cluster_again(run_dir, against, made):
    """{tier: start_order(first cluster run, second)} for the shareq runs of one job list in two
    dumps, or None when `against` has no such run."""
    other_dir = os.path.join(against, os.path.basename(run_dir))
    path, first = (os.path.join(other_dir, "utilisation-shareq.runs"),
                   os.path.join(run_dir, "utilisation-shareq.runs"))
    if not (os.path.exists(path) and os.path.exists(first)):
        return None
    with open(os.path.join(other_dir, "run.json")) as f:
        if not same_workload(made, json.load(f)):
            return None
    one, two = U.read_runs(first), U.read_runs(path)
    return {tier: start_order(one, two, tier) for tier, _, _ in U.TIERS}


def compare_run(run_dir, tool, opts):
    with open(os.path.join(run_dir, "run.json")) as f:
        made = json.load(f)
    U.use_quotas(made)  # the figures within quota read them
    rows_out = {}
    for mode in ("shareq", "stock"):
        path = os.path.join(run_dir, f"utilisation-{mode}.runs")
        if not os.path.exists(path):
            continue
        cluster = U.read_runs(path)
        jobs = jobs_of(cluster, opts.runtime, made)
        slurm_conf, shareq_conf = configs(run_dir, mode, made)
        origin = min(j[1] for j in jobs.values())
        sim, rows = simulate(tool, os.path.join(run_dir, "sim"), mode, slurm_conf,
                             shareq_conf, jobs, opts, stock=(mode == "stock"))
        fig_c = U.figures(cluster)
        p5 = next(f for f in sim["families"] if f["family"] == "p5")
        entry = {"cluster": (fig_c["utilisation"], fig_c["placeable"]),
                 "sim": (p5["strict"], p5["placeable"]), "span": (fig_c["span_s"],
                                                                 sim["span_s"]),
                 "preempted": (fig_c["preempted_runs"], p5["preempted_runs"])}
        simulated = sim_runs(rows, jobs, origin)
        fig_s = U.figures(simulated)
        entry["sim_csv"] = (fig_s["utilisation"], fig_s["placeable"])
        sc, ss = share_strict(cluster), share_strict(simulated)
        # The stock baseline has no shares: its per-share strict figure is from its CSV.
        sim_share = {s["share"].lower(): s["strict"] for s in sim["shares"]
                     if s["family"] == "p5"}
        entry["shares"] = {
            tier: {"cluster": sc.get(tier, 0.0), "sim": sim_share.get(share, ss.get(tier, 0.0)),
                   "sim_csv": ss.get(tier, 0.0),
                   "order": start_order(cluster, simulated, tier),
                   "waits": (fig_c[f"{tier}_p50"], fig_c[f"{tier}_p90"],
                             fig_s[f"{tier}_p50"], fig_s[f"{tier}_p90"])}
            for tier, share, _ in U.TIERS}
        if mode == "shareq":
            if opts.against:
                again = cluster_again(run_dir, opts.against, made)
                for tier in entry["shares"]:
                    entry["shares"][tier]["again"] = again[tier] if again else None
        rows_out[mode] = entry
    return rows_out


def pct(x):
    return f"{100 * x:.1f}%"


def pts(a, b):
    return f"{100 * (b - a):+.1f}"


def print_run(name, res, markdown):
    def line(cells):
        if markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print("  ".join(f"{c:<14}" if i == 0 else f"{c:>16}" for i, c in enumerate(cells)))

    print(f"\n{name}")
    if markdown:
        print()
    line(["figure", "cluster", "sim", "sim - cluster (pts)", "sim, from its CSV"])
    if markdown:
        print("|---|---|---|---|---|")
    for mode, r in res.items():
        label = mode
        for k, which in ((0, "strict"), (1, "placeable")):
            line([f"{label} {which}", pct(r["cluster"][k]), pct(r["sim"][k]),
                  pts(r["cluster"][k], r["sim"][k]),
                  pct(r["sim_csv"][k]) if "sim_csv" in r else "-"])
        line([f"{label} span (s)", str(r["span"][0]), str(r["span"][1]),
              f"{r['span'][1] - r['span'][0]:+d}", "-"])
        line([f"{label} preempted", str(r["preempted"][0]), str(r["preempted"][1]), "", "-"])
    for mode, r in res.items():
        print_shares(mode, r, line, markdown)


def print_shares(mode, r, line, markdown):
    if markdown:
        print()
    line([f"{mode}: share", "strict cluster", "strict sim", "sim - cluster (pts)",
          "start order: Kendall / pairs (same size), first divergence",
          "wait P50/P90 cluster", "sim", "cluster again: Kendall / pairs (same size)"])
    if markdown:
        print("|---|---|---|---|---|---|---|---|")
    for tier, s in r["shares"].items():
        d, n, first, count, same = s["order"]
        w = s["waits"]
        again = s.get("again")
        line([tier, pct(s["cluster"]), pct(s["sim"]), pts(s["cluster"], s["sim"]),
              f"{d} / {n} ({same}), " +
              ("same order" if first is None else f"at {first + 1} of {count}"),
              f"{w[0]:.0f} / {w[1]:.0f}", f"{w[2]:.0f} / {w[3]:.0f}",
              f"{again[0]} / {again[1]} ({again[4]})" if again else "-"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump_dir", help="a utilisation.py --dump-dir tree")
    parser.add_argument("--tool", default=str(REPO / "build" / "tools" / "shareq"),
                        help="the shareq tool (default build/tools/shareq)")
    parser.add_argument("--runtime", choices=["recorded", "requested"], default="recorded",
                        help="each job's run time: its completed run's End - Start as sacct "
                        "recorded it (default), or the sleep the benchmark asked for")
    parser.add_argument("--sched-params",
                        help="shareq sim --sched-params, over the cluster's SchedulerParameters "
                        "(e.g. partition_job_depth=0)")
    parser.add_argument("--sched-interval", type=int,
                        help="shareq sim --sched-interval (default: the cluster's slurm.conf, 5)")
    parser.add_argument("--submit-delay", type=int,
                        help="shareq sim --submit-delay (default: the cluster's slurm.conf, "
                        "batch_sched_delay 3, Slurm's default; 0: a pass at each submission)")
    parser.add_argument("--against", metavar="DIR2",
                        help="a second dump of the same runs: the cluster's order of starts "
                        "against its own from one run to the next, beside the simulator's")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="print the sim commands")
    opts = parser.parse_args()
    for directory, name in ((opts.dump_dir, "DIR"), (opts.against, "--against")):
        if directory is not None and not os.path.isdir(directory):
            parser.error(f"{name}: {directory}: no such directory")
    if not os.access(opts.tool, os.X_OK):
        parser.error(f"--tool: {opts.tool} is missing: build the shareq tool first")
    results = []
    for d in run_dirs(opts.dump_dir):
        if not os.path.exists(os.path.join(d, "run.json")):
            continue
        res = compare_run(d, opts.tool, opts)
        if res:
            results.append(res)
            print_run(os.path.basename(d), res, opts.markdown)
    if not results:
        parser.error(f"{opts.dump_dir}: no runK/utilisation-MODE.runs with a run.json")
    summary(results)


def summary(results):
    print("\nsummary over the runs (sim - cluster, points: median [range])")
    for mode in ("shareq", "stock"):
        rs = [r[mode] for r in results if mode in r]
        if rs:
            summarise_mode(mode, rs)
    excess_over_stock(results)


def excess_over_stock(results):
    """How far the simulator overstates shareq's lead over stock: run by run, shareq's
    sim - cluster less stock's, with its median's 95% interval. utilisation.py --simulate's
    paired median less this is what the cluster would measure, had the simulator run there."""
    both = [r for r in results if "shareq" in r and "stock" in r]
    excess = [(r["shareq"]["sim"][0] - r["shareq"]["cluster"][0]) -
              (r["stock"]["sim"][0] - r["stock"]["cluster"][0]) for r in both]
    if len(excess) >= 2:
        low, high = U.median_interval(excess)
        print(f"  the simulator's lead for shareq over stock less the cluster's (strict, run by "
              f"run): {U.signed(statistics.median(excess), 'pts')} points, 95% interval "
              f"[{U.signed(low, 'pts')}, {U.signed(high, 'pts')}] over {len(excess)} runs")


def summarise_mode(mode, rs):
    for k, which in ((0, "strict"), (1, "placeable")):
        diffs = [r["sim"][k] - r["cluster"][k] for r in rs]
        print(f"  {mode} {which}: {U.spread(diffs, 'pts')}")
    for tier, _, _ in U.TIERS:
        diffs = [r["shares"][tier]["sim"] - r["shares"][tier]["cluster"] for r in rs]
        orders = [r["shares"][tier]["order"] for r in rs]
        same = sum(1 for o in orders if o[2] is None)
        p90 = [r["shares"][tier]["waits"][3] - r["shares"][tier]["waits"][1] for r in rs]
        print(f"  {mode} {tier}: strict {U.spread(diffs, 'pts')}; P90 wait {U.spread(p90, 's')} s; "
              f"start order the same in {same} of "
              f"{len(orders)} runs; Kendall distance / pairs (of which jobs of one size) " +
              ", ".join(f"{o[0]}/{o[1]} ({o[4]})" for o in orders))
        again = [r["shares"][tier].get("again") for r in rs]
        if any(again):
            pairs = [(o, a) for o, a in zip(orders, again) if a and o[1] and a[1]]
            print(f"    discordant pairs, sim vs cluster: "
                  f"{U.spread([o[0] / o[1] for o, _ in pairs], 'pct')}; cluster vs the "
                  f"same runs again: {U.spread([a[0] / a[1] for _, a in pairs], 'pct')} "
                  f"({len(pairs)} runs in both dumps; the simulator as close as the cluster to "
                  f"itself in {sum(1 for o, a in pairs if o[0] / o[1] <= a[0] / a[1])})")


if __name__ == "__main__":
    main()
