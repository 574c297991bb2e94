"""The shareq tool against the real cluster: status numbers, a why-explanation, warm pools.

Runs with the cluster's own shareq.conf (slurm-conf/shareq.conf): family p5 counts GPUs
(capacity 32), share research has a quota of 16 GPUs and BorrowLimit=50% (8), prodexp2 16.
"""

import json
import re

import pytest

from slurm import wait_until


def gpu_job(c, user, share, nodes, gpus_per_node, priority=50, script="sleep 300"):
    return c.sbatch(user, "-p", "p5", f"-N{nodes}", f"--gres=gpu:{gpus_per_node}",
                    f"--share={share}", f"--share-priority={priority}", script=script)


@pytest.mark.every_release
def test_status_and_why_for_a_share_at_quota_with_a_pending_job(clean_queue):
    c = clean_queue
    research = gpu_job(c, "bob", "research", 2, 8)          # 16 GPUs: its whole quota
    prodexp2 = gpu_job(c, "alice", "prodexp2", 1, 8)        # 8 of its 16
    c.wait_state(research, "RUNNING")
    c.wait_state(prodexp2, "RUNNING")
    # 16 more would make research borrow 16, twice its BorrowLimit of 8: it must wait, and with
    # the same priority as the running research job nothing is preempted in-share either.
    waiting = gpu_job(c, "bob", "research", 2, 8)
    wait_until("the pending job's shareq reason", lambda: c.reason(waiting).startswith("shareq:"))

    p5 = c.shareq_status("p5")
    assert (p5["capacity"], p5["used"], p5["idle"], p5["borrowed"]) == (32, 24, 8, 0)
    assert (p5["pending_jobs"], p5["demand"]) == (1, 16)
    r = p5["by_share"]["research"]
    assert (r["quota"], r["usage"], r["borrowed"], r["borrow_limit"]) == (16, 16, 0, 8)
    assert (r["running_jobs"], r["pending_jobs"], r["demand"]) == (1, 1, 16)
    p = p5["by_share"]["prodexp2"]
    assert (p["quota"], p["usage"], p["borrowed"], p["borrow_limit"]) == (16, 8, 0, None)

    table = c.shareq("status")
    assert table.returncode == 0, table.stderr
    assert re.search(r"^p5\s+gres/gpu\s+32\s+24\s+8\s+0\s+1\s+16$", table.stdout, re.M), table.stdout
    # QUOTA USAGE BORROWED BORROWLIMIT LENDLIMIT WEIGHT (BorrowWeight, 1 unset) RUNNING PENDING DEMAND
    assert re.search(r"^p5\s+research\s+16\s+16\s+0\s+8\s+UNLIMITED\s+1\s+1\s+1\s+16$",
                     table.stdout, re.M), table.stdout
    assert (r["borrow_weight"], p["borrow_weight"]) == (1, 1)

    why = c.shareq("why", str(waiting), user="bob")  # an ordinary user may ask
    assert why.returncode == 0, why.stderr
    text = why.stdout
    assert f"job {waiting}: PENDING, user bob, share research, priority 50" in text, text
    assert f"reason:       {c.reason(waiting)}\n" in text, text
    assert "family p5:    asks 16 GPUs, would borrow" in text, text
    assert ("family p5 has only 8 GPUs idle (24/32 GPUs used); share research holds 16 of its quota "
            "16; 16 GPUs would be borrowed, BorrowLimit 8; over its BorrowLimit") in text, text
    assert "1st of 1 pending jobs in p5" in text, text

    running = c.shareq("why", str(research))
    assert running.returncode == 0, running.stderr
    assert re.search(r"runs on:      p5n\S+ \(partition p5, family p5\), 16 GPUs", running.stdout)
    assert "share:        research holds 16 of its quota 16 in p5\n" in running.stdout
    assert "reclaim:      no: its share is within its quota" in running.stdout


