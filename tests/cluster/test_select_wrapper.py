"""select/shareq_cons_tres wraps select/cons_tres: everything cons_tres does must keep working."""

import pytest

from slurm import parse_scontrol_record, wait_until

# cons_tres's own behaviour must hold with and without the wrapper.
pytestmark = pytest.mark.stock_too


@pytest.mark.every_release
def test_slurmctld_runs_the_shareq_select_plugin(cluster):
    config = cluster.scontrol("show", "config")
    if cluster.stock:
        pytest.skip("cluster runs Slurm's stock plugins (SHAREQ_STOCK=1)")
    assert "select/shareq_cons_tres" in config


def alloc_tres(info):
    """The job's allocated TRES: scontrol shows TRES= in 22.05, AllocTRES= (and ReqTRES=) in 24.11."""
    return info["AllocTRES"] if "AllocTRES" in info else info["TRES"]


@pytest.mark.every_release
def test_gpu_job_on_two_nodes_gets_eight_gpus_each(clean_queue):
    c = clean_queue
    out = c.jobs_dir / "gpu2.out"
    job = c.sbatch("bob", "-A", "research", "-p", "p5", "-N", "2", "--gres=gpu:8",
                   "-o", str(out),
                   script="srun --ntasks-per-node=1 bash -c 'echo $(hostname) $SLURM_STEP_GPUS'")
    info = c.wait_state(job, "COMPLETED")
    assert info["NumNodes"] == "2"
    assert "gres/gpu=16" in alloc_tres(info)
    lines = out.read_text().split("\n")
    assert sum(1 for line in lines if line.endswith("0,1,2,3,4,5,6,7")) == 2, lines


@pytest.mark.every_release
def test_a_reservation_by_node_count_in_a_gpu_partition_is_made_and_used(clean_queue):
    """`scontrol create reservation NodeCnt=1` in a family's partition. From 23.02 Slurm picks a
    reservation's nodes through select's job_test, with a stand-in record of no job (id 0, no
    account): shareq must leave that to cons_tres, not refuse it as a job of no share ("Requested
    nodes are busy"). A job of a share then runs on the reserved node."""
    c = clean_queue
    name = "shareq_nodecnt"
    c.run(["scontrol", "delete", f"ReservationName={name}"])  # left by an aborted run
    made = c.run(["scontrol", "create", "reservation", f"ReservationName={name}",
                  "StartTime=now", "Duration=10", "NodeCnt=1", "PartitionName=p5", "Users=bob"])
    try:
        assert made.returncode == 0, made.stderr
        resv = parse_scontrol_record(c.scontrol("-o", "show", "reservation", name).splitlines()[0])
        assert resv["NodeCnt"] == "1", resv
        job = c.sbatch("bob", "-A", "research", "-p", "p5", f"--reservation={name}",
                       "--gres=gpu:2", script="true")
        info = c.wait_state(job, "COMPLETED")
        assert info["NodeList"] == resv["Nodes"], (info, resv)
    finally:
        c.run(["scontrol", "delete", f"ReservationName={name}"])


def test_gpus_flag_is_honoured(clean_queue):
    c = clean_queue
    job = c.sbatch("bob", "-A", "research", "-p", "p5", "--gpus=12", script="true")
    info = c.wait_state(job, "COMPLETED")
    assert "gres/gpu=12" in alloc_tres(info)
    assert int(info["NumNodes"]) >= 2


@pytest.mark.every_release
def test_srun_steps_inside_a_batch_job(clean_queue):
    c = clean_queue
    out = c.jobs_dir / "steps.out"
    job = c.sbatch("alice", "-A", "prodexp1", "-p", "p4", "-N", "3", "-o", str(out),
                   script="srun -N3 --ntasks-per-node=1 hostname; srun -N1 -n1 echo step-two")
    c.wait_state(job, "COMPLETED")
    steps = c.run(["sacct", "-n", "-P", "-j", str(job), "-o", "JobID,State"]).stdout
    assert f"{job}.0|COMPLETED" in steps and f"{job}.1|COMPLETED" in steps, steps
    assert "step-two" in out.read_text()


def test_qos_preemption_requeues_the_low_job(clean_queue):
    """Under preempt/qos (SHAREQ_STOCK=1) the wrapper must keep QOS preemption working; under
    preempt/shareq, preemption is shareq's reclaim and in-share rules (test_quota_shares.py)."""
    c = clean_queue
    if not c.stock:
        pytest.skip("QOS preemption applies with preempt/qos (SHAREQ_STOCK=1)")
    low = c.sbatch("alice", "-A", "prodexp1", "-p", "p4", "-N", "4", "--exclusive", "--qos=low", "--requeue",
                   script="sleep 300")
    c.wait_state(low, "RUNNING")
    high = c.sbatch("bob", "-A", "prodexp2", "-p", "p4", "-N", "4", "--exclusive", "--qos=high",
                    script="sleep 1")
    c.wait_state(high, ["RUNNING", "COMPLETED"], timeout=60)
    wait_until("the low job to be requeued",
               lambda: c.job(low) and int(c.job(low).get("Restarts", "0")) >= 1, timeout=60)
    c.wait_state(high, "COMPLETED")
    c.wait_state(low, "RUNNING", timeout=120)


def test_running_jobs_survive_a_slurmctld_restart(clean_queue):
    c = clean_queue
    jobs = [c.sbatch("alice", "-A", "prodexp1", "-p", "p4", "-N", "2", script="sleep 20"),
            c.sbatch("bob", "-A", "research", "-p", "p5", "--gres=gpu:8", "-N", "2",
                     script="sleep 20")]
    nodes_before = {}
    for job in jobs:
        nodes_before[job] = c.wait_state(job, "RUNNING")["NodeList"]
    c.restart_slurmctld()
    for job in jobs:
        info = c.job(job)
        assert info is not None, f"job {job} lost across the restart"
        assert info["JobState"] in ("RUNNING", "COMPLETED")
        assert info["NodeList"] == nodes_before[job]
    # New work is still placed after the restart.
    after = c.sbatch("alice", "-A", "prodexp2", "-p", "p5", "--gres=gpu:4", script="true")
    c.wait_state(after, "COMPLETED")
    for job in jobs:
        c.wait_state(job, "COMPLETED", timeout=60)
