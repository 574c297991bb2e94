#!/usr/bin/python3
"""A burst of 20,000 jobs (issue 17): accepted or refused by Slurm, none lost, slurmctld answering.

For each mode (stock: Slurm's stock plugins, jobs under the share's account; shareq: shareq's
plugins, jobs with --share/--share-priority) it starts a private test cluster with MaxJobCount
--max-job-count (default 9/10 of --jobs, so that the last submissions meet Slurm's own refusal),
creates --users users (burst01, burst02, ...; useradd when missing) in slurmdbd under the three
shares (prodexp1, prodexp2, research, split over the users), and submits --jobs jobs from
--submitters processes at once (default one per user), as fast as slurmctld takes them.

The submitters are tests/cluster/tools/burst_submit (built in BUILD_DIR/tests/cluster): it stands
for `sbatch` without the start of one process per job (sbatch reaches 11-20 jobs/s on a 2-core
machine), run as the job's user, each job going through slurm_submit_batch_job and so through
job_submit/shareq; in shareq mode each job's spank_job_env holds exactly what `sbatch
--share=S --share-priority=P` puts there. Jobs: `sleep 1-5` on p4 (one whole node) or p5
(--gres=gpu:1, 2, 4 or 8); prodexp1 submits to p4, research to p5, prodexp2 to both. With 8 nodes
most jobs are still pending when the burst ends.

During the burst two probes (user alice) run `squeue` and `sbatch -p p4 --wrap true` (real
processes), each every --probe-interval s (or as soon as the last returned when it took longer),
and record how long each took. A probe sbatch that meets MaxJobCount would sleep and retry
(sbatch does up to 15 times): it is stopped at its first "sleeping and retrying" and counted
apart, its time to that refusal kept.

Printed per mode, side by side: jobs accepted, refused (by Slurm's message) and lost (accepted
ids found neither in `squeue -t all` nor in sacct), the burst's duration and submit rate, the
submitters' own call latency, the probes' P50/P99/max, slurmctld's VmRSS before and after the
burst (after: once slurmdbd has caught up, the DBD agent queue empty, waited for up to 120 s),
and shareq's memory per pending job = ((shareq after - before) - (stock after - before))
/ shareq's pending jobs. Figures only; nothing is asserted.

Usage: bench/cluster/burst.py [--jobs 20000] [--users 10] [--submitters 10] [--modes stock,shareq]
           [--max-job-count N*9/10] [--parallel] [--port-base 16900] [--build-dir build]
           [--probe-interval 0.5] [--seed 17]
       (as root, with the build dir built; shareq's cluster takes ports from --port-base, stock's
       from --port-base + 1000, 32 each; directories BUILD_DIR/burst-shareq, BUILD_DIR/burst-stock)
"""

import argparse
import collections
import os
import pathlib
import pwd
import random
import subprocess
import sys
import threading
import time

from bench_cluster import (REPO, as_user, burst_submit, ctld_rss_mib, percentile, run,
                           run_clusters_at_once, start_cluster, stop_cluster)

SHARES = ["prodexp1", "prodexp2", "research"]
PARTITIONS = {"prodexp1": ["p4"], "prodexp2": ["p4", "p5"], "research": ["p5"]}
PROBE_USER = "alice"  # created by tests/cluster/cluster, an association under prodexp1
RETRYING = "sleeping and retrying"  # sbatch's words when slurmctld answers "try again"
# slurmctld.log lines counted after the burst: Slurm's refusal at MaxJobCount, and the words
# logged when a client hung up mid-RPC (seen with a SIGPIPE'd sbatch in shareq mode before).
LOG_LINES = ("MaxJobCount limit from slurm.conf reached", "Zero Bytes were transmitted or received")


def burst_users(count):
    """[(user, share)]: burst01.. over the shares in turn."""
    return [(f"burst{i + 1:02d}", SHARES[i % len(SHARES)]) for i in range(count)]


def workload(jobs, users, seed):
    """Per user, the lines burst_submit reads: PARTITION EXCLUSIVE GPUS SECONDS SHARE PRIORITY."""
    rng = random.Random(seed)
    lines = collections.defaultdict(list)
    for j in range(jobs):
        user, share = users[j % len(users)]
        partition = rng.choice(PARTITIONS[share])
        exclusive, gpus = (1, 0) if partition == "p4" else (0, rng.choice([1, 2, 4, 8]))
        lines[user].append(f"{partition} {exclusive} {gpus} {rng.randint(1, 5)} {share} "
                           f"{rng.randrange(100)}\n")
    return lines


def create_users(users):
    """useradd the users that are missing (once, before any cluster's thread starts)."""
    for user, _ in users:
        try:
            pwd.getpwnam(user)
        except KeyError:
            run(["useradd", "--no-create-home", "--shell", "/bin/sh", user], dict(os.environ))


