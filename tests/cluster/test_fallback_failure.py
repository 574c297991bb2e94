"""A job whose node fails under it (issue 15, point 3) on the real cluster.

Family p5 falls back to p4 with a long FallbackDelay, so a job that starts in p4 at once can only
have done so because its last run failed. A node "dies": its slurmd and the job's steps on it are
killed, and slurmctld is told the node is DOWN, as a site's node monitoring tells it (Slurm itself
would after SlurmdTimeout, 60 s here, on the same path: kill_running_job_by_node_name(), which
ends the run NODE_FAIL and requeues the batch job).
"""

import re
import signal
import subprocess

import pytest

from slurm import wait_until

DELAY = 600  # far longer than any test: a start in p4 is never the delay's doing


def failure_conf(c, max_requeues):
    """The cluster's own shareq.conf (Hardware= and all), with p5 falling back to p4."""
    text = (c.dir / "etc" / "shareq.conf").read_text()
    text = re.sub(r"^(Family=p5 .*)$", r"\1 Fallback=p4", text, count=1, flags=re.M)
    return text + f"FallbackDelay={DELAY}\nMaxFallbackRequeues={max_requeues}\n"


@pytest.fixture
def dead_nodes(own_shareq_conf):
    """Nodes a test kills (kill_node); afterwards each has its slurmd again and is resumed."""
    c = own_shareq_conf
    killed = []
    yield c, killed
    c.cancel_all()
    for node in killed:
        out = c.run(["/usr/sbin/slurmd", "-N", node])
        assert out.returncode == 0, out.stderr
        c.run(["scontrol", "update", f"NodeName={node}", "State=RESUME"])
    for node in killed:
        wait_until(f"{node} to be idle",
                   lambda n=node: "State=IDLE" in c.scontrol("-o", "show", "node", n),
                   timeout=90)


def kill_node(c, killed, node, job):
    """The node dies under `job`: its slurmd and the job's steps are killed (SIGKILL), and
    slurmctld is told the node is DOWN."""
    pid = int((c.dir / "run" / f"slurmd-{node}.pid").read_text().strip())
    killed.append(node)
    subprocess.run(["kill", "-KILL", str(pid)], check=True)
    subprocess.run(["pkill", f"-{signal.SIGKILL.value}", "-f", rf"slurmstepd: \[{job}\."],
                   check=False)
    c.scontrol("update", f"NodeName={node}", "State=DOWN", "Reason=shareq test: node killed")


def gpu_job(c, *extra, share="prodexp2", script="sleep 300"):
    return c.sbatch("bob", "-p", "p5", "--gres=gpu:8", "-N", "1", f"--share={share}",
                    "--requeue", *extra, script=script)


def runs(c, job):
    """Each run of the job as `sacct -D` records it: (partition, state, nodes)."""
    out = c.run(["sacct", "-n", "-X", "-D", "-P", "-j", str(job), "-o",
                 "Partition,State,NodeList"])
    assert out.returncode == 0, out.stderr
    return [tuple(line.split("|")) for line in out.stdout.splitlines() if line]


def run_started(c, job, previous_nodes):
    """Waits for the job to run again, on other nodes than its last run; returns its record."""
    return wait_until(
        f"job {job} to run again",
        lambda: (lambda j: j and j["JobState"] == "RUNNING" and j["NodeList"] != previous_nodes
                 and j)(c.job(job)),
        timeout=90)


@pytest.mark.every_release
def test_a_job_whose_node_fails_falls_back_at_once_and_not_to_that_node(dead_nodes):
    c, killed = dead_nodes
    c.install_shareq_conf(failure_conf(c, max_requeues=3))
    fill = [gpu_job(c) for _ in range(4)]  # p5 full: the requeued job cannot start at home
    for job in fill:
        c.wait_state(job, "RUNNING")
    job = fill[0]
    node = c.job(job)["NodeList"]
    kill_node(c, killed, node, job)

    again = run_started(c, job, node)
    assert again["Partition"] == "p4", again
    assert node in again["ExcNodeList"], again
    assert (f"shareq: run 1 ended: node {node} failed (NODE_FAIL); requeued, may fall back at once"
            in again["SystemComment"]), again["SystemComment"]
    assert (f"shareq: fell back from p5 to p4 after node {node} failed (NODE_FAIL)"
            in again["SystemComment"]), again["SystemComment"]
    assert f"shareq-failed:node_fail,nodes:{node},requeue:1" in again["AdminComment"], again
    assert f"shareq-fallback:node_fail,from:p5,at:" in again["AdminComment"], again
    # sacct -D: the failed run in p5, the next in p4 (slurmdbd records a run's partition list
    # with the one it ran in first: "p5,p4").
    history = wait_until("sacct to have both runs", lambda: len(runs(c, job)) >= 2 and runs(c, job),
                         timeout=60)
    (first_partitions, first_state, first_nodes), last = history[0], history[-1]
    assert (first_partitions.split(",")[0], first_state, first_nodes) == ("p5", "NODE_FAIL", node), \
        history
    assert (last[0].split(",")[0], last[1]) == ("p4", "RUNNING"), history


def test_a_job_is_held_after_max_fallback_requeues_failed_runs(dead_nodes):
    c, killed = dead_nodes
    c.install_shareq_conf(failure_conf(c, max_requeues=1))
    job = gpu_job(c)
    first = c.wait_state(job, "RUNNING")["NodeList"]
    kill_node(c, killed, first, job)
    # One requeue is allowed: it runs again, at home in p5 (which has room), not on `first`.
    second = run_started(c, job, first)
    assert second["Partition"] == "p5" and second["NodeList"] != first, second
    kill_node(c, killed, second["NodeList"], job)

    held = f"shareq: held after 2 failed runs (MaxFallbackRequeues=1): node {first} failed " \
           f"(NODE_FAIL); node {second['NodeList']} failed (NODE_FAIL); scontrol release {job} " \
           "runs it again"
    wait_until(f"job {job} to be held", lambda: c.reason(job) == held and c.reason(job),
               timeout=60)
    record = c.job(job)
    assert record["JobState"] == "PENDING" and record["Priority"] == "0", record
    # Its owner may release it; it then runs on neither failed node.
    out = c.run(["scontrol", "release", str(job)], user="bob")
    assert out.returncode == 0, out.stderr
    third = run_started(c, job, second["NodeList"])
    assert third["NodeList"] not in (first, second["NodeList"]), third
