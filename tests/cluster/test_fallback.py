"""Fallback to a compatible family (Family=p5 ... Fallback=p4, FallbackDelay) on the real cluster.

p5 (32 GPUs) falls back to p4 (4 nodes of 8 GPUs). ProdExp2 has a quota in both; Research only in
p5. Each test fills p5 with ProdExp2's own jobs (it may borrow all of it), so that one more
ProdExp2 job cannot start there and nothing may be reclaimed (ReclaimMinRuntime is long).
The last tests hold a job that fell back to p4's own rules: its borrow limit there, and reclaim
by a share within its p4 quota (with ReclaimMinRuntime=0; Research, the only share that could
reclaim in p5, runs nothing there).
"""

import re
import time

import pytest

from slurm import RUNNING_STATES, wait_until

DELAY = 15

CONF = """
Family=p5 Partitions=p5 Capacity=gres/gpu=32 {fallback}
Family=p4 Partitions=p4 Capacity=node=4
Share=ProdExp1 Family=p4 Quota=node=2
Share=ProdExp2 Family=p4 Quota=node=2 {prodexp2_in_p4}
Share=ProdExp2 Family=p5 Quota=gres/gpu=16
Share=Research Family=p5 Quota=gres/gpu=16
ReclaimMinRuntime={min_runtime}
ReclaimAfter=0
FallbackDelay={delay}
"""


def conf(fallback="Fallback=p4", delay=DELAY, prodexp2_in_p4="", min_runtime=3600):
    return CONF.format(fallback=fallback, delay=delay, prodexp2_in_p4=prodexp2_in_p4,
                       min_runtime=min_runtime)


@pytest.fixture
def saturated(own_shareq_conf):
    """p5 full of ProdExp2's four 8-GPU jobs; the cluster's own shareq.conf put back after."""
    c = own_shareq_conf
    return c, saturate(c, conf())


