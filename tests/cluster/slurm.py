"""A small driver for Slurm's own commands, as users alice and bob would run them."""

import contextlib
import json
import os
import pathlib
import re
import subprocess
import time
import uuid

DEFAULT_TIMEOUT = 60.0
POLL_INTERVAL = 0.25
# A running job shows SIGNALING while slurmctld delivers a signal to it (a preemption's SIGTERM
# at the start of its grace time): it is still running.
RUNNING_STATES = ("RUNNING", "SIGNALING")


class WaitTimeout(AssertionError):
    pass


def wait_until(what, predicate, timeout=DEFAULT_TIMEOUT):
    """Polls predicate() until it returns a true value, which is returned; fails after timeout."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(POLL_INTERVAL)
    raise WaitTimeout(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


def run_each(*steps):
    """Runs every step, also those after one that failed, then raises the first failure: a
    teardown puts the cluster back whatever went wrong before it (a step left undone, such as a
    controller left running or a test's configuration left installed, fails every later test)."""
    failures = []
    for step in steps:
        try:
            step()
        except Exception as e:  # noqa: BLE001 -- the first is raised once every step has run
            failures.append(e)
    if failures:
        raise failures[0]


def parse_scontrol_record(text):
    """Parses one `scontrol show -o` line into a dict (values may contain spaces only at the end)."""
    fields = {}
    # Keys are CamelCase words followed by '='; values run to the next " Key=".
    for match in re.finditer(r"(\S+?)=(.*?)(?=\s\S+?=|$)", text.strip()):
        fields[match.group(1)] = match.group(2)
    return fields


class Cluster:
    def __init__(self, script, env, build_dir):
        self.script = script
        self.dir = pathlib.Path(env["SHAREQ_CLUSTER_DIR"])
        self.build_dir = build_dir
        self.env = dict(os.environ)
        self.env.update(env)
        for key in [k for k in self.env if k.startswith(("SHAREQ_SHARE", "SHAREQ_IMAGE",
                                                          "SHAREQ_KEEP_ALIVE", "SLURM_JOB",
                                                          "SBATCH_", "SALLOC_", "SRUN_"))]:
            del self.env[key]
        self.jobs_dir = self.dir / "jobs"
        self.stock = os.environ.get("SHAREQ_STOCK") == "1"

    # ---- running commands -------------------------------------------------------------
    def run(self, args, user="root", env=None, timeout=60, input=None):
        """Runs a command as `user` in the jobs directory; returns CompletedProcess (no check)."""
        full_env = dict(self.env)
        if env:
            full_env.update(env)
        cmd = list(args)
        if user != "root":
            # runuser keeps the environment (SLURM_CONF, SHAREQ_*) apart from HOME, USER, SHELL.
            cmd = ["runuser", "-u", user, "--", *cmd]
        return subprocess.run(cmd, env=full_env, cwd=self.jobs_dir, capture_output=True,
                              text=True, timeout=timeout, input=input)

    def scontrol(self, *args):
        out = self.run(["scontrol", *args])
        assert out.returncode == 0, f"scontrol {' '.join(args)} failed: {out.stderr}"
        return out.stdout

    @contextlib.contextmanager
    def slurm_conf_edited(self, edit):
        """slurm.conf as `edit(text)` returns it, slurmctld reconfigured, for the block; then the
        file back and slurmctld reconfigured again, however the block ends."""
        path = self.dir / "etc" / "slurm.conf"
        original = path.read_text()
        edited = edit(original)
        assert edited != original, "the edit changes nothing in slurm.conf"
        path.write_text(edited)
        try:
            self.scontrol("reconfigure")
            yield
        finally:
            path.write_text(original)
            self.scontrol("reconfigure")

    def node_extra(self, node):
        """The node's Extra field ("" when unset): where shareq marks warm pools."""
        m = re.search(r"\bExtra=(\S*)", self.scontrol("-o", "show", "node", node))
        return m.group(1) if m and m.group(1) != "(null)" else ""

    def shareq(self, *args, user="root"):
        """The shareq tool of the build under test."""
        return self.run([str(self.build_dir / "tools" / "shareq"), *args], user=user)

    def shareq_status(self, family):
        """`shareq status --family FAMILY --json`'s family, with its shares also by name."""
        out = self.shareq("status", "--family", family, "--json")
        assert out.returncode == 0, out.stderr
        status = json.loads(out.stdout)["families"][0]
        status["by_share"] = {s["share"]: s for s in status["shares"]}
        return status

    # ---- jobs ---------------------------------------------------------------------------
    def reason(self, job_id):
        """The job's reason as `squeue -o %r` shows it."""
        return self.run(["squeue", "-h", "-j", str(job_id), "-o", "%r"]).stdout.strip()

    def sbatch(self, user, *args, script="true", env=None, expect_ok=True):
        """Submits a job whose script runs `script`; returns the job id (or the process)."""
        name = f"t{uuid.uuid4().hex[:8]}"
        out = self.run(["sbatch", "--parsable", f"--job-name={name}", "-o", "/dev/null",
                        *args, f"--wrap={script}"], user=user, env=env)
        if not expect_ok:
            return out
        assert out.returncode == 0, f"sbatch {args} as {user} failed: {out.stderr}"
        return int(out.stdout.strip().split(";")[0])

    def job(self, job_id):
        """The job's `scontrol show job` fields, or None when slurmctld no longer knows it."""
        out = self.run(["scontrol", "-o", "show", "job", str(job_id)])
        if out.returncode != 0 or not out.stdout.strip():
            return None
        return parse_scontrol_record(out.stdout.splitlines()[0])

    def job_state(self, job_id):
        job = self.job(job_id)
        return job["JobState"] if job else None

    def wait_state(self, job_id, states, timeout=DEFAULT_TIMEOUT):
        states = {states} if isinstance(states, str) else set(states)
        wait_until(f"job {job_id} to be {sorted(states)}",
                   lambda: self.job_state(job_id) in states and self.job_state(job_id),
                   timeout)
        return self.job(job_id)

    def sacct(self, job_id, fields):
        """The job's own sacct record (not its steps) as a dict of the requested fields."""
        out = self.run(["sacct", "-n", "-X", "-P", "-j", str(job_id), "-o", ",".join(fields)])
        assert out.returncode == 0, out.stderr
        rows = [line.split("|") for line in out.stdout.splitlines() if line]
        return [dict(zip(fields, row)) for row in rows]

    def wait_sacct(self, job_id, field, value, timeout=DEFAULT_TIMEOUT):
        def matches():
            rows = self.sacct(job_id, [field])
            return rows and rows[-1][field] == value and rows
        return wait_until(f"sacct {field}={value} for job {job_id}", matches, timeout)

    def cancel_all(self):
        self.run(["scancel", "--quiet", "--full", "--user=alice"])
        self.run(["scancel", "--quiet", "--full", "--user=bob"])
        self.run(["scancel", "--quiet", "--full", "--user=root"])
        wait_until("the queue to be empty",
                   lambda: self.run(["squeue", "-h", "-o", "%i"]).stdout.strip() == "",
                   timeout=DEFAULT_TIMEOUT)

    # ---- shareq ---------------------------------------------------------------------------
    CONFIG_LOADED = "shareq.conf: loaded (version "
    CONFIG_KEPT = "keeping the previous good configuration"

    def _log_count(self, needle):
        return (self.dir / "log" / "slurmctld.log").read_text(errors="replace").count(needle)

    def log_offset(self, daemon="slurmctld"):
        """Where `daemon`'s log ends now: log_since() reads only what is written after it, so a
        check cannot be met by a line an earlier test (or run of the suite) left."""
        return (self.dir / "log" / f"{daemon}.log").stat().st_size

    def log_since(self, offset, daemon="slurmctld"):
        with open(self.dir / "log" / f"{daemon}.log", "rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")

    def install_shareq_conf(self, text, expect_good=True):
        """Writes shareq.conf, runs `scontrol reconfigure`, waits until slurmctld has read it."""
        needle = self.CONFIG_LOADED if expect_good else self.CONFIG_KEPT
        before = self._log_count(needle)
        path = self.dir / "etc" / "shareq.conf"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(path)  # a new inode: the change is seen even within one second
        self.scontrol("reconfigure")
        wait_until(f"slurmctld to log {needle!r}", lambda: self._log_count(needle) > before)

    def share_raw_usage(self, share):
        out = self.run(["sshare", "-n", "-P", "-A", share, "-o", "Account,User,RawUsage"])
        assert out.returncode == 0, out.stderr
        for line in out.stdout.splitlines():
            account, user, raw = line.strip().split("|")
            if account.strip() == share and not user:
                return int(raw)
        raise AssertionError(f"sshare has no row for {share}: {out.stdout}")

    def restart_slurmctld(self):
        out = subprocess.run([str(self.script), "restart-slurmctld"], env=self.env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr

    def controller(self, action, role):
        """`cluster start-controller|stop-controller ROLE` (ROLE primary or backup): a slurmctld
        of a slurm.conf with a backup controller, each in namespaces of its own."""
        out = subprocess.run([str(self.script), f"{action}-controller", role], env=self.env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
