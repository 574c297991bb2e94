#!/usr/bin/python3
"""Start latency and node-side set-up time: no image, cold with a 1 GiB image, on a warm pool.

Starts a private test cluster whose HTTP image store (python3's http.server on 127.0.0.1) serves
one image of random bytes (1 GiB by default, its sha256 published beside it), then runs user
alice's jobs (-p p4 -N1 --exclusive) one at a time, each submitted only when the previous one has
ended, round by round (one job per case, each round in a seeded shuffled order), so that the
machine's load falls on the three cases alike:
  none  a job without --image, on p4n3;
  cold  a job with --image on p4n1 after the benchmark deleted p4n1's cached copy (the previous
        cold job has ended and unpinned it; nothing else holds it), so every cold job fetches;
  warm  a matching job (same image, user, account, partition, node count; no -w) on a warm pool:
        a first job with --keep-alive, not counted, makes the pool on p4n2; each warm job
        continues it with its own --keep-alive and must start warm on p4n2 without a fetch.
Each job's script is `echo $EPOCHREALTIME` (a bash builtin: no fork before the stamp). Before
each submission the benchmark pauses a random 0-3 s (seeded), so that where a submission falls in
Slurm's 3-s scheduling cadence does not depend on the job before it (see SCHED_CADENCE_S).

What each figure measures (all clocks are this machine's CLOCK_REALTIME):
  start latency  just before sbatch is called -> the script's first line.
  sched wait     sbatch returned -> slurmctld started the job (its "sched: Allocate" or
                 "sched/backfill: _start_job" log line, millisecond timestamps). Slurm 22.05 does
                 not schedule a batch job when it is submitted: it only counts the request, and
                 the next main pass (at most every batch_sched_delay, 3 s by default, checked once
                 a second) or backfill pass (bf_interval, 5 s here) starts it. So every job waits
                 a share of that cadence that depends only on when it was submitted; the
                 scheduling itself takes well under a millisecond per job here.
  latency - wait start latency without that wait: sbatch (client, RPC, job_submit), the
                 scheduler's placement, and everything from allocation to the first line. The
                 fair figure for what shareq adds, as the wait is noise of up to 3-5 s.
  node set-up    the node starts the job's prolog -> the script's first line. The start is
                 stamped by a SPANK plugin (spank_prolog_stamp.c, compiled here) that the cluster
                 lists in plugstack.conf before spank_shareq.so (SHAREQ_PLUGSTACK_FIRST). Slurm
                 22.05 calls the plugins of a stack in order, and slurmd runs the SPANK job prolog
                 (PrologFlags=Alloc: at allocation) before slurm.conf's Prolog=, so the stamp is
                 the first thing done for the job after slurmd forked `slurmstepd spank prolog`.
                 Set-up therefore covers shareq's prolog (image fetch or cache hit, warm
                 directory), Slurm's prolog-complete and batch-launch round trip, and slurmstepd
                 starting the script.
  image step     prolog stamp -> shareq's "image ... fetched/already cached" slurmd log line
                 (a millisecond timestamp): the part of set-up that is shareq's image work.
  store          the image downloaded from the store with curl to /dev/null (median of 3).
  node fetch     image bytes / cold image step: what the node achieved, sha256 while
                 streaming, the write and fsync into its cache included.
  sha256         this CPU's hashlib.sha256 rate, and
  cache disk     writing and fsyncing the image's size where the nodes cache images: with the
                 store's rate, what a reader needs to scale the cold figure to a real registry.
  hw check       with --hardware-check: the time shareq's hardware check took in the job prolog
                 (issue 15), as its "hardware: ok: ... (job N, X ms)" slurmd log line says
                 (shareq.conf read, node library loaded, topology read and compared). It is
                 part of node set-up.
  its lib load   the part of hw check that loaded shareq's node library (shareq_node.so, with
                 hwloc, libcurl, OpenSSL): a job with an image or a warm directory loads it in
                 its prolog anyway; the check makes a job without either load it too.
With --hardware-check the benchmark gives family p4 the Hardware= that its nodes' topology has
(HARDWARE, the harness's hwloc XML node: tests/cluster/lib/config.sh write_topologies), through
a shareq.conf of its own (SHAREQ_CONF), so that the SPANK job prolog checks every job's node.
Either way it reads each job's slurmd log: with the check on, every job must have the check's
line (else it stops); with it off, none may.
Targets (issue 4): warm start latency P90 at most 100 ms above the no-image P90 (checked on the
start latency and on the start latency less the scheduling wait); warm set-up at least 8 times
shorter than cold (P50 against P50).

Usage: bench/cluster/start_latency.py [--jobs 20] [--image-mib 1024] [--keep-alive 900]
           [--sched-params bf_interval=5] [--hardware-check] [--build-dir build]
           [--cluster-dir BUILD_DIR/bench-cluster] [--port-base $SHAREQ_PORT_BASE or 16900]
       (as root, with the build dir built; needs cc, curl and about 3 GiB of free disk; the
        image and the nodes' cached copies are deleted at the end)
"""