def add_associations(env, users):
    """Adds each user under its share in the cluster's slurmdbd."""
    for share in SHARES:
        names = ",".join(u for u, s in users if s == share)
        if names:
            run(["sacctmgr", "-i", "add", "user", names, f"Account={share}",
                 f"DefaultAccount={share}"], env)


def timed_sbatch(env, mode):
    """One probe sbatch: (seconds, outcome) with outcome "ok", "queue full" (stopped at its first
    retry) or "failed (exit N): STDERR"."""
    cmd = ["sbatch", "-o", "/dev/null", "-p", "p4", "--wrap=true"]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, cwd="/tmp", stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            **as_user(PROBE_USER))
    errors = []
    for line in proc.stderr:
        if RETRYING in line:
            elapsed = time.monotonic() - start
            proc.kill()
            proc.wait()
            return elapsed, "queue full"
        errors.append(line.strip())
    rc = proc.wait()
    elapsed = time.monotonic() - start
    return elapsed, "ok" if rc == 0 else f"failed (exit {rc}): {' '.join(errors)[-200:]}"


def timed_squeue(env, _mode):
    start = time.monotonic()
    out = run(["squeue"], env, check=False, user=PROBE_USER)
    return time.monotonic() - start, ("ok" if out.returncode == 0 else
                                      f"failed (exit {out.returncode}): {out.stderr[-200:]}")


def probe(env, mode, command, interval, stop, samples):
    """Until stop: `command` (timed_squeue or timed_sbatch) as PROBE_USER, every `interval` s."""
    while True:
        start = time.monotonic()
        samples.append(command(env, mode))
        if stop.wait(max(0.0, interval - (time.monotonic() - start))):
            return


def submit(env, mode, build_dir, lines_by_user, submitters):
    """Runs the submitters at once, each user's jobs dealt in turn to that user's submitters;
    returns (seconds, [(outcome, job id or message, seconds)])."""
    users = list(lines_by_user)
    slots = collections.defaultdict(list)
    for s in range(submitters):
        slots[users[s % len(users)]].append(s)
    chunks = [(user, lines_by_user[user][k::len(mine)])
              for user, mine in slots.items() for k in range(len(mine))]
    return burst_submit(env, build_dir, chunks, mode == "shareq", label=mode)


def found_ids(env):
    """The job ids slurmctld (squeue -t all) and slurmdbd (sacct) know."""
    ids = set(run(["squeue", "-h", "-t", "all", "-o", "%i"], env).stdout.split())
    sacct = run(["sacct", "-a", "-X", "-n", "-P", "-o", "JobID", "-S", "now-1days"], env,
                check=False).stdout
    return ids | {line.split("_")[0] for line in sacct.split()}


def lost_jobs(env, accepted, timeout=120):
    """The accepted ids found nowhere; polled (bounded) while slurmdbd catches up."""
    deadline = time.monotonic() + timeout
    while True:
        lost = set(accepted) - found_ids(env)
        if not lost or time.monotonic() > deadline:
            return sorted(lost, key=int)
        time.sleep(2)


def dbd_agent_queue(env):
    """sdiag's "DBD Agent queue size": accounting messages slurmctld holds in memory for slurmdbd
    (None when sdiag does not say)."""
    for line in run(["sdiag"], env, check=False).stdout.splitlines():
        if line.startswith("DBD Agent queue size:"):
            return int(line.split(":")[1])
    return None


def settled_rss_mib(env, timeout=120):
    """slurmctld's RSS once slurmdbd has caught up (the DBD agent queue empty; bounded), so that
    the messages slurmctld queues for a slurmdbd behind the burst are not counted as the
    plugins' memory. Returns (RSS MiB, the queue's size when it was read)."""
    deadline = time.monotonic() + timeout
    while (queued := dbd_agent_queue(env)) and time.monotonic() < deadline:
        time.sleep(1)
    return ctld_rss_mib(env["SHAREQ_CLUSTER_DIR"]), queued


