"""The fault suite's invariant checker: samples the real cluster every half second in a thread of
its own and records every violation; a test fails when there is one (tests/faults/conftest.py).

What it checks, each sample (the controller's view, `scontrol -o show job`, one RPC, so one
consistent snapshot):
  capacity   a family's running allocation (RUNNING and SIGNALING jobs of its partitions, in its
             unit: nodes or gres/gpu) never exceeds its Capacity. No grace is allowed: a
             reclaiming job waits until its victims have ended (README "Reclaim"), and a victim
             in KillWait or its epilog is COMPLETING, which holds nothing of the family.
  quota      no share is reclaimed below its quota: the jobs of a share that stop running
             between two samples with `preempted by job N (reclaim)` in their SystemComment,
             their reclaim in slurmctld's log since the earlier sample (Slurm's own requeue of
             a job missing from its node after a crash keeps an older reclaim's comment), leave
             the share, in that family, at least its quota (counting a job of the share that
             started between the two samples before the reclaim, by slurmctld's log).
  lost       every job the test submitted (register()) is known to slurmctld (MinJobAge=600
             keeps ended jobs; one seen ended may then be gone) or, at the end (final_check()),
             to slurmdbd in a terminal state, or still pending or running.
  twice      no job id appears in two records at once, and no job's script runs in more
             processes than it has nodes (the suite's job scripts run `exec -a
             faultjob-CLUSTER-ID`, script_prefix()),
             and none runs while slurmctld says the job is pending, except for up to
             RECOVERY_GRACE seconds after slurmctld was restarted (Slurm's own recovery of a job
             whose start the crash lost: see check_jobs; such jobs are counted and reported).
             Only scripts seen both just before and just after the snapshot count: a job that
             starts between the snapshot and the process scan is not one running while pending.
  loop       no job is preempted more than MAX_PREEMPTIONS times within LOOP_WINDOW seconds
             (Restarts, counted as it grows).
  cache      every file in each node's image cache (NODE/images/sha256/DIGEST) hashes to its
             name (checked once per file and size).
  warm       no warm directory (NODE/warm/NAME/) can be read, written or searched by others: mode
             0700 (no group or other bits), owned by a user other than root.
Samples taken while slurmctld does not answer (a fault stopped it) are counted, not checked.
"""

import collections
import datetime
import hashlib
import pathlib
import re
import stat
import subprocess
import threading
import time
import zlib

from slurm import RUNNING_STATES, parse_scontrol_record

SAMPLE_INTERVAL = 0.5
RECOVERY_GRACE = 30.0
# slurmctld saves its job state from a thread of its own, at most every SAVE_MAX_WAIT (5) seconds
# (src/slurmctld/state_save.c): kill -9 loses what changed since the last save. A job submitted
# or started within SAVE_WINDOW seconds before a kill -9 may come back unknown (and its id be
# given to a later job) or pending (and start again while its first run still goes on, until its
# node registers). The checker counts those apart, as Slurm's crash window, and names each; the
# same outside that window is a violation.
SAVE_WINDOW = 7.0
LOG_TIME = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)\] ")
# A requeued job waits cred_expire + 1 (11 s) before it may start again (its script ends at
# SIGTERM, so KillWait adds nothing), then ReclaimMinRuntime (5 s, storm.py) before it may be a
# victim again: at least 16 s between two preemptions of one job (the storm's soak saw 18 s),
# so at most 4 within 60 s (0, 16, 32, 48) unless something loops.
MAX_PREEMPTIONS = 4
LOOP_WINDOW = 60.0
# A job in its prolog (CONFIGURING) holds its allocation as a running one does.
HOLDING = tuple(RUNNING_STATES) + ("CONFIGURING",)
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
            "BOOT_FAIL", "DEADLINE", "PREEMPTED"}
