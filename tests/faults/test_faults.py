"""Faults at seeded random moments during a reclaim storm with warm pools (storm.py), under the
invariant checker (invariants.py). Each test takes --rounds (SHAREQ_FAULT_ROUNDS) and draws every
random choice from --fault-seed (SHAREQ_FAULT_SEED), which it prints. Every wait is bounded; the
sleeps are the faults' random moments, not waits for a condition.
"""

import os
import re
import signal
import subprocess
import time

from controller import MISSING_FROM_NODE, settle_crash_window
from invariants import TERMINAL
from slurm import WaitTimeout, wait_until

STATE_FILES = ("shareq_usage", "shareq_warm_pools", "shareq_reclaim_claims")
STATE_DAMAGE = ("truncated", "empty", "garbage", "unwritable")
# What slurmctld says it starts from when a state file cannot be read, on the line naming it.
STARTS_FROM = {
    "shareq_usage": "usage starts from zero",
    "shareq_warm_pools": "starting with no warm pools",
    "shareq_reclaim_claims": "the jobs that were waiting for their victims are decided afresh",
}


def ctld_pid(c):
    return int((c.dir / "run" / "slurmctld.pid").read_text())


def kill9_slurmctld(c, checker):
    checker.ctld_killed()
    pid = ctld_pid(c)
    os.kill(pid, signal.SIGKILL)
    wait_until("slurmctld to be gone", lambda: not os.path.exists(f"/proc/{pid}"), timeout=30)


def stop_slurmctld(c):
    pid = ctld_pid(c)
    os.kill(pid, signal.SIGTERM)
    wait_until("slurmctld to stop", lambda: not os.path.exists(f"/proc/{pid}"), timeout=60)


def wait_reclaims(checker, more_than, timeout=120):
    wait_until(f"more than {more_than} reclaim(s) in the storm",
               lambda: checker.reclaims > more_than, timeout=timeout)


def storm_rounds(checked, rounds, rng, pause):
    """Starts the storm, waits for its first reclaim, then yields each round's index after a
    random pause of 0.5 to PAUSE s (the fault's moment). Yields (r, reclaims so far)."""
    _, checker, storm = checked
    storm.start()
    wait_reclaims(checker, 0)
    for r in range(rounds):
        time.sleep(rng.uniform(0.5, pause))
        yield r, checker.reclaims


def wait_scheduling(c, storm, timeout=120):
    """After the faults, with the storm stopped and the borrowers cancelled: a job submitted now
    starts (or has run)."""
    storm.stop()
    c.run(["scancel", "--user=alice"])
    job = storm.submit("bob", "-p", "p4", "-N1", "-A", "prodexp2", seconds=1)
    assert job is not None, "slurmctld refused a submission after the fault"
    wait_until(f"job {job} to run", lambda: c.job_state(job) in
               ("RUNNING", "COMPLETING", "COMPLETED"), timeout=timeout)


# What slurmctld logs when a reclaim preempts a job, and when it starts one (main pass,
# backfill) or reclaims.
RECLAIMED_LOG = re.compile(r"preempts JobId=\d+ \(reclaim\)")
SCHEDULED = re.compile(r"sched: Allocate JobId=|_start_job: Started JobId=|"
                       + RECLAIMED_LOG.pattern)


def print_jobs_and_nodes(c):
    """Every job slurmctld has not yet ended, with its reason, and every node's state."""
    for cmd in (["squeue", "-o", "%i %u %a %P %T %S %N %b %r"],
                ["sinfo", "-N", "-o", "%N %T %E"]):
        print(c.run(cmd).stdout)


def wait_scheduled_since(c, checker, offset, timeout=120):
    """Waits until slurmctld, in its log from OFFSET on, starts a job or reclaims: it schedules
    again after a restart. Nothing to start or reclaim is allowed only when no share waits within
    its quota while another runs over its own (Slurm's crash window can fill every family with
    jobs that ended before a kill; docs/reliability.md): then every job's state and reason and
    every node's state are printed and the test goes on; else it fails."""
    try:
        wait_until("slurmctld to start a job or reclaim after the restart",
                   lambda: SCHEDULED.search(c.log_since(offset)), timeout=timeout)
        return
    except WaitTimeout:
        owed = checker.reclaim_owed()
        print_jobs_and_nodes(c)
        if owed != []:
            raise
    print(f"nothing started or reclaimed in {timeout} s, and nothing was owed: every family is "
          "held by shares within their quotas (above)")