def measure(mode, env, opts, results):
    """One mode's burst on its (started) cluster; results[mode] = its figures."""
    users = burst_users(opts.users)
    add_associations(env, users)
    lines = workload(opts.jobs, users, opts.seed)
    rss_before = ctld_rss_mib(env["SHAREQ_CLUSTER_DIR"])
    stop, samples = threading.Event(), {"squeue": [], "sbatch": []}
    probers = [threading.Thread(target=probe, args=(env, mode, command, opts.probe_interval,
                                                    stop, samples[kind]))
               for kind, command in (("squeue", timed_squeue), ("sbatch", timed_sbatch))]
    for prober in probers:
        prober.start()
    try:
        seconds, submitted = submit(env, mode, opts.build_dir, lines, opts.submitters)
    finally:
        stop.set()
        for prober in probers:
            prober.join()
    rss_after, dbd_queue = settled_rss_mib(env)
    pending = len(run(["squeue", "-h", "-t", "PD", "-o", "%i"], env).stdout.split())
    queue = [line.split() for line in run(["squeue", "-h", "-t", "all", "-o", "%a %T"], env)
             .stdout.splitlines()]
    accounts = collections.Counter(account for account, _ in queue)
    states = collections.Counter(state for _, state in queue)
    accepted = [job for outcome, job, _ in submitted if outcome == "accepted"]
    refused = collections.Counter(msg for outcome, msg, _ in submitted if outcome == "refused")
    lost = lost_jobs(env, accepted)
    log = (pathlib.Path(env["SHAREQ_CLUSTER_DIR"]) / "log" / "slurmctld.log").read_text(
        errors="replace")
    for user, _ in users:
        run(["scancel", f"--user={user}"], env, check=False)
    results[mode] = {
        "submitted": len(submitted), "accepted": len(accepted), "refused": refused, "lost": lost,
        "seconds": seconds,
        "rate": len(submitted) / seconds if seconds else float("nan"),
        "submit_latency": [s for _, _, s in submitted],
        "probes": samples, "rss_before": rss_before, "rss_after": rss_after, "dbd_queue": dbd_queue,
        "pending": pending,
        "accounts": accounts, "states": states, "log": {what: log.count(what) for what in LOG_LINES}}
    print(f"{mode}: {len(accepted)} accepted, {sum(refused.values())} refused, {len(lost)} lost, "
          f"{seconds:.1f} s", flush=True)


class Cluster:
    """One mode's private test cluster."""

    def __init__(self, mode, opts):
        self.mode = mode
        self.env = dict(os.environ)
        self.env.update(
            SHAREQ_CLUSTER_DIR=str(opts.build_dir / f"burst-{mode}"),
            SHAREQ_BUILD_DIR=str(opts.build_dir),
            SHAREQ_PORT_BASE=str(opts.port_base + (1000 if mode == "stock" else 0)),
            SHAREQ_STOCK="1" if mode == "stock" else "0",
            SHAREQ_MAX_JOB_COUNT=str(opts.max_job_count))

    def __enter__(self):
        start_cluster(self.env)
        return self

    def __exit__(self, *_):
        stop_cluster(self.env)


def measure_or_say_why(cluster, opts, results):
    try:
        measure(cluster.mode, cluster.env, opts, results)
    except (SystemExit, Exception) as e:  # noqa: BLE001 - reported by main
        results[f"{cluster.mode} failed"] = str(e)