import argparse
import hashlib
import os
import pathlib
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime

from bench_cluster import REPO, percentile, run, start_cluster, stop_cluster

IMAGE = "bench-image"
USER = "alice"
CASES = ("none", "cold", "warm")
COLD_NODE, POOL_NODE, PLAIN_NODE = "p4n1", "p4n2", "p4n3"
JOB_SCRIPT = '#!/bin/bash\necho "$EPOCHREALTIME"\n'
JOB_TIMEOUT_S = 600  # submit -> end of one job, a cold 1 GiB fetch on a busy machine included
POOL_TIMEOUT_S = 60  # a job's end -> its pool shown available
FIRST_LINE_POLL_S = 0.01  # reads a local file: does not load slurmctld
STATE_POLL_S = 0.1
# Slurm's main scheduler starts submitted batch jobs every batch_sched_delay (3 s by default).
# Submitting right after the previous job ended would tie each job's wait for that pass to the
# previous job's length (a job after a 3-s cold job would find a pass due; a cold job, always
# after a short one, would wait ~2.5 s). A random pause first makes every job's phase uniform.
SCHED_CADENCE_S = 3.0
# The hardware of every test-cluster node as its hwloc XML topology describes it (GPUS_PER_NODE=8
# of tests/cluster/cluster; topology_xml's two sockets, 96 cores): what the harness gives p5.
HARDWARE = "gpus=8,numa=2,cores=96"
CHUNK = 16 << 20
MIB = 1 << 20