def test_kill9_slurmctld_during_a_reclaim_storm(checked, rounds, rng):
    """kill -9 of slurmctld at random moments of the storm, started again as the harness does:
    no job lost, none running twice, capacity and quotas kept; after each restart, once Slurm's
    crash window is settled (settle_crash_window), slurmctld schedules again (a start or a
    reclaim) and reclaims again within two minutes, every round.

    Slurm's crash window: a job whose end the kill lost comes back RUNNING and holds its node
    until the node registers, and a job id given twice drains a node with "Duplicate jobid".
    Unsettled, they take capacity from the storm round by round, until nothing is left to
    reclaim (seen in a 50-round soak, docs/reliability.md)."""
    c, checker, storm = checked
    ended_in_all = 0
    for r, _ in storm_rounds(checked, rounds, rng, 8.0):
        kill9_slurmctld(c, checker)
        time.sleep(rng.uniform(0.0, 3.0))
        offset = c.log_offset()
        c.restart_slurmctld()
        restarted_at = time.monotonic()
        checker.ctld_restarted()
        reclaims = checker.reclaims
        ended = len(MISSING_FROM_NODE.findall(settle_crash_window(c, checker, restarted_at)))
        ended_in_all += ended
        wait_scheduled_since(c, checker, offset)
        try:
            wait_reclaims(checker, reclaims)
        except WaitTimeout:
            print_jobs_and_nodes(c)
            raise
        print(f"round {r + 1}: slurmctld killed and started again; {ended} job(s) whose end the "
              f"kill lost ended at registration; {checker.reclaims - reclaims} reclaim victim(s)")
    print(f"jobs whose end a kill lost, ended by their node's registration: {ended_in_all}")
    wait_scheduling(c, storm)


def damage(path, how, rng):
    """Damages a state file as HOW says; 'unwritable' puts a non-empty directory in its place
    (root may write any file whatever its mode; no rename replaces a non-empty directory)."""
    text = path.read_bytes() if path.is_file() else b""
    if how == "truncated":
        path.write_bytes(text[: rng.randrange(max(1, len(text)))])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(b"\x00\xff not a shareq state file \x7f" + os.urandom(64) + b"\n")
    elif how == "unwritable":
        path.unlink(missing_ok=True)
        path.mkdir()
        (path / "blocker").write_text("a directory where the state file goes\n")
    else:
        raise ValueError(how)


def said_damaged(log, path, starts_from):
    """Whether one line of LOG names the state file PATH and says what slurmctld starts from."""
    return any(f"{path}:" in line and starts_from in line for line in log.splitlines())


def wait_written(c, name, offset, what, written, timeout=90):
    """Waits until written() (slurmctld wrote the state file NAME, or said it cannot). The
    reclaim claims are written only when a claim changes: with no reclaim in slurmctld's log from
    OFFSET on (a storm left with nothing to reclaim by Slurm's crash window, docs/reliability.md)
    there is nothing to write, and that is printed; a reclaim without the write fails."""
    try:
        wait_until(what, written, timeout=timeout)
        return
    except WaitTimeout:
        if name != "shareq_reclaim_claims":
            raise
    if RECLAIMED_LOG.search(c.log_since(offset)):
        # A reclaim near the deadline: its claim is saved right after it.
        wait_until(f"{what} after a reclaim", written, timeout=15)
        return
    print(f"no reclaim in {timeout} s: {name} had nothing to save ({what})")


def test_damaged_state_files_then_slurmctld_restarted(checked, rounds, rng):
    """Each of shareq's state files truncated, emptied, filled with garbage or made unwritable
    while slurmctld is stopped (kill -9 or SIGTERM), then started (and reconfigured): it starts,
    names a truncated, empty or garbage file in its log and says on that line what it starts from
    instead (STARTS_FROM), goes on scheduling, and loses no job.
    After a kill -9, Slurm's crash window is settled as in the kill -9 test, so that the storm
    goes on."""
    c, checker, storm = checked
    state = c.dir / "spool" / "ctld"
    storm.start()
    wait_reclaims(checker, 0)
    for r in range(rounds):
        for how in rng.sample(STATE_DAMAGE, len(STATE_DAMAGE)):
            name = rng.choice(STATE_FILES)
            path = state / name
            time.sleep(rng.uniform(0.5, 4.0))
            killed = rng.random() < 0.5
            if killed:
                kill9_slurmctld(c, checker)
            else:
                checker.ctld_stopping()
                stop_slurmctld(c)
            damage(path, how, rng)
            offset = c.log_offset()
            c.restart_slurmctld()
            restarted_at = time.monotonic()
            checker.ctld_restarted()
            if rng.random() < 0.5:
                c.scontrol("reconfigure")
            if killed:  # else nothing was lost: SIGTERM saves everything
                settle_crash_window(c, checker, restarted_at)
            print(f"round {r + 1}: {name} {how}{' (kill -9)' if killed else ''}")
            if how in ("garbage", "truncated", "empty"):  # each format tells all three
                wait_until(f"slurmctld to name the damaged {name} and say what it starts from",
                           lambda: said_damaged(c.log_since(offset), path, STARTS_FROM[name]),
                           timeout=60)
            if how == "unwritable":
                wait_written(c, name, offset, f"slurmctld to say it cannot save {name}",
                             lambda: f"{path}" in c.log_since(offset)
                             and "cannot rename into place" in c.log_since(offset))
                freed = c.log_offset()
                (path / "blocker").unlink()
                path.rmdir()
                wait_written(c, name, freed, f"{name} to be saved again", path.is_file)
            assert "slurmctld: running" in c.run([str(c.script), "status"]).stdout
    wait_scheduling(c, storm)