def table(results, modes, opts):
    def mib(x):
        return "n/a" if x is None else f"{x:.1f}"

    def lat(samples, outcome="ok"):
        s = [t for t, o in samples if o == outcome]
        if not s:
            return "n/a"
        return f"{percentile(s, 50):.3f}/{percentile(s, 99):.3f}/{max(s):.3f} ({len(s)})"

    rows = [("jobs submitted", lambda r: str(r["submitted"])),
            ("accepted", lambda r: str(r["accepted"])),
            ("refused", lambda r: str(sum(r["refused"].values()))),
            ("lost", lambda r: str(len(r["lost"]))),
            ("burst duration (s)", lambda r: f"{r['seconds']:.1f}"),
            ("submit rate (jobs/s)", lambda r: f"{r['rate']:.0f}"),
            ("submit call P50/P99/max s", lambda r: lat(
                [(t, "ok") for t in r["submit_latency"]])),
            ("probe squeue P50/P99/max s (n)", lambda r: lat(r["probes"]["squeue"])),
            ("probe sbatch P50/P99/max s (n)", lambda r: lat(r["probes"]["sbatch"])),
            ("probe sbatch met MaxJobCount", lambda r: lat(r["probes"]["sbatch"], "queue full")),
            ("probe failures", lambda r: str(sum(1 for k in ("squeue", "sbatch")
                                                 for _, o in r["probes"][k]
                                                 if o not in ("ok", "queue full")))),
            ("slurmctld RSS before (MiB)", lambda r: mib(r["rss_before"])),
            ("slurmctld RSS after (MiB)", lambda r: mib(r["rss_after"])),
            ("DBD agent queue then", lambda r: str(r["dbd_queue"])),
            ("pending after the burst", lambda r: str(r["pending"]))]
    print(f"\n{opts.jobs} jobs from {opts.users} users over {len(SHARES)} shares, "
          f"{opts.submitters} submitters, MaxJobCount={opts.max_job_count}, "
          f"{'both clusters at once' if opts.parallel else 'one mode after the other'}; "
          f"load average {os.getloadavg()[0]:.1f} at the end\n")
    print(f"{'':32}" + "".join(f"{m:>34}" for m in modes))
    for name, cell in rows:
        print(f"{name:32}" + "".join(f"{cell(results[m]):>34}" for m in modes))
    for m in modes:
        for message, count in results[m]["refused"].most_common():
            print(f"{m}: {count} refused with Slurm's message: {message}")
        print(f"{m}: jobs in slurmctld by account: "
              + ", ".join(f"{a} {n}" for a, n in sorted(results[m]["accounts"].items())))
        print(f"{m}: jobs in slurmctld by state: "
              + ", ".join(f"{a} {n}" for a, n in sorted(results[m]["states"].items())))
        for what, count in results[m]["log"].items():
            print(f"{m}: slurmctld.log lines with \"{what}\": {count}")
        if results[m]["lost"]:
            print(f"{m}: LOST (accepted, found neither in squeue nor in sacct): "
                  f"{' '.join(results[m]['lost'][:50])}")
        for kind in ("squeue", "sbatch"):
            for outcome, count in collections.Counter(
                    o for _, o in results[m]["probes"][kind] if o not in ("ok", "queue full")
            ).most_common(5):
                print(f"{m}: probe {kind} {count}x {outcome}")
    if {"stock", "shareq"} <= set(modes):
        s, q = results["stock"], results["shareq"]
        if None not in (s["rss_before"], s["rss_after"], q["rss_before"], q["rss_after"]) \
                and q["pending"]:
            extra = (q["rss_after"] - q["rss_before"]) - (s["rss_after"] - s["rss_before"])
            print(f"shareq's memory per pending job: {extra * 1024 / q['pending']:.2f} KiB "
                  f"(({mib(q['rss_after'])} - {mib(q['rss_before'])}) - ({mib(s['rss_after'])} - "
                  f"{mib(s['rss_before'])}) MiB over {q['pending']} pending jobs)")
            print("  caveat: the difference also holds what the two modes do differently beside "
                  "shareq's own records: the jobs each accepted and started (job records, "
                  "scripts, spank_job_env), priority/multifactor's and the other stock plugins' "
                  "memory, and what malloc keeps or returns; RSS counts pages touched, not bytes "
                  "held.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20000)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--submitters", type=int, default=None,
                        help="submitting processes at once (default one per user)")
    parser.add_argument("--modes", default="stock,shareq", help="comma-separated: stock, shareq")
    parser.add_argument("--max-job-count", type=int, default=None,
                        help="slurm.conf MaxJobCount (default --jobs * 9 / 10)")
    parser.add_argument("--parallel", action="store_true",
                        help="both modes' clusters at once, sharing the machine's load")
    parser.add_argument("--port-base", type=int, default=16900,
                        help="shareq's cluster's first TCP port; stock's is 1000 above")
    parser.add_argument("--build-dir", type=pathlib.Path, default=REPO / "build")
    parser.add_argument("--probe-interval", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=17)
    opts = parser.parse_args()
    modes = opts.modes.split(",")
    if not modes or not set(modes) <= {"stock", "shareq"} or len(set(modes)) != len(modes):
        parser.error(f"--modes: {opts.modes!r}: a comma-separated list of stock, shareq")
    if opts.jobs < 1:
        parser.error(f"--jobs: {opts.jobs}: at least 1")
    if opts.users < 1:
        parser.error(f"--users: {opts.users}: at least 1")
    opts.submitters = opts.users if opts.submitters is None else opts.submitters
    if opts.submitters < opts.users:
        parser.error(f"--submitters: {opts.submitters}: at least --users ({opts.users}); each "
                     "submitter runs as one user")
    opts.max_job_count = opts.max_job_count or opts.jobs * 9 // 10
    if opts.max_job_count < 1:
        parser.error(f"--max-job-count: {opts.max_job_count}: at least 1")
    opts.build_dir = opts.build_dir.resolve()
    if not (opts.build_dir / "tests" / "cluster" / "burst_submit").exists():
        sys.exit(f"{opts.build_dir}/tests/cluster/burst_submit is missing: build the tree with "
                 "-DSHAREQ_TESTS=ON -DSHAREQ_PLUGINS=ON")
    create_users(burst_users(opts.users))
    results = {}
    if opts.parallel:
        run_clusters_at_once([Cluster(m, opts) for m in modes],
                             lambda c: measure_or_say_why(c, opts, results))
    else:
        for mode in modes:
            with Cluster(mode, opts) as c:
                measure_or_say_why(c, opts, results)
    failed = [f"{m}: {results[m + ' failed']}" for m in modes if m + " failed" in results]
    done = [m for m in modes if m in results]
    if done:
        table(results, done, opts)
    if failed:
        sys.exit("\n".join(failed))


if __name__ == "__main__":
    main()