class Cluster:
    """The benchmark's cluster: submitting as alice, waiting, and reading its logs and state."""

    def __init__(self, env, work):
        self.env = env
        self.dir = pathlib.Path(env["SHAREQ_CLUSTER_DIR"])
        self.jobs_dir = self.dir / "jobs"
        self.stamps = work / "stamps"
        self.script = work / "first_line.sh"
        self.phase = random.Random(9)  # the pauses before submitting, the same every run

    def submit(self, name, args):
        """Submits the first-line script; returns (job id, time just before sbatch, time sbatch
        returned)."""
        submitted = time.time()
        out = run(["sbatch", "--parsable", "-p", "p4", "-N1", "--exclusive",
                   f"--chdir={self.jobs_dir}", f"--output={self.jobs_dir / name}.out", *args,
                   str(self.script)], self.env, user=USER)
        return int(out.stdout.strip().split(";")[0]), submitted, time.time()

    def first_line(self, name, job):
        """The time the job's script printed as its first line. Polls the output file only, so
        that the wait adds no load on slurmctld while the job starts; a job that fails before its
        script runs is seen by its state, asked once a second."""
        deadline = time.monotonic() + JOB_TIMEOUT_S
        next_state_check = time.monotonic() + 1
        path = self.jobs_dir / f"{name}.out"
        while time.monotonic() < deadline:
            text = path.read_text(errors="replace") if path.exists() else ""
            if text.endswith("\n"):
                try:
                    return float(text.split()[0])
                except ValueError:
                    sys.exit(f"job {job} ({name}) printed no time first: {text!r}")
            if time.monotonic() >= next_state_check:
                record = self.show_job(job)
                if re.search(r"\bJobState=(FAILED|CANCELLED|TIMEOUT|NODE_FAIL|COMPLETED)", record):
                    if not path.exists() or not path.read_text().endswith("\n"):
                        sys.exit(f"job {job} ({name}) ended without its first line: {record}")
                next_state_check = time.monotonic() + 1
            time.sleep(FIRST_LINE_POLL_S)
        sys.exit(f"job {job} ({name}) printed nothing within {JOB_TIMEOUT_S} s")

    def show_job(self, job):
        return run(["scontrol", "-o", "show", "job", str(job)], self.env).stdout

    def wait_ended(self, job):
        """Waits until the job is COMPLETED (its epilog done); returns its scontrol record."""
        deadline = time.monotonic() + JOB_TIMEOUT_S
        while time.monotonic() < deadline:
            record = self.show_job(job)
            state = re.search(r"\bJobState=(\S+)", record).group(1)
            if state == "COMPLETED":
                return record
            if state not in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
                sys.exit(f"job {job} ended {state}: {record}")
            time.sleep(STATE_POLL_S)
        sys.exit(f"job {job} did not complete within {JOB_TIMEOUT_S} s")

    def wait_pool_available(self, node):
        deadline = time.monotonic() + POOL_TIMEOUT_S
        while time.monotonic() < deadline:
            out = run(["scontrol", "-o", "show", "node", node], self.env).stdout
            extra = re.search(r"\bExtra=(\S*)", out)
            # Available (made, never used) or Reused (a job continued it): both wait for a job.
            if extra and re.match(r"shareq:[^,]+,(available|reused),", extra.group(1)):
                return
            time.sleep(STATE_POLL_S)
        sys.exit(f"{node} shows no waiting warm pool within {POOL_TIMEOUT_S} s: {out}")

    def prolog_stamp(self, job, node):
        path = self.stamps / f"{job}.{node}"
        if not path.exists():
            sys.exit(f"no prolog stamp {path}: did the stamp plugin load? see "
                     f"{self.dir}/log/slurmd-{node}.log")
        return float(path.read_text())

    def allocated(self, job):
        """(log time, "main" or "backfill") of slurmctld's line that started the job."""
        log = (self.dir / "log" / "slurmctld.log").read_text(errors="replace")
        m = re.search(rf"^\[(\S+)\] (sched: Allocate|sched/backfill: _start_job: Started) "
                      rf"JobId={job} ", log, re.M)
        if not m:
            sys.exit(f"job {job}: slurmctld.log does not say when it was started")
        return datetime.fromisoformat(m.group(1)).timestamp(), \
            "main" if m.group(2).startswith("sched:") else "backfill"

    def image_line(self, job, node):
        """(log time, bytes, fetched) of shareq's prolog line about the job's image."""
        log = (self.dir / "log" / f"slurmd-{node}.log").read_text(errors="replace")
        m = re.search(rf"^\[(\S+)\] .*shareq: prolog: job {job}: image {IMAGE} "
                      rf"(fetched|already cached) \((\d+) bytes\)", log, re.M)
        if not m:
            sys.exit(f"job {job}: no shareq prolog line about {IMAGE} in slurmd-{node}.log")
        return datetime.fromisoformat(m.group(1)).timestamp(), int(m.group(3)), \
            m.group(2) == "fetched"

    def hardware_check_ms(self, job, node):
        """(the time of shareq's hardware check in the job's prolog on `node`, the part of it
        that loaded the node library), ms, from its log line; None when the prolog did not check
        the node."""
        log = (self.dir / "log" / f"slurmd-{node}.log").read_text(errors="replace")
        m = re.search(rf"shareq: hardware: (?:ok: .*\(job {job}, ([\d.]+) ms, ([\d.]+) of them "
                      rf"loading the node library\)|.*\(node \S+, job {job} partition )", log)
        if m and m.group(1) is None:
            sys.exit(f"job {job}: the hardware check failed on {node}: {m.group(0)}")
        return (float(m.group(1)), float(m.group(2))) if m else None

    def forget_cached_image(self, node, digest):
        """Deletes the node's cached copy, which no job or pool may hold any more."""
        cache = self.dir / "nodes" / node / "images"
        pins = cache / "pins" / digest
        if pins.exists() and any(pins.iterdir()):
            sys.exit(f"{node}: {IMAGE} is still pinned by {[p.name for p in pins.iterdir()]}")
        (cache / "sha256" / digest).unlink(missing_ok=True)


def build_stamp_plugin(work):
    so = work / "spank_prolog_stamp.so"
    run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", str(so),
         str(REPO / "bench" / "cluster" / "spank_prolog_stamp.c")], os.environ)
    return so


