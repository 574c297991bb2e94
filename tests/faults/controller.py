"""slurmctld as the fault tests read it: its log, how long Slurm takes to notice a batch job that
its node no longer runs, and what an admin does once it can (settle_crash_window)."""

import datetime
import re
import time

from slurm import WaitTimeout, wait_until
from storm import resume_drained

# Slurm ends a batch job that its node no longer runs when the node registers, but only once
# BatchStartTimeout + MessageTimeout (10 + 10 s on the test cluster) have passed since the job was
# last seen; a restart of slurmctld counts as seen (job_mgr.c, _purge_missing_jobs).
CRASH_WINDOW_S = 22
MISSING_FROM_NODE = re.compile(r"Batch JobId=\d+ missing from batch node")


def ghosts(checker):
    """Jobs slurmctld lists as RUNNING, started more than 5 s ago, whose script runs nowhere
    (None when slurmctld does not answer)."""
    records = checker.jobs()
    if records is None:
        return None
    scripts = checker.job_processes()
    now = time.time()
    return sorted(job for job, recs in records.items()
                  if recs[0]["JobState"] == "RUNNING" and job not in scripts
                  and started_before(recs[0], now - 5))


def started_before(job, when):
    try:
        return datetime.datetime.fromisoformat(job.get("StartTime", "")).timestamp() < when
    except ValueError:
        return False


def settle_crash_window(c, checker, since):
    """What an admin does after a crash (of slurmctld, or of a slurmd during a job's prolog),
    once Slurm can tell (CRASH_WINDOW_S after `since`, a time.monotonic()): `scontrol
    reconfigure`, on which every slurmd registers, so that a job whose end the crash lost (a
    ghost: listed RUNNING, holding its node, its script gone) is ended or requeued; then nodes
    drained with "Duplicate jobid" are resumed. Returns slurmctld's log from the reconfigure on
    (MISSING_FROM_NODE finds the jobs it ended or requeued)."""
    time.sleep(max(0.0, since + CRASH_WINDOW_S - time.monotonic()))  # Slurm's timer
    offset = c.log_offset()
    c.scontrol("reconfigure")
    try:
        wait_until("the jobs whose end the crash lost to be ended", lambda: ghosts(checker) == [],
                   timeout=60)
    except WaitTimeout:
        print(f"still listed RUNNING without a script after the registrations: {ghosts(checker)}")
    resume_drained(c)
    return c.log_since(offset)
