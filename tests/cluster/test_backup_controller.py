"""A backup controller (SlurmctldHost twice) on the real cluster.

The cluster's slurm.conf gains a backup controller at 127.0.0.2 for each test; each slurmctld runs
in namespaces of its own (tests/cluster/lib/daemons.sh, start_controller) so that both can bind
SlurmctldPort. A backup that hands control back goes on in the same process, and Slurm calls the
priority plugin's fini then and its init at the next takeover: what shareq keeps in slurmctld's
memory (the warm-pool registry) must be read again from StateSaveLocation at that takeover, not
kept from the backup's first time in control. A primary that dies runs no fini at all: what it
knew must be on disk already. Every wait is bounded.
"""

import os
import re
import signal
import time

import pytest

from slurm import run_each, wait_until
from test_warm_pools import end_pools, make_pool, publish

BACKUP_HOST = "SlurmctldHost=shareq-backup(127.0.0.2)"


def with_backup_controller(text):
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("SlurmctldHost="))
    lines.insert(first + 1, BACKUP_HOST)
    lines.append("CommunicationParameters=NoCtldInAddrAny")
    # The backup takes over a primary that stopped answering after this long (30 s otherwise).
    lines = [line for line in lines if not line.startswith("SlurmctldTimeout=")]
    lines.append("SlurmctldTimeout=6")
    return "\n".join(lines) + "\n"


def both_up(c):
    out = c.run(["scontrol", "ping"]).stdout
    return bool(re.search(r"\(primary\) at \S+ is UP", out)
                and re.search(r"\(backup\) at shareq-backup is UP", out))


def in_control(c, role):
    """How often ROLE's slurmctld has said that it is in control: each logs "Running as primary
    controller" at every takeover (22.05 and 24.11)."""
    log = "slurmctld-backup.log" if role == "backup" else "slurmctld.log"
    return (c.dir / "log" / log).read_text(errors="replace").count("Running as primary controller")


@pytest.fixture
def two_controllers(clean_queue):
    """The cluster with a backup controller for one test, no warm pool left from an earlier one;
    then one controller again."""
    c = clean_queue
    end_pools(c)
    conf = c.dir / "etc" / "slurm.conf"
    original = conf.read_text()
    conf.write_text(with_backup_controller(original))
    try:
        c.controller("stop", "primary")
        c.controller("start", "primary")
        c.controller("start", "backup")
        c.scontrol("reconfigure")  # the slurmds learn the backup's address
        wait_until("both controllers to answer scontrol ping", lambda: both_up(c))
        yield c
    finally:
        # A test that failed mid-takeover can leave no controller answering, and cancel_all then
        # times out: the controllers are stopped and slurm.conf restored all the same.
        run_each(c.cancel_all,
                 lambda: c.controller("stop", "backup"),
                 lambda: c.controller("stop", "primary"),
                 lambda: conf.write_text(original),
                 c.restart_slurmctld,
                 lambda: c.scontrol("reconfigure"))


def take_over(c):
    """`scontrol takeover`, waited for until the backup says it runs as primary once more. From
    Slurm 24.11 the request is refused while the primary has not yet written its heartbeat file
    after a start; that refusal, and only that, is asked again (bounded)."""
    before = in_control(c, "backup")

    def accepted():
        out = c.run(["scontrol", "takeover"])
        if out.returncode == 0:
            return True
        assert "heartbeat file is missing" in out.stderr, f"scontrol takeover failed: {out.stderr}"
        return None

    wait_until("scontrol takeover to be accepted", accepted)
    wait_until("the backup controller to take control", lambda: in_control(c, "backup") > before)


@pytest.mark.every_release
def test_a_backup_taking_control_again_knows_the_pools_made_while_it_stood_by(two_controllers):
    c = two_controllers
    publish(c, "warm-ha")

    # The backup's first time in control: it runs a job, so it has read shareq's state.
    take_over(c)
    first = c.sbatch("alice", "-p", "p4", "-N1", script="true")
    c.wait_state(first, "COMPLETED")

    # The primary comes back; the backup hands control to it and stands by, in the same process.
    c.controller("start", "primary")
    wait_until("both controllers to answer scontrol ping", lambda: both_up(c))
    make_pool(c, "alice", "warm-ha")

    # The backup's second time in control: the pool made meanwhile is one it knows.
    take_over(c)
    job = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "--image=warm-ha", script="true")
    info = c.wait_state(job, "COMPLETED")
    assert info["NodeList"] == "p4n3", info
    assert "warm start on wp-" in info["SystemComment"], info


@pytest.mark.every_release
def test_a_backup_taking_over_from_a_killed_primary_knows_its_pools(two_controllers):
    c = two_controllers
    publish(c, "warm-hb")
    origin = make_pool(c, "alice", "warm-hb")
    # A primary killed saves nothing more. Slurm saves its job state, and shareq its pools, off
    # slurmctld's locks moments after a change: until both are on disk, the backup finds no pool,
    # or finds the pool's job still pending and runs it again, onto the pool, ahead of this test's
    # job (seen on 24.11: the backup reran JobId=38 warm and the test's job started cold). Both
    # saves are waited for before the kill; a job's end alone need not make Slurm save its job
    # state, a submission does (a held job, which never runs).
    ended_by = time.time()
    spool = c.dir / "spool" / "ctld"
    pools = spool / "shareq_warm_pools"
    wait_until("the primary to write the pool to StateSaveLocation",
               lambda: pools.exists() and f" origin={origin} " in pools.read_text())
    c.sbatch("alice", "-p", "p4", "-N1", "--hold", script="true")
    wait_until("the primary to save its job state after the pool's job ended",
               lambda: (spool / "job_state").stat().st_mtime > ended_by)

    before = in_control(c, "backup")
    primary = int((c.dir / "run" / "slurmctld.pid").read_text())
    os.kill(primary, signal.SIGKILL)
    wait_until("the backup controller to take control", lambda: in_control(c, "backup") > before)
    job = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "--image=warm-hb", script="true")
    info = c.wait_state(job, "COMPLETED")
    assert info["NodeList"] == "p4n3", info
    assert "warm start on wp-" in info["SystemComment"], info