BROKEN_CONFS = {
    "a number that is not one": lambda t: t.replace("Capacity=node=4", "Capacity=node=four"),
    "an unknown key": lambda t: t + "ReclaimAfterr=5\n",
    "a quota of a family not defined": lambda t: t + "Share=Research Family=p9 Quota=node=1\n",
    "garbage bytes": lambda t: "\x00\x01 not a configuration \x7f\n",
    "a bad unit": lambda t: t.replace("Quota=gres/gpu=12", "Quota=parsecs=12", 1),
}


def test_reconfigure_with_a_broken_shareq_conf_mid_storm(checked, rounds, rng):
    """`scontrol reconfigure` with a broken shareq.conf: slurmctld keeps running with the old
    configuration (the checker holds it to the old capacities and quotas), logs a clear error
    naming the file, and takes the fixed file at the next reconfigure."""
    c, checker, storm = checked
    good = (c.dir / "etc" / "shareq.conf").read_text()
    storm.start()
    wait_reclaims(checker, 0)
    for r in range(rounds):
        for what in rng.sample(sorted(BROKEN_CONFS), len(BROKEN_CONFS)):
            time.sleep(rng.uniform(0.5, 4.0))
            offset = c.log_offset()
            c.install_shareq_conf(BROKEN_CONFS[what](good), expect_good=False)
            said = c.log_since(offset)
            assert "etc/shareq.conf" in said and "error" in said, said[-2000:]
            c.run(["scontrol", "ping"]).check_returncode()
            print(f"round {r + 1}: {what}: kept the previous configuration")
            time.sleep(rng.uniform(0.5, 4.0))
            c.install_shareq_conf(good)
    wait_scheduling(c, storm)


def cluster_command(c, *args, timeout=180):
    """`tests/cluster/cluster ARGS` (stop-accounting, start-accounting, restart-munge)."""
    out = subprocess.run([str(c.script), *args], env=c.env, capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, f"cluster {' '.join(args)}: {out.stderr}"


def ended_in_sacct(c, job_id):
    rows = c.sacct(job_id, ["State"])
    return bool({r["State"].split()[0] for r in rows} & TERMINAL)


def test_accounting_down_for_a_minute_mid_storm(checked, rounds, rng):
    """slurmdbd and MariaDB stopped mid-storm for a minute (SHAREQ_FAULT_DB_DOWN_S): slurmctld
    keeps accepting jobs and reclaiming, and once both are back, a job that was submitted,
    started and ended while they were down is in sacct with its end."""
    c, checker, storm = checked
    down_s = float(os.environ.get("SHAREQ_FAULT_DB_DOWN_S", "60"))
    for r, _ in storm_rounds(checked, rounds, rng, 6.0):
        cluster_command(c, "stop-accounting")
        stopped = time.monotonic()
        assert c.run(["sacct", "-n", "-X", "-j", "1"]).returncode != 0, \
            "sacct still answers: accounting is not down"
        reclaims, refused = checker.reclaims, storm.refused
        # A job submitted, started and ended while slurmdbd is down.
        short = storm.submit("bob", "-p", "p5", "-N1", "--gres=gpu:2", "-A", "research",
                             seconds=1)
        assert short is not None, "slurmctld refused a job while accounting was down"
        wait_until(f"job {short} to run and end while accounting is down",
                   lambda: c.job_state(short) == "COMPLETED", timeout=max(5, down_s - 5))
        wait_reclaims(checker, reclaims, timeout=max(5, down_s - (time.monotonic() - stopped)))
        assert storm.refused == refused, \
            "slurmctld refused the storm's jobs while accounting was down"
        time.sleep(max(0.0, down_s - (time.monotonic() - stopped)))  # the fault's length
        cluster_command(c, "start-accounting")
        print(f"round {r + 1}: slurmdbd and MariaDB down for {time.monotonic() - stopped:.0f} s; "
              f"{checker.reclaims - reclaims} reclaim victim(s) meanwhile")
        wait_until(f"job {short}, ended while accounting was down, to be in sacct",
                   lambda: ended_in_sacct(c, short), timeout=120)
    wait_scheduling(c, storm)


def test_munge_restarted_mid_storm(checked, rounds, rng):
    """munged stopped and started again (same key) mid-storm: the daemons and commands
    authenticate again, submissions are accepted and reclaims go on."""
    c, checker, storm = checked
    for r, reclaims in storm_rounds(checked, rounds, rng, 6.0):
        cluster_command(c, "restart-munge")
        job = storm.submit("bob", "-p", "p5", "-N1", "--gres=gpu:2", "-A", "research", seconds=1)
        assert job is not None, "slurmctld refused a job after munged restarted"
        wait_until(f"job {job} to run after munged restarted",
                   lambda: c.job_state(job) in ("RUNNING", "COMPLETING", "COMPLETED"),
                   timeout=120)
        print(f"round {r + 1}: munged restarted")
        wait_reclaims(checker, reclaims)
    wait_scheduling(c, storm)