RECLAIMED = re.compile(r"preempted by job \d+ \(reclaim\)")
# A reclaim is logged under slurmctld's job write lock, before the snapshot that shows its victim
# requeued; the margin covers the sampler's clock reading.
RECLAIM_LOG_MARGIN = 1.0


def script_prefix(cluster_dir):
    """The name each job script of the suite runs under, less the job id: `faultjob-CLUSTER-`,
    CLUSTER from the cluster's directory, so that a checker counts only its own cluster's
    scripts (job ids of two clusters on one host overlap)."""
    return f"faultjob-{zlib.crc32(str(cluster_dir).encode()):08x}-"


def parse_conf(text):
    """Families ({name: (partitions, unit, capacity)}) and quotas ({(share, family): (unit, n)})
    of a shareq.conf, shares lower-cased as Slurm shows accounts."""
    families, quotas = {}, {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        words = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if "Family" in words and "Capacity" in words and "Share" not in words:
            unit, n = words["Capacity"].split("=")
            families[words["Family"]] = (words["Partitions"].split(","), unit, int(n))
        elif "Share" in words and "Quota" in words:
            unit, n = words["Quota"].split("=")
            quotas[(words["Share"].lower(), words["Family"])] = (unit, int(n))
    return families, quotas


def eligible(job, now):
    """A pending job that may start now: its BeginTime passed (a requeued victim waits for it)."""
    begin = job.get("EligibleTime") or job.get("BeginTime") or ""
    try:
        return datetime.datetime.fromisoformat(begin).timestamp() <= now
    except ValueError:
        return True  # Unknown or None: nothing holds it back


def share_use(running, families):
    """Each share's use per family ({(account, family): units}) of the RUNNING jobs."""
    use = collections.Counter()
    for job in running.values():
        for family, (partitions, unit, _) in families.items():
            if job.get("Partition") in partitions:
                use[(job.get("Account", "").lower(), family)] += alloc(job, unit)
    return use


def alloc(job, unit):
    """A job's allocation in UNIT (node or gres/gpu), from AllocTRES (TRES when absent)."""
    tres = job.get("AllocTRES") or job.get("TRES") or ""
    for part in tres.split(","):
        key, _, value = part.partition("=")
        if key == unit:
            return int(value)
    return 0


class Checker:
    def __init__(self, cluster, conf_text=None):
        self.c = cluster
        self.script_prefix = script_prefix(cluster.dir).encode()
        self.lock = threading.Lock()
        self.violations = []
        self.submitted = set()
        self.samples = 0
        self.reclaims = 0  # victims of a reclaim seen (the storm's progress)
        self.last_restart = None  # when slurmctld was last seen down or restarted
        self.recovered_pending = set()  # jobs seen pending with a script after a restart
        self.kills = []  # wall-clock times of kill -9 of slurmctld
        self.submitted_at = {}  # job id -> (wall-clock time, job name)
        self.ended = set()  # jobs last seen in a terminal state
        self.crash_window = {}  # (kind, job id) -> what happened, in Slurm's crash window
        self.down_samples = 0
        self.preemptions = collections.defaultdict(list)  # job id -> times Restarts grew
        self.restarts = {}
        self.previous = {}
        self.hashed = {}
        self.set_conf(conf_text or (cluster.dir / "etc" / "shareq.conf").read_text())
        self._stop = threading.Event()
        self._thread = None

    # ---- the test's side ------------------------------------------------------------------
    def set_conf(self, text):
        """The shareq.conf whose capacities and quotas hold (the last good one slurmctld runs)."""
        families, quotas = parse_conf(text)
        with self.lock:
            self.families, self.quotas = families, quotas

    def reclaim_owed(self):
        """What slurmctld owes a waiting job now, by the numbers of one snapshot: a list of
        (family, share waiting within its quota, share running over its quota). Empty when no
        share with an eligible pending job fits its quota while another runs over its own (then
        a stall is not shareq's: every family is at its capacity, held by shares within their
        quotas). None when slurmctld does not answer."""
        records = self.jobs()
        if records is None:
            return None
        with self.lock:
            families, quotas = self.families, self.quotas
        now = time.time()
        jobs = {job_id: recs[0] for job_id, recs in records.items()}
        use = share_use({j: r for j, r in jobs.items() if r["JobState"] in HOLDING}, families)
        waiting = collections.defaultdict(list)
        for job in jobs.values():
            if job["JobState"] != "PENDING" or not eligible(job, now):
                continue
            for family, (partitions, unit, _) in families.items():
                if job.get("Partition") in partitions:
                    waiting[(job.get("Account", "").lower(), family)].append(alloc(job, unit))
        owed = []
        for (account, family), asks in waiting.items():
            quota = quotas.get((account, family), (None, 0))[1]
            if not any(use[(account, family)] + ask <= quota for ask in asks):
                continue
            for (other, other_family), used in use.items():
                if other_family == family and other != account and \
                        used > quotas.get((other, family), (None, 0))[1]:
                    owed.append((family, account, other))
        return owed

    def register(self, job_id, name=None):
        with self.lock:
            self.submitted.add(int(job_id))
            self.submitted_at[int(job_id)] = (time.time(), name)

    def ctld_stopping(self):
        """Called right before slurmctld is stopped by a fault (any signal)."""
        with self.lock:
            self.last_restart = time.monotonic()

    def ctld_killed(self):
        """Called right before a kill -9 of slurmctld."""
        self.ctld_stopping()
        with self.lock:
            self.kills.append(time.time())

    def _in_save_window(self, when):
        return any(k - SAVE_WINDOW <= when <= k for k in self.kills)

    def _log_times(self, job_id, *what):
        """Wall-clock times of slurmctld's log lines saying any of WHAT about the job (one read
        of the log)."""
        patterns = [{"allocated": f"Allocate JobId={job_id} ",
                     "backfilled": f"_start_job: Started JobId={job_id} ",
                     "reclaimed": f"preempts JobId={job_id} (reclaim)",
                     "submitted": f"_slurm_rpc_submit_batch_job: JobId={job_id} "}[w]
                    for w in what]
        times = []
        with open(self.c.dir / "log" / "slurmctld.log", errors="replace") as f:
            for line in f:
                if any(pattern in line for pattern in patterns):
                    m = LOG_TIME.match(line)
                    if m:
                        times.append(datetime.datetime.fromisoformat(m.group(1)).timestamp())
        return times

    def slurm_crash_window(self, kind, job_id, what):
        """True (and recorded) when the job was submitted or started within SAVE_WINDOW seconds
        before a kill -9 of slurmctld: what happened to it is Slurm's own crash recovery."""
        when = [self.submitted_at.get(job_id, (0, None))[0]]
        when += self._log_times(job_id, "allocated", "submitted")
        if not any(self._in_save_window(t) for t in when):
            return False
        with self.lock:
            self.crash_window.setdefault((kind, job_id), what)
        return True

    def started_before_reclaim(self, key, first_reclaim, running, before_running, families):
        """What the share (account, family) KEY started between two samples before FIRST_RECLAIM,
        the log time of the first reclaim of its jobs between them (slurmctld's log orders the
        two within the half second): such a job was running when the reclaim was decided, though
        the earlier sample did not see it."""
        account, family = key
        partitions, unit, _ = families[family]
        started = 0
        for job_id, job in running.items():
            if (job_id in before_running or job.get("Partition") not in partitions
                    or job.get("Account", "").lower() != account):
                continue
            starts = self._log_times(job_id, "allocated", "backfilled")
            if starts and max(starts) <= first_reclaim:
                started += alloc(job, unit)
        return started

    def violate(self, what):
        with self.lock:
            self.violations.append(f"{time.strftime('%H:%M:%S')} {what}")

    def start(self):
        self._thread = threading.Thread(target=self._loop, daemon=True, name="invariants")
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=60)

    def _loop(self):
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                self.sample()
            except Exception as e:  # a checker bug must show, not end the thread silently
                self.violate(f"checker error: {e!r}")
            self._stop.wait(max(0.0, SAMPLE_INTERVAL - (time.monotonic() - began)))

    # ---- one sample -----------------------------------------------------------------------
    def jobs(self):
        """{job id: [records]} from slurmctld, or None when it does not answer."""
        try:
            out = self.c.run(["scontrol", "-o", "show", "job"], timeout=15)
        except subprocess.TimeoutExpired:
            return None
        if out.returncode != 0:
            if "No jobs in the system" in out.stdout + out.stderr:
                return {}
            return None
        records = collections.defaultdict(list)
        for line in out.stdout.splitlines():
            if line.startswith("JobId="):
                job = parse_scontrol_record(line)
                records[int(job["JobId"])].append(job)
        return records

    def job_processes(self):
        """{job id: number of processes running its script} (`exec -a faultjob-CLUSTER-ID`)."""
        counts = collections.Counter()
        for proc in pathlib.Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                argv0 = (proc / "cmdline").read_bytes().split(b"\0", 1)[0]
            except OSError:
                continue
            if argv0.startswith(self.script_prefix):
                counts[int(argv0[len(self.script_prefix):])] += 1
        return counts

    def ctld_restarted(self):
        """A fault stopped slurmctld and it was started again (also seen by sampling)."""
        with self.lock:
            self.last_restart = time.monotonic()

    def sample(self):
        with self.lock:
            submitted = set(self.submitted)  # before the snapshot: all of them are in it
        # Job scripts seen before and after the snapshot: a job that starts, or whose script
        # ends, while the snapshot is taken is not taken for one that runs while pending.
        procs_before = self.job_processes()
        records = self.jobs()
        procs = self.job_processes()
        procs = collections.Counter({j: n for j, n in procs.items() if j in procs_before})
        with self.lock:
            self.samples += 1
            if records is None:
                self.down_samples += 1
                self.last_restart = time.monotonic()
            families, quotas = self.families, self.quotas
        if records is not None:
            self.check_jobs(records, procs, families, quotas, submitted)
        self.check_files()

    def check_jobs(self, records, procs, families, quotas, submitted):
        now, wall = time.monotonic(), time.time()
        jobs = {}
        for job_id, recs in records.items():
            if len(recs) > 1:
                self.violate(f"twice: job {job_id} has {len(recs)} records in slurmctld")
            jobs[job_id] = recs[0]
        for job_id, job in jobs.items():
            if job["JobState"] in TERMINAL:
                self.ended.add(job_id)
            else:
                self.ended.discard(job_id)  # back after a crash lost its end (docs)
        for job_id in submitted:
            name = self.submitted_at.get(job_id, (0, None))[1]
            if job_id not in jobs:
                if job_id in self.ended:
                    continue  # purged MinJobAge (600 s) after its end; final_check asks sacct
                what = f"lost: job {job_id} (submitted) is unknown to slurmctld"
            elif name and jobs[job_id].get("JobName") != name:
                what = (f"lost: job {job_id} (submitted as {name}) is now another job "
                        f"({jobs[job_id].get('JobName')}): its id was given again")
            else:
                continue
            if not self.slurm_crash_window("lost", job_id, what):
                self.violate(what)
        running = {j: r for j, r in jobs.items() if r["JobState"] in HOLDING}
        # capacity, and each share's use per family
        use = share_use(running, families)
        for family, (partitions, unit, capacity) in families.items():
            total = sum(n for (_, f), n in use.items() if f == family)
            if total > capacity:
                self.violate(f"capacity: family {family} runs {total} {unit}, capacity {capacity} "
                             f"(jobs {sorted(j for j, r in running.items() if r.get('Partition') in partitions)})")
        # quota: victims of a reclaim since the previous sample
        before_use, before_running = self.previous.get("use"), self.previous.get("running", {})
        # A snapshot from before a slurmctld restart is no "before" for the quota: the test
        # restarts slurmctld between two samples, and much may change meanwhile.
        stale = (self.last_restart is not None
                 and self.last_restart >= self.previous.get("at", now))
        if before_use is not None and not stale:
            taken = collections.Counter()
            reclaimed = collections.defaultdict(list)  # log times of this sample's reclaims
            since = self.previous["wall"] - RECLAIM_LOG_MARGIN
            for job_id, old in before_running.items():
                new = jobs.get(job_id)
                if new is None or new["JobState"] in HOLDING:
                    continue
                # A new requeue by a reclaim: Restarts grew, and the comment says reclaim (the
                # comment stays after a job restarts; a job later cancelled keeps it too).
                if not RECLAIMED.search(new.get("SystemComment", "")):
                    continue
                if int(new.get("Restarts", 0) or 0) <= int(old.get("Restarts", 0) or 0):
                    continue
                # ... and slurmctld logged the reclaim since the previous sample: Slurm's own
                # requeue of a batch job missing from its node after a crash keeps the comment
                # of an older reclaim.
                reclaimed_at = max(self._log_times(job_id, "reclaimed"), default=0.0)
                if reclaimed_at < since:
                    continue
                self.reclaims += 1
                for family, (partitions, unit, _) in families.items():
                    if old.get("Partition") in partitions:
                        taken[(old.get("Account", "").lower(), family)] += alloc(old, unit)
                        reclaimed[(old.get("Account", "").lower(), family)].append(reclaimed_at)
            for key, amount in taken.items():
                quota = quotas.get(key, (None, 0))[1]
                left = before_use[key] - amount
                if left < quota:
                    left += self.started_before_reclaim(key, min(reclaimed[key]), running,
                                                        before_running, families)
                if left < quota:
                    self.violate(f"quota: share {key[0]} reclaimed in {key[1]} to {left} "
                                 f"(ran {before_use[key]}, quota {quota})")
        # loop: Restarts growing too often
        for job_id, job in jobs.items():
            restarts = int(job.get("Restarts", "0") or 0)
            grew = restarts - self.restarts.get(job_id, restarts)
            self.restarts[job_id] = restarts
            if grew > 0:
                times = self.preemptions[job_id]
                times.extend([now] * grew)
                recent = [t for t in times if now - t <= LOOP_WINDOW]
                if len(recent) > MAX_PREEMPTIONS:
                    self.violate(f"loop: job {job_id} requeued {len(recent)} times in "
                                 f"{LOOP_WINDOW:.0f}s")
        # twice: more processes than nodes, or any while slurmctld has the job pending
        for job_id, n in procs.items():
            job = jobs.get(job_id)
            if job is None:
                continue
            nodes = int(job.get("NumNodes", "1").split("-")[0] or 1)
            if n > nodes:
                what = f"twice: job {job_id} runs in {n} processes on {nodes} node(s)"
                if not self.slurm_crash_window("twice", job_id, what):
                    self.violate(what)
            # Pending in two samples in a row while its script still runs: the job would start
            # again beside its old self. (A requeued job's script may take KillWait to end;
            # slurmctld shows it COMPLETING, then PENDING once its nodes have let it go.)
            # After a crash of slurmctld, a job it had just started may be recovered PENDING
            # (the allocation was not yet in its state file) while its script still runs, until
            # the node registers and slurmctld kills it ("Registered PENDING JobId=N StepId=
            # N.batch on node" in its log): Slurm's own recovery, allowed for RECOVERY_GRACE
            # seconds after slurmctld answers again; a second process of the job never is.
            if job["JobState"] == "PENDING" and job_id in self.previous.get("pending", set()):
                recovering = (self.last_restart is not None
                              and now - self.last_restart <= RECOVERY_GRACE)
                if recovering:
                    self.recovered_pending.add(job_id)
                else:
                    self.violate(f"twice: job {job_id} is pending in slurmctld and its script runs")
        self.previous = {"use": use, "running": running, "at": now, "wall": wall,
                         "pending": {j for j, r in jobs.items() if r["JobState"] == "PENDING"}}

    def check_files(self):
        for node in sorted((self.c.dir / "nodes").glob("*")):
            cache = node / "images" / "sha256"
            if cache.is_dir():
                for f in cache.iterdir():
                    if not re.fullmatch(r"[0-9a-f]{64}", f.name):
                        continue  # a download in progress has another name
                    try:
                        size = f.stat().st_size
                        key = (str(f), size)
                        if key in self.hashed:
                            continue
                        h = hashlib.sha256()
                        with open(f, "rb") as fh:
                            for chunk in iter(lambda: fh.read(1 << 20), b""):
                                h.update(chunk)
                    except FileNotFoundError:
                        continue  # evicted meanwhile
                    self.hashed[key] = True
                    if h.hexdigest() != f.name:
                        self.violate(f"cache: {f} hashes to {h.hexdigest()}")
            warm = node / "warm"
            if warm.is_dir():
                for d in warm.iterdir():
                    try:
                        st = d.lstat()
                    except FileNotFoundError:
                        continue
                    if not stat.S_ISDIR(st.st_mode):
                        continue
                    if d.name == ".trash":  # the sweep's, root's: what it holds no user reaches
                        if st.st_mode & 0o077 or st.st_uid != 0:
                            self.violate(f"warm: {d} mode {stat.S_IMODE(st.st_mode):o} owner "
                                         f"{st.st_uid}: not root's alone")
                        continue
                    if st.st_mode & 0o077 or st.st_uid == 0:
                        self.violate(f"warm: {d} mode {stat.S_IMODE(st.st_mode):o} owner "
                                     f"{st.st_uid}: others may reach it")

    # ---- the end ---------------------------------------------------------------------------
    def final_check(self, timeout=120):
        """After the faults: every submitted job is known to slurmctld or ended in slurmdbd."""
        deadline = time.monotonic() + timeout
        records = None
        while records is None and time.monotonic() < deadline:
            records = self.jobs()
            if records is None:
                time.sleep(0.5)
        assert records is not None, "slurmctld does not answer after the faults"
        lost = []
        for job_id in sorted(self.submitted):
            if (("lost", job_id)) in self.crash_window:
                continue  # named in crash_window
            name = self.submitted_at.get(job_id, (0, None))[1]
            if job_id in records:
                if name and records[job_id][0].get("JobName") != name:
                    lost.append(job_id)
                continue
            rows = self.c.sacct(job_id, ["State"])
            states = {r["State"].split()[0] for r in rows}
            if not states & TERMINAL:
                lost.append(job_id)
        for job_id in lost:
            what = f"lost: job {job_id} is in neither slurmctld nor slurmdbd's ended jobs"
            if not self.slurm_crash_window("lost", job_id, what):
                self.violate(what)
        return [j for j in lost if ("lost", j) not in self.crash_window]

    def summary(self):
        with self.lock:
            return (f"{self.samples} samples ({self.down_samples} with slurmctld down), "
                    f"{len(self.submitted)} jobs, {self.reclaims} reclaim victims, "
                    f"{len(self.recovered_pending)} job(s) recovered pending while their script "
                    f"ran {sorted(self.recovered_pending)}, {len(self.violations)} violations; "
                    f"in Slurm's crash window (kill -9 within {SAVE_WINDOW:.0f}s of a submission "
                    f"or start): {len([k for k in self.crash_window if k[0] == 'lost'])} lost, "
                    f"{len([k for k in self.crash_window if k[0] == 'twice'])} ran twice "
                    f"{sorted(self.crash_window.values())}")
