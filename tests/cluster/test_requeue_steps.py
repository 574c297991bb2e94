"""A requeued batch job's killed batch step shows in sacct as stock Slurm shows it: CANCELLED,
killed by signal 15 (ExitCode 0:15), never FAILED with exit code 15 (Slurm's test12.7,
docs/compatibility.md). Both ways shareq's jobs are requeued while running: `scontrol requeue`
and a reclaim by in-share priority preemption (PreemptMode=REQUEUE).

The job scripts `exec` their sleep, so that the step's task is the one process killed. With a
shell that waits for a child (`--wrap="sleep 300"`, as test12.7 submits), Slurm's own
proctrack/linuxproc (the test cluster's) races: it signals the step's processes one at a time,
the deepest first, and when the shell reaps its killed child before its own SIGTERM arrives, it
exits 143, which sacct shows as FAILED 15:0. That happens with Slurm's stock plugins too, about as
often (docs/compatibility.md, test12.7); it is not what these tests are about.
"""

import pytest

from slurm import wait_until

KILLED_BATCH_STEP = {"State": "CANCELLED", "ExitCode": "0:15"}

# Research alone in p5, 16 GPUs and no borrowing: two 8-GPU jobs fill its quota, so a third of a
# higher priority preempts (requeues) the lower of the two.
IN_SHARE_PREEMPTION = """
Family=p4 Partitions=p4 Capacity=node=4
Family=p5 Partitions=p5 Capacity=gres/gpu=32
Share=ProdExp1 Family=p4 Quota=node=2
Share=ProdExp2 Family=p4 Quota=node=2
Share=ProdExp2 Family=p5 Quota=gres/gpu=16
Share=Research Family=p5 Quota=gres/gpu=16 BorrowLimit=gres/gpu=0
DefaultPriority=50
InSharePreemption=yes
ReclaimMinRuntime=0
ReclaimAfter=0
PreemptGraceTime=0
"""


def ended_batch_steps(c, job_id):
    """The job's batch steps that have ended, oldest first, from `sacct -D` (every run). A
    requeue (or preemption) first records the running batch step REQUEUED (PREEMPTED) with the
    job (slurmctld, at once); the step's own end (slurmstepd's, after the kill) replaces it, so
    that first record is not yet its end."""
    out = c.run(["sacct", "-n", "-P", "-D", "-j", str(job_id), "-o", "JobID,State,ExitCode"])
    assert out.returncode == 0, out.stderr
    rows = [dict(zip(("JobID", "State", "ExitCode"), line.split("|")))
            for line in out.stdout.splitlines() if line]
    return [{"State": r["State"], "ExitCode": r["ExitCode"]} for r in rows
            if r["JobID"] == f"{job_id}.batch" and
            r["State"] not in ("RUNNING", "PENDING", "REQUEUED", "PREEMPTED")]


def first_ended_batch_step(c, job_id):
    steps = wait_until(f"job {job_id}'s killed batch step in sacct -D",
                       lambda: ended_batch_steps(c, job_id))
    return steps[0]


def batch_step_running(c, job_id):
    """Whether the job's batch step is recorded as running (so that requeueing kills it)."""
    out = c.run(["sacct", "-n", "-P", "-j", f"{job_id}.batch", "-o", "State"])
    return "RUNNING" in out.stdout.split()


# One process: the task itself is killed by SIGTERM (see the module's docstring).
SLEEPER = "exec sleep 300"


@pytest.mark.stock_too
def test_scontrol_requeue_of_a_running_batch_job_shows_its_batch_step_cancelled(clean_queue):
    c = clean_queue
    job = c.sbatch("alice", "-A", "prodexp1", "-p", "p4", "-N", "1", "--requeue",
                   script=SLEEPER)
    c.wait_state(job, "RUNNING")
    wait_until(f"job {job}'s batch step to run", lambda: batch_step_running(c, job))

    c.scontrol("requeue", str(job))

    assert first_ended_batch_step(c, job) == KILLED_BATCH_STEP


def test_a_batch_job_requeued_by_in_share_preemption_shows_its_batch_step_cancelled(
        own_shareq_conf):
    c = own_shareq_conf
    c.install_shareq_conf(IN_SHARE_PREEMPTION)

    def gpu_job(priority):
        return c.sbatch("bob", "-p", "p5", "--gres=gpu:8", "--share=research",
                        f"--share-priority={priority}", "--requeue", script=SLEEPER)

    low, other = gpu_job(10), gpu_job(20)
    for job in (low, other):
        c.wait_state(job, "RUNNING")
    wait_until(f"job {low}'s batch step to run", lambda: batch_step_running(c, low))

    gpu_job(90)

    assert first_ended_batch_step(c, low) == KILLED_BATCH_STEP
    assert ended_batch_steps(c, other) == [], "only the lowest priority job is preempted"