def saturate(c, text):
    """Installs shareq.conf `text` and fills p5 with ProdExp2's four 8-GPU jobs; returns them."""
    c.install_shareq_conf(text)
    fill = [gpu_job(c, "prodexp2") for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    return fill


def gpu_job(c, share, *extra, script="sleep 300"):
    return c.sbatch("bob", "-p", "p5", "--gres=gpu:8", "-N", "1", f"--share={share}",
                    "--requeue", *extra, script=script)


def eligible_at(c, job):
    """When the job became eligible (scontrol's EligibleTime), in epoch seconds."""
    text = c.job(job)["EligibleTime"]
    return int(c.run(["date", "-d", text, "+%s"]).stdout.strip())


def started_at(c, job):
    return int(c.run(["date", "-d", c.job(job)["StartTime"], "+%s"]).stdout.strip())


def slurm_series(c):
    """The cluster's Slurm (major, minor), from `squeue --version` ("slurm 24.11.5")."""
    version = c.run(["squeue", "--version"]).stdout.split()[-1]
    return tuple(int(part) for part in version.split(".")[:2])


def partition_priorities(c, job):
    """A pending job's priority in each of its partitions, as `squeue -P` shows them from the
    job's per-partition priorities (24.11; Slurm queues the job at them)."""
    out = c.run(["squeue", "-h", "-P", "-j", str(job), "-o", "%P %Q"]).stdout
    return {part: int(prio) for part, prio in (line.split() for line in out.splitlines())}


@pytest.mark.every_release
def test_a_job_falls_back_after_its_delay_and_not_before(saturated):
    c, _ = saturated
    job = gpu_job(c, "prodexp2")
    assert c.job(job)["Partition"] == "p5,p4", c.job(job)
    # squeue and shareq why say when it may fall back (on 24.11 Slurm drops shareq's words after
    # each refusal and shareq puts them back: docs/slurm-releases.md).
    wait_until(f"job {job} to say when it may fall back",
               lambda: "may start in family p4 in" in c.reason(job), timeout=30)
    assert "it may start here from" in c.shareq("why", str(job)).stdout
    assert c.job_state(job) == "PENDING"
    if slurm_series(c) >= (24, 11):  # 22.05's squeue -P shows the job's one priority everywhere
        # Queued last in p4 until its delay has passed, at its priority in p5's family there.
        prio = partition_priorities(c, job)
        assert prio["p4"] == 1 and prio["p5"] > 1, prio
    c.wait_state(job, RUNNING_STATES, timeout=DELAY + 40)
    info = c.job(job)
    assert info["Partition"] == "p4", info
    assert started_at(c, job) - eligible_at(c, job) >= DELAY
    assert "shareq: fell back from p5 to p4 after" in info.get("SystemComment", ""), info
    # The word slurmdbd keeps with the run, for shareq-exporter's shareq_fallbacks_total.
    assert f"shareq-fallback:saturated,from:p5,at:{started_at(c, job)}" in info["AdminComment"], info
    # It runs as a job of its share in p4: usage 1 node of ProdExp2's quota there.
    p4 = c.shareq_status("p4")
    assert p4["by_share"]["prodexp2"]["usage"] == 1, p4


def test_a_job_starts_at_home_when_its_family_frees_up_within_the_delay(saturated):
    c, fill = saturated
    job = gpu_job(c, "prodexp2")
    wait_until(f"job {job} to wait for p5", lambda: "may start in family p4" in c.reason(job),
               timeout=30)
    c.run(["scancel", str(fill[0])])
    info = c.wait_state(job, RUNNING_STATES, timeout=DELAY)
    assert info["Partition"] == "p5", info
    assert "fell back" not in info.get("SystemComment", "")


def test_fallback_no_keeps_a_job_in_its_family(saturated):
    c, _ = saturated
    job = gpu_job(c, "prodexp2", "--fallback=no")
    assert c.job(job)["Partition"] == "p5"
    deadline = time.monotonic() + DELAY + 10
    while time.monotonic() < deadline:
        assert c.job_state(job) == "PENDING"
        time.sleep(1)
    assert "may start in family" not in c.reason(job)


def test_a_share_falls_back_only_where_it_has_a_quota(saturated):
    c, _ = saturated
    job = gpu_job(c, "research")
    assert c.job(job)["Partition"] == "p5"  # Research has no Share= line in p4
    bad = c.sbatch("bob", "-p", "p5", "--gres=gpu:8", "--share=prodexp2", "--fallback=maybe",
                   expect_ok=False)
    assert bad.returncode != 0
    assert "--fallback: \"maybe\" is not a choice; allowed: yes, no" in bad.stderr, bad.stderr


def test_a_slurmctld_restart_does_not_start_the_delay_again(saturated):
    c, _ = saturated
    job = gpu_job(c, "prodexp2")
    eligible = eligible_at(c, job)
    wait_until("the job to wait a moment", lambda: time.time() >= eligible + 2, timeout=DELAY)
    c.restart_slurmctld()
    # The restarted controller's decision: the fallback opens DELAY after the job became
    # eligible, not after the restart (which would be at least 2 s later).
    why = c.shareq("why", str(job)).stdout
    opens = re.search(r"it may start here from (\S+ \S+)", why)
    assert opens, why
    assert int(c.run(["date", "-d", opens.group(1), "+%s"]).stdout) == eligible + DELAY, \
        (why, eligible)
    c.wait_state(job, RUNNING_STATES, timeout=DELAY + 40)
    assert c.job(job)["Partition"] == "p4"
    assert started_at(c, job) >= eligible + DELAY


def test_an_account_update_keeps_a_pending_job_a_fallback_job(own_shareq_conf):
    """`scontrol update JobId=N Account=research` on a pending ProdExp2 job that may fall back:
    its tag keeps home=p5 (and its partitions), so it still waits FallbackDelay at home, then
    falls back to p4 as a job of Research (with a quota there for this test). Without home= it
    would be a job that chose p5 and p4 itself and start in p4 at once."""
    c = own_shareq_conf
    saturate(c, conf().replace("Share=ProdExp1 Family=p4 Quota=node=2",
                               "Share=ProdExp1 Family=p4 Quota=node=1")
             + "Share=Research Family=p4 Quota=node=1\n")
    job = gpu_job(c, "prodexp2", script="sleep 120")
    info = c.job(job)
    assert info["Partition"] == "p5,p4" and ",home=p5" in info["AdminComment"], info
    out = c.run(["scontrol", "update", f"JobId={job}", "Account=research"], user="bob")
    assert out.returncode == 0, out.stderr
    info = c.job(job)
    assert info["Account"] == "research", info
    assert info["AdminComment"].startswith("shareq:share=research,"), info
    assert ",home=p5" in info["AdminComment"], info
    assert info["Partition"] == "p5,p4", info
    wait_until(f"job {job} to say when it may fall back",
               lambda: "may start in family p4 in" in c.reason(job), timeout=30)
    assert c.job_state(job) == "PENDING", c.job(job)
    c.wait_state(job, RUNNING_STATES, timeout=DELAY + 40)
    info = c.job(job)
    assert info["Partition"] == "p4", info
    assert started_at(c, job) - eligible_at(c, job) >= DELAY
    assert "shareq: fell back from p5 to p4 after" in info.get("SystemComment", ""), info
    assert c.shareq_status("p4")["by_share"]["research"]["usage"] == 1


# ---- the fallback family's quota, borrow limit and reclaim (issue 15, point 2) -------------

def node_job(c, user, share):
    """A job of p4 alone (no fallback): one whole node."""
    return c.sbatch(user, "-p", "p4", "-N", "1", "--exclusive", f"--share={share}", "--requeue",
                    script="sleep 300")


def running_in(c, partition, jobs):
    return [job for job in jobs
            if c.job_state(job) in RUNNING_STATES and c.job(job)["Partition"] == partition]


def decision_in(c, job, family):
    """The `decision:` line of `shareq why JOB` for `family` (the scheduler's decide() there)."""
    out = c.shareq("why", str(job))
    assert out.returncode == 0, out.stderr
    m = re.search(rf"^family {family}:.*\n(?:  .*\n)*?  decision:\s+(.*)$", out.stdout, re.M)
    return m.group(1) if m else out.stdout


def restarts(c, job):
    return int(c.job(job).get("Restarts", "0"))


def test_a_borrow_limit_in_the_fallback_family_holds(own_shareq_conf):
    """ProdExp2 may use its quota of 2 nodes in p4 and borrow 1 more: of four jobs that fall
    back, three start in p4 and the fourth waits on p4's borrow limit, with a node idle."""
    c = own_shareq_conf
    saturate(c, conf(prodexp2_in_p4="BorrowLimit=node=1"))
    jobs = [gpu_job(c, "prodexp2") for _ in range(4)]
    started = wait_until("three of the four jobs to fall back to p4",
                         lambda: len(r := running_in(c, "p4", jobs)) == 3 and r,
                         timeout=DELAY + 40)
    [held] = [job for job in jobs if job not in started]
    # squeue shows the reason of the family Slurm tried last (here p5's, at capacity); shareq why
    # gives p4's, the one slurmctld gives when it tries the job in p4.
    wait_until(f"job {held} to wait in p4 on its borrow limit",
               lambda: decision_in(c, held, "p4") == "waits; slurmctld's reason: shareq: share "
               "prodexp2 at its borrow limit in p4 (borrowing 1/1 node)", timeout=30)
    assert c.reason(held).startswith("shareq: "), c.reason(held)
    assert c.job_state(held) == "PENDING", c.job(held)
    p4 = c.shareq_status("p4")
    share = p4["by_share"]["prodexp2"]
    assert (share["usage"], share["borrowed"], share["borrow_limit"]) == (3, 1, 1), p4
    idle = c.run(["sinfo", "-h", "-p", "p4", "-t", "idle", "-o", "%D"]).stdout.strip()
    assert idle == "1", "p4 has a node left that the borrow limit keeps the fourth job from"


def test_a_job_that_fell_back_and_borrows_is_reclaimed_like_any_borrower(own_shareq_conf):
    """ProdExp2 runs its quota of 2 nodes in p4 with jobs of p4 itself; a job that falls back
    borrows a third. ProdExp1, within its own quota, takes back that node: the fallback job is
    the one requeued (it is the borrowed capacity), ProdExp2's own p4 jobs keep running."""
    c = own_shareq_conf
    saturate(c, conf(min_runtime=0))
    at_quota = [node_job(c, "bob", "prodexp2") for _ in range(2)]
    for job in at_quota:
        c.wait_state(job, "RUNNING")
    fell_back = gpu_job(c, "prodexp2")
    c.wait_state(fell_back, RUNNING_STATES, timeout=DELAY + 40)
    assert c.job(fell_back)["Partition"] == "p4", c.job(fell_back)
    assert c.shareq_status("p4")["by_share"]["prodexp2"]["borrowed"] == 1

    owners = [node_job(c, "alice", "prodexp1") for _ in range(2)]
    for job in owners:
        c.wait_state(job, "RUNNING", timeout=60)
    wait_until(f"job {fell_back} to be requeued", lambda: restarts(c, fell_back) >= 1)
    victim = c.job(fell_back)
    assert victim["JobState"] == "PENDING", victim
    comment = victim.get("SystemComment", "")
    assert any(f"preempted by job {owner} (reclaim)" in comment for owner in owners), victim
    assert "share=prodexp2" in victim["AdminComment"], victim
    history = c.run(["sacct", "-n", "-P", "-D", "-X", "-j", str(fell_back), "-o", "State"])
    assert {"PREEMPTED", "REQUEUED"} & set(history.stdout.split()), history
    assert all(restarts(c, job) == 0 and c.job_state(job) == "RUNNING" for job in at_quota), \
        "ProdExp2's jobs within its p4 quota are not reclaimed"