def publish_image(images_dir, mib):
    """Writes IMAGE (random bytes) and IMAGE.sha256 into the store; returns (digest, bytes,
    sha256 bytes/s)."""
    digest = hashlib.sha256()
    hashing_s = 0.0
    partial = images_dir / f".{IMAGE}.partial"
    with open(partial, "wb") as out:
        for _ in range(mib * MIB // CHUNK):
            chunk = os.urandom(CHUNK)
            started = time.perf_counter()
            digest.update(chunk)
            hashing_s += time.perf_counter() - started
            out.write(chunk)
    partial.rename(images_dir / IMAGE)
    (images_dir / f"{IMAGE}.sha256").write_text(digest.hexdigest() + "\n")
    size = mib * MIB // CHUNK * CHUNK
    return digest.hexdigest(), size, size / hashing_s


def disk_throughput(directory, size):
    """Bytes/s of writing `size` bytes (random, not compressible) and fsyncing them in
    `directory`, as the node does into its cache."""
    chunk = os.urandom(CHUNK)
    path = directory / ".disk-throughput"
    started = time.perf_counter()
    with open(path, "wb") as out:
        for _ in range(size // CHUNK):
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    elapsed = time.perf_counter() - started
    path.unlink()
    return size / elapsed


def store_throughput(url):
    """Bytes/s of a plain download of the image from the store (median of 3)."""
    rates = []
    for _ in range(3):
        out = run(["curl", "-sS", "-o", "/dev/null", "-w", "%{size_download} %{time_total}",
                   f"{url}/{IMAGE}"], os.environ).stdout.split()
        rates.append(float(out[0]) / float(out[1]))
    return statistics.median(rates)


def shareq_conf_with_hardware(work):
    """A copy of the test cluster's shareq.conf whose family p4 expects HARDWARE."""
    lines = (REPO / "slurm-conf" / "shareq.conf").read_text().splitlines()
    p4 = [i for i, line in enumerate(lines) if line.startswith("Family=p4 ")]
    if len(p4) != 1 or "Hardware=" in lines[p4[0]]:
        sys.exit("slurm-conf/shareq.conf: expected one Family=p4 line without Hardware=")
    lines[p4[0]] += f" Hardware={HARDWARE}"
    path = work / "shareq.conf"
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o644)
    return path


def check_installed_hardware(cluster_dir):
    """Stops unless the cluster's shareq.conf gives p4 HARDWARE, the value the harness gives p5
    for the topology it writes (so that p4's nodes pass the check)."""
    conf = (cluster_dir / "etc" / "shareq.conf").read_text()
    for family in ("p4", "p5"):
        m = re.search(rf"^Family={family} .*\bHardware=(\S+)", conf, re.M)
        if not m or m.group(1) != HARDWARE:
            sys.exit(f"{cluster_dir}/etc/shareq.conf: family {family} has "
                     f"{'Hardware=' + m.group(1) if m else 'no Hardware='}, expected {HARDWARE}")


def run_job(c, case, index, keep_alive, digest, hardware_check):
    """Runs one job of `case` to its end; returns its figures."""
    args = {"none": ["-w", PLAIN_NODE],
            "cold": ["-w", COLD_NODE, f"--image={IMAGE}"],
            "warm": [f"--image={IMAGE}", f"--keep-alive={keep_alive}"],
            "pool": ["-w", POOL_NODE, f"--image={IMAGE}", f"--keep-alive={keep_alive}"]}[case]
    if case == "cold":
        c.forget_cached_image(COLD_NODE, digest)
    if case == "warm":
        c.wait_pool_available(POOL_NODE)
    name = f"{case}-{index}"
    time.sleep(c.phase.uniform(0, SCHED_CADENCE_S))  # see SCHED_CADENCE_S
    job, submitted, returned = c.submit(name, args)
    first = c.first_line(name, job)
    record = c.wait_ended(job)
    node = re.search(r"\bNodeList=(\S+)", record).group(1)
    stamp = c.prolog_stamp(job, node)
    started, scheduler = c.allocated(job)
    wait = max(0.0, started - returned)
    result = {"job": job, "latency": first - submitted, "setup": first - stamp,
              "sched_wait": wait, "less_wait": first - submitted - wait, "by": scheduler}
    # Checked, not assumed: the check's line is there for every job with it on, for none off.
    checked_ms = c.hardware_check_ms(job, node)
    if (checked_ms is not None) != hardware_check:
        sys.exit(f"job {job} ({case}): the hardware check was {'' if hardware_check else 'not '}"
                 f"asked for, but slurmd-{node}.log has {'a' if checked_ms is not None else 'no'} "
                 f"hardware line for it")
    if checked_ms is not None:
        result["hw_check"], result["hw_check_lib"] = (ms / 1e3 for ms in checked_ms)
    if case != "none":
        logged, size, fetched = c.image_line(job, node)
        # The log's stamp is truncated to the millisecond: a cache hit can read as -0.4 ms.
        result.update(image_step=max(0.0, logged - stamp), size=size)
        if fetched != (case != "warm"):
            sys.exit(f"job {job} ({case}): the image was {'' if fetched else 'not '}fetched")
    if case == "warm" and (node != POOL_NODE or "warm start on wp-" not in record):
        sys.exit(f"job {job} did not start warm on {POOL_NODE}: {record}")
    return result


def measure(c, jobs, keep_alive, digest, hardware_check):
    pool = run_job(c, "pool", 0, keep_alive, digest, hardware_check)
    results = {case: [] for case in CASES}
    order = random.Random(4)  # each round in its own order, the same every run
    for index in range(jobs):
        # Slurm starts a submitted job at its next scheduling pass, whose phase follows from the
        # previous job's end; a fixed order would give each case its own share of that wait.
        for case in order.sample(CASES, len(CASES)):
            results[case].append(run_job(c, case, index, keep_alive, digest, hardware_check))
        print(f"round {index + 1}/{jobs}: " + ", ".join(
            f"{case} {results[case][-1]['latency'] * 1e3:.0f}/"
            f"{results[case][-1]['setup'] * 1e3:.0f} ms" for case in CASES), flush=True)
    return pool, results


def ms_pair(values, decimals=0):
    if not values:
        return f"{'-':>15}"
    return f"{percentile(values, 50) * 1e3:>6.{decimals}f} / " \
        f"{percentile(values, 90) * 1e3:>6.{decimals}f}"


def load_average():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def verdict(ok):
    return "met" if ok else "NOT met"


def report(results, pool, size, rates, opts):
    keys = ("latency", "sched_wait", "less_wait", "setup", "image_step", "hw_check",
            "hw_check_lib")
    col = {case: {k: [r[k] for r in rs if k in r] for k in keys} for case, rs in results.items()}
    print(f"\n{opts.jobs} jobs per case, one at a time (-p p4 -N1 --exclusive); image "
          f"{size / MIB:.0f} MiB; SchedulerParameters={opts.sched_params}; ms, P50 / P90")
    # Each job's line was checked in run_job: with the check on every job has one, off none.
    print("hardware check: " + (
        f"on (family p4 Hardware={HARDWARE}; its line in slurmd's log for every job)"
        if opts.hardware_check else "off (no hardware check line in slurmd's log for any job)"))
    print(f"load average before / after: {opts.load_before} / {load_average()}\n")
    print(f"{'case':<5} {'start latency':>15} {'sched wait':>15} {'latency - wait':>15} "
          f"{'node set-up':>15} {'image step':>15} {'hw check':>15} {'its lib load':>15}  "
          f"started by main / backfill")
    for case in CASES:
        by_main = sum(r["by"] == "main" for r in results[case])
        print(f"{case:<5} " + " ".join(ms_pair(col[case][k], 1 if k.startswith("hw") else 0)
                                       for k in keys) +
              f"  {by_main} / {len(results[case]) - by_main}")
    rates = dict(rates)
    rates["node fetch (size / cold image step, P50)"] = \
        percentile([size / s for s in col["cold"]["image_step"]], 50)
    print("\n" + "; ".join(f"{what}: {rate / MIB:.0f} MiB/s" for what, rate in rates.items()))
    print(f"the pool-making first job (cold, not counted): node set-up "
          f"{pool['setup'] * 1e3:.0f} ms")
    if opts.hardware_check:
        every = [r["hw_check"] for rs in results.values() for r in rs]
        lib = [r["hw_check_lib"] for rs in results.values() for r in rs]
        print(f"hardware check in the prolog, all {len(every)} counted jobs, P50 / P90: "
              f"{percentile(every, 50) * 1e3:.1f} / {percentile(every, 90) * 1e3:.1f} ms, of "
              f"which loading the node library {percentile(lib, 50) * 1e3:.1f} / "
              f"{percentile(lib, 90) * 1e3:.1f} ms")
    for key, what in (("latency", "start latency"),
                      ("less_wait", "start latency less Slurm's scheduling wait")):
        above = (percentile(col["warm"][key], 90) - percentile(col["none"][key], 90)) * 1e3
        print(f"target: warm P90 - none P90 of {what} = {above:.0f} ms (<= 100): "
              f"{verdict(above <= 100)}")
    ratio = percentile(col["cold"]["setup"], 50) / percentile(col["warm"]["setup"], 50)
    print(f"target: cold / warm node set-up, P50 = {ratio:.1f}x (>= 8x): {verdict(ratio >= 8)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20, help="jobs per case (default 20)")
    parser.add_argument("--image-mib", type=int, default=1024,
                        help="image size in MiB, a multiple of 16 (default 1024)")
    parser.add_argument("--keep-alive", type=int, default=900,
                        help="--keep-alive of the warm jobs, s (default 900)")
    parser.add_argument("--build-dir", type=pathlib.Path, default=REPO / "build",
                        help="build tree whose plugins/ the cluster loads (default build/)")
    parser.add_argument("--cluster-dir", type=pathlib.Path, default=None,
                        help="the cluster's private directory (default BUILD_DIR/bench-cluster)")
    parser.add_argument("--port-base", type=int,
                        default=int(os.environ.get("SHAREQ_PORT_BASE", "16900")),
                        help="first of the 32 TCP ports the cluster takes "
                             "(default $SHAREQ_PORT_BASE or 16900)")
    parser.add_argument("--sched-params", default="bf_interval=5",
                        help="slurm.conf SchedulerParameters (default bf_interval=5, the test "
                             "cluster's; batch_sched_delay is then Slurm's default, 3 s)")
    parser.add_argument("--hardware-check", action="store_true",
                        help=f"give family p4 Hardware={HARDWARE}, so that the job prolog checks "
                             "each job's node (issue 15); default: p4 has no Hardware=")
    opts = parser.parse_args()
    opts.load_before = load_average()
    if opts.jobs < 1 or opts.image_mib < 16 or opts.image_mib % 16:
        parser.error("--jobs must be >= 1 and --image-mib a multiple of 16")
    opts.build_dir = opts.build_dir.resolve()
    cluster_dir = (opts.cluster_dir or opts.build_dir / "bench-cluster").resolve()

    work = pathlib.Path(tempfile.mkdtemp(prefix="shareq-start-latency-"))
    work.chmod(0o755)  # alice's sbatch reads the job script from here
    (work / "stamps").mkdir()
    (work / "first_line.sh").write_text(JOB_SCRIPT)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SHAREQ_SHARE", "SHAREQ_KEEP_ALIVE", "SLURM_", "SBATCH_"))
           and k != "SHAREQ_IMAGE"}
    env.update(SHAREQ_CLUSTER_DIR=str(cluster_dir), SHAREQ_BUILD_DIR=str(opts.build_dir),
               SHAREQ_PORT_BASE=str(opts.port_base), SHAREQ_SCHED_PARAMS=opts.sched_params)
    try:
        stamp = build_stamp_plugin(work)
        env["SHAREQ_PLUGSTACK_FIRST"] = f"optional {stamp} dir={work / 'stamps'}"
        if opts.hardware_check:
            env["SHAREQ_CONF"] = str(shareq_conf_with_hardware(work))
        start_cluster(env)
        if opts.hardware_check:
            check_installed_hardware(cluster_dir)
        digest, size, sha_rate = publish_image(cluster_dir / "images", opts.image_mib)
        rates = {"store (curl to /dev/null)": store_throughput(env["SHAREQ_IMAGE_STORE_URL"]),
                 "sha256 on this CPU": sha_rate,
                 "cache disk (write + fsync)": disk_throughput(cluster_dir / "nodes", size)}
        pool, results = measure(Cluster(env, work), opts.jobs, opts.keep_alive, digest,
                                opts.hardware_check)
        report(results, pool, size, rates, opts)
    finally:
        stop_cluster(env)
        for big in (cluster_dir / "images" / IMAGE, cluster_dir / "images" / f".{IMAGE}.partial"):
            big.unlink(missing_ok=True)
        shutil.rmtree(cluster_dir / "nodes", ignore_errors=True)  # the cached copies
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
