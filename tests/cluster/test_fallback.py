"""Fallback to a compatible family (Family=p5 ... Fallback=p4, FallbackDelay) on the real cluster.

p5 (32 GPUs) falls back to p4 (4 nodes of 8 GPUs). ProdExp2 has a quota in both; Research only in
p5. Each test fills p5 with ProdExp2's own jobs (it may borrow all of it), so that one more
ProdExp2 job cannot start there and nothing may be reclaimed (ReclaimMinRuntime is long).
"""

import time

import pytest

from slurm import RUNNING_STATES, wait_until

DELAY = 15

CONF = """
Family=p5 Partitions=p5 Capacity=gres/gpu=32 {fallback}
Family=p4 Partitions=p4 Capacity=node=4
Share=ProdExp1 Family=p4 Quota=node=2
Share=ProdExp2 Family=p4 Quota=node=2
Share=ProdExp2 Family=p5 Quota=gres/gpu=16
Share=Research Family=p5 Quota=gres/gpu=16
ReclaimMinRuntime=3600
ReclaimAfter=0
FallbackDelay={delay}
"""


def conf(fallback="Fallback=p4", delay=DELAY):
    return CONF.format(fallback=fallback, delay=delay)


@pytest.fixture(autouse=True)
def needs_shareq_plugins(cluster):
    if cluster.stock:
        pytest.skip("cluster runs Slurm's stock plugins (SHAREQ_STOCK=1)")


@pytest.fixture
def saturated(own_shareq_conf):
    """p5 full of ProdExp2's four 8-GPU jobs; the cluster's own shareq.conf put back after."""
    c = own_shareq_conf
    c.install_shareq_conf(conf())
    fill = [gpu_job(c, "prodexp2") for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    return c, fill


def gpu_job(c, share, *extra, script="sleep 300"):
    return c.sbatch("bob", "-p", "p5", "--gres=gpu:8", "-N", "1", f"--share={share}",
                    "--requeue", *extra, script=script)


def eligible_at(c, job):
    """When the job became eligible (scontrol's EligibleTime), in epoch seconds."""
    text = c.job(job)["EligibleTime"]
    return int(c.run(["date", "-d", text, "+%s"]).stdout.strip())


def started_at(c, job):
    return int(c.run(["date", "-d", c.job(job)["StartTime"], "+%s"]).stdout.strip())


@pytest.mark.every_release
def test_a_job_falls_back_after_its_delay_and_not_before(saturated):
    c, _ = saturated
    job = gpu_job(c, "prodexp2")
    assert c.job(job)["Partition"] == "p5,p4", c.job(job)
    # shareq why says when it may fall back on every release (24.11's squeue shows Resources).
    wait_until(f"shareq why {job} to say when it may fall back",
               lambda: "it may start here from" in c.shareq("why", str(job)).stdout, timeout=30)
    assert c.job_state(job) == "PENDING"
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
    wait_until("half the delay to pass", lambda: time.time() >= eligible + DELAY / 2,
               timeout=DELAY)
    c.restart_slurmctld()
    c.wait_state(job, RUNNING_STATES, timeout=DELAY + 40)
    assert c.job(job)["Partition"] == "p4"
    # Started from its eligible time, not from the restart (which would be >= restart + DELAY).
    assert started_at(c, job) < eligible + DELAY + DELAY / 2, (started_at(c, job), eligible)
