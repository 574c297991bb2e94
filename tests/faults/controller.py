"""slurmctld as the fault tests read it: its log, and how long Slurm takes to notice a batch job
that its node no longer runs."""

import re

# Slurm ends a batch job that its node no longer runs when the node registers, but only once
# BatchStartTimeout + MessageTimeout (10 + 10 s on the test cluster) have passed since the job was
# last seen; a restart of slurmctld counts as seen (job_mgr.c, _purge_missing_jobs).
CRASH_WINDOW_S = 22
MISSING_FROM_NODE = re.compile(r"Batch JobId=\d+ missing from batch node")


def log_size(c):
    return (c.dir / "log" / "slurmctld.log").stat().st_size


def log_since(c, offset):
    with open(c.dir / "log" / "slurmctld.log", "rb") as f:
        f.seek(offset)
        return f.read().decode(errors="replace")