@pytest.mark.every_release
def test_why_takes_an_array_task_as_squeue_names_it(clean_queue):
    """Hyper-parameter sweeps are job arrays, and squeue and sacct name their tasks JOBID_TASK:
    `shareq why` takes that name. A task that runs is explained as the job it is; a task still
    pending with the array's others (Slurm gives it a job id of its own only when it starts)
    through the array's pending record, saying so."""
    c = clean_queue
    fill = [gpu_job(c, "alice", "prodexp2", 2, 8), gpu_job(c, "bob", "research", 1, 8)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    # 8 GPUs idle: the first task fits research's quota and runs, the other two wait.
    array = c.sbatch("bob", "-p", "p5", "--array=1-3", "--gres=gpu:8", "--share=research",
                     script="sleep 300")

    def tasks():
        out = c.run(["squeue", "-h", "-r", "-j", str(array), "-o", "%i %T"]).stdout
        return dict(line.split() for line in out.splitlines())

    wait_until("the array's first task to run", lambda: tasks().get(f"{array}_1") == "RUNNING")
    first = c.shareq("why", f"{array}_1", user="bob")
    assert first.returncode == 0, first.stderr
    assert ": RUNNING, user bob, share research" in first.stdout, first.stdout
    assert "runs on:      p5n" in first.stdout, first.stdout
    second = c.shareq("why", f"{array}_2", user="bob")
    assert second.returncode == 0, second.stderr
    assert f"{array}_2 is still pending with the array's other pending tasks" in second.stdout, \
        second.stdout
    assert ": PENDING, user bob, share research" in second.stdout, second.stdout
    step = c.shareq("why", f"{array}_1.batch")
    assert step.returncode != 0 and "job step" in step.stderr, step.stderr
    gone = c.shareq("why", f"{array}_9")
    assert gone.returncode != 0 and f"no task 9 of job array {array}" in gone.stderr, gone.stderr


def test_why_shows_a_borrowing_job_can_be_reclaimed(clean_queue):
    c = clean_queue
    base = gpu_job(c, "alice", "prodexp2", 2, 8)   # prodexp2 at its quota of 16
    extra = gpu_job(c, "alice", "prodexp2", 1, 8)  # and 8 borrowed from research's idle quota
    c.wait_state(base, "RUNNING")
    c.wait_state(extra, "RUNNING")
    p = c.shareq_status("p5")["by_share"]["prodexp2"]
    assert (p["usage"], p["borrowed"], p["running_jobs"]) == (24, 8, 2)
    text = c.shareq("why", str(extra)).stdout
    assert "prodexp2 holds 24 of its quota 16 in p5: borrowing 8 GPUs" in text, text
    assert "reclaim:      yes: it borrows" in text, text
    assert "reclaim:      not this job" in c.shareq("why", str(base)).stdout


def test_unknown_job_and_unreachable_controller_are_clear_errors(cluster, tmp_path):
    out = cluster.shareq("why", "999999")
    assert out.returncode == 1
    assert "slurmctld does not know job 999999" in out.stderr
    # The same slurm.conf with a port nobody listens on (base + 14 is not used by the cluster).
    conf = (cluster.dir / "etc" / "slurm.conf").read_text()
    port = int(re.search(r"^SlurmctldPort=(\d+)", conf, re.M).group(1)) + 14
    (tmp_path / "slurm.conf").write_text(
        re.sub(r"^SlurmctldPort=\d+", f"SlurmctldPort={port}", conf, flags=re.M))
    tmp_path.chmod(0o755)
    out = cluster.run([str(cluster.build_dir / "tools" / "shareq"), "status", "--config",
                       str(cluster.dir / "etc" / "shareq.conf")],
                      env={"SLURM_CONF": str(tmp_path / "slurm.conf")})
    assert out.returncode == 1
    assert "shareq: status: slurmctld: cannot load jobs: Unable to contact slurm controller" \
        in out.stderr, out.stderr


def test_pools_lists_a_warm_pool(clean_queue):
    c = clean_queue
    job = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "-w", "p4n2", "--share=prodexp1",
                   "--keep-alive=300", script="true")
    c.wait_state(job, "COMPLETED")
    wait_until("p4n2 to show a warm pool", lambda: c.node_extra("p4n2").startswith("shareq:"))
    try:
        out = c.shareq("pools", "--json", user="alice")
        assert out.returncode == 0, out.stderr
        pools = json.loads(out.stdout)
        assert pools["problems"] == []
        mine = [p for p in pools["pools"] if p["nodes"] == ["p4n2"]]
        assert len(mine) == 1, pools
        pool = mine[0]
        assert (pool["status"], pool["user"], pool["account"]) == ("available", "alice", "prodexp1")
        assert 0 < pool["remaining_s"] <= 300
        assert "user=alice" in pool["key"]
        table = c.shareq("pools").stdout
        assert re.search(rf"^{pool['pool']}\s+available\s+alice/prodexp1\s+p4n2\s+\S+ \S+\s+\d+m",
                         table, re.M), table
    finally:
        # A job that does not match ends the pool (WarmPoolMode=prefer).
        other = c.sbatch("root", "-p", "p4", "-N1", "-w", "p4n2", "-A", "prodexp2", script="true")
        c.wait_state(other, "COMPLETED")
        wait_until("p4n2 to be cold", lambda: c.node_extra("p4n2") == "")
