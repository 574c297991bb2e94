"""Slurm's backfill scheduler over jobs shareq keeps waiting.

Backfill releases slurmctld's locks every `bf_yield_interval` and, unless `bf_continue` is set,
breaks its cycle off when the job table changed meanwhile (`last_job_update`): a site with a deep
queue then never gets through it. Slurm moves `last_job_update` when jobs change, not when a
waiting job's reason words do. From 23.02 Slurm's main scheduler resets every refused job's reason
(Resources, Priority) at each pass, and shareq puts its words back: that must not count as a
change of the job table either.

Family p4 (slurm-conf/shareq.conf) counts nodes, capacity 4: prodexp1 and prodexp2 have a quota
of 2 nodes each.
"""

import re

import pytest

from slurm import wait_until


def sdiag(c):
    out = c.run(["sdiag"])
    assert out.returncode == 0, out.stderr
    return out.stdout


def backfill_count(text, label):
    """A count of sdiag's backfill sections ("Backfilling stats" to the end)."""
    section = text[text.find("Backfilling stats"):]
    m = re.search(rf"^\s*{re.escape(label)}:\s*(\d+)", section, re.M)
    assert "Backfilling stats" in text and m, f"sdiag shows no backfill {label!r}:\n{text}"
    return int(m.group(1))


def node_job(c, user, account, script="sleep 300"):
    return c.sbatch(user, "-p", "p4", "-N1", "--exclusive", f"-A{account}", script=script)


@pytest.mark.every_release
def test_backfill_cycles_over_refused_jobs_are_not_broken_off_when_nothing_changes(clean_queue):
    """p4 full, 30 jobs waiting; a main scheduling pass every 2 s refuses them all, and backfill
    yields its locks after each job it tests, for 0.1 s. Nothing starts or ends, so no backfill
    cycle may end with "System state changed" (sdiag). Before the fix shareq moved
    `last_job_update` at each pass on 24.11 (its words written again after Slurm reset them, and
    put back by priority/shareq's ranking pass, which runs beside backfill), and every cycle was
    broken off after 2-5 of the 30 jobs. (Not a test for the stock plugins: their cycles are
    broken off here too. Without shareq's bf_min_prio_reserve, Slurm's main pass itself moves
    last_job_update for the jobs behind one it could not start in a partition.)"""
    c = clean_queue
    if "Backfill exit" not in sdiag(c):
        pytest.skip("this release's sdiag does not say why backfill cycles end (from 23.02)")
    running = [node_job(c, "alice", "prodexp1") for _ in range(2)]
    running += [node_job(c, "bob", "prodexp2") for _ in range(2)]
    for job in running:
        c.wait_state(job, "RUNNING")
    waiting = [node_job(c, "bob", "prodexp2") for _ in range(30)]
    wait_until("every extra job of prodexp2 waiting with a reason",
               lambda: all(c.job_state(j) == "PENDING" and c.reason(j) not in ("", "None")
                           for j in waiting))

    def yielding_often(text):
        line = re.search(r"^SchedulerParameters=.*$", text, re.M).group(0)
        return text.replace(line, line + ",sched_interval=2,bf_yield_interval=1,"
                                         "bf_yield_sleep=100000")

    with c.slurm_conf_edited(yielding_often):
        assert c.run(["sdiag", "-r"]).returncode == 0
        wait_until("three backfill cycles",
                   lambda: backfill_count(sdiag(c), "Total cycles") >= 3, timeout=180)
        text = sdiag(c)
        assert all(c.job_state(j) == "RUNNING" for j in running), "a running job changed"
        assert all(c.job_state(j) == "PENDING" for j in waiting), "a waiting job changed"
    assert backfill_count(text, "System state changed") == 0, text
