"""The node hardware check (issue 15) on the real cluster.

The harness gives each slurmd its own hwloc XML topology ($D/topology/NODE.xml, named to the SPANK
plugin by plugstack.conf's hwloc_xml=): a two-socket node with 96 cores and 8 NVIDIA GPUs, which
family p5's Hardware=gpus=8,numa=2,cores=96 expects. A test rewrites one node's file with a GPU
missing: the job prolog drains that node with shareq's reason and the job does not run there.
"""

import re
import subprocess

import pytest

from slurm import wait_until

NODE = "p5n4"
MISSING_GPU = "shareq: hardware: 7 GPUs found, family p5 expects 8"


def topology(c, gpus):
    out = subprocess.run([str(c.build_dir / "tests" / "cluster" / "topology_xml"), str(gpus)],
                         capture_output=True, text=True, check=True)
    return out.stdout


def node_line(c, node):
    return c.scontrol("-o", "show", "node", node)


def node_check(c, node, *args):
    return c.run([str(c.build_dir / "tools" / "shareq"), "node-check", *args],
                 env={"SLURMD_NODENAME": node, "HWLOC_THISSYSTEM": "1",
                      "HWLOC_XMLFILE": str(c.dir / "topology" / f"{node}.xml")})


@pytest.fixture
def node_missing_a_gpu(clean_queue):
    """p5n4 with 7 GPUs; afterwards its 8 again, resumed and idle."""
    c = clean_queue
    path = c.dir / "topology" / f"{NODE}.xml"
    path.write_text(topology(c, 7))
    yield c
    path.write_text(topology(c, 8))
    c.cancel_all()
    c.run(["scontrol", "update", f"NodeName={NODE}", "State=RESUME"])
    wait_until(f"{NODE} to be idle", lambda: "State=IDLE " in node_line(c, NODE), timeout=60)


@pytest.mark.every_release
def test_a_node_missing_a_gpu_is_drained_by_the_job_prolog(node_missing_a_gpu):
    c = node_missing_a_gpu
    mark = c.log_offset(f"slurmd-{NODE}")
    job = c.sbatch("alice", "-p", "p5", "-w", NODE, "--gres=gpu:1", "--share=prodexp2",
                   script="true")
    line = wait_until(f"{NODE} drained by the prolog",
                      lambda: (lambda l: "DRAIN" in l and l)(node_line(c, NODE)), timeout=60)
    assert f"Reason={MISSING_GPU} [" in line, line
    # The prolog failed: the job never ran on the node (Slurm requeues it) and waits.
    c.wait_state(job, "PENDING", timeout=60)
    log = c.log_since(mark, f"slurmd-{NODE}")
    assert MISSING_GPU in log, log[-2000:]
    # The same check on demand, as HealthCheckProgram runs it: the node's families from slurmctld.
    out = node_check(c, NODE)
    assert (out.returncode, out.stdout) == (1, MISSING_GPU + "\n"), out.stderr


def test_node_check_drain_drains_with_the_line_as_reason(node_missing_a_gpu):
    c = node_missing_a_gpu
    out = node_check(c, NODE, "--drain")
    assert (out.returncode, out.stdout) == (1, MISSING_GPU + "\n"), out.stderr
    line = node_line(c, NODE)
    assert "DRAIN" in line and f"Reason={MISSING_GPU} [root@" in line, line


def test_nodes_with_their_familys_hardware_run_jobs_and_check_healthy(clean_queue):
    c = clean_queue
    job = c.sbatch("alice", "-p", "p5", "-w", "p5n3", "--gres=gpu:8", "--share=prodexp2",
                   script="true")
    c.wait_state(job, "COMPLETED", timeout=60)
    assert "DRAIN" not in node_line(c, "p5n3")
    out = node_check(c, "p5n3")
    assert (out.returncode, out.stdout) == (
        0, "shareq: hardware: ok: 8 GPUs, 2 NUMA nodes, 96 cores, as family p5 expects\n"), \
        out.stderr
    out = node_check(c, "p4n1")
    assert (out.returncode, out.stdout) == (
        0, "shareq: hardware: ok: nothing to check (family p4: no Hardware=)\n"), out.stderr


@pytest.mark.every_release
def test_a_job_whose_prolog_check_fails_runs_in_the_fallback_family_at_once(node_missing_a_gpu,
                                                                             own_shareq_conf):
    """The check fails the prolog on the one free node of p5: the job is requeued (slurm.conf's
    nohold_on_prolog_fail), never returns to that node, and starts in p4 without waiting out a
    FallbackDelay far longer than the test."""
    c = node_missing_a_gpu
    text = re.sub(r"^(Family=p5 .*)$", r"\1 Fallback=p4",
                  (c.dir / "etc" / "shareq.conf").read_text(), count=1, flags=re.M)
    c.install_shareq_conf(text + "FallbackDelay=600\n")
    fill = [c.sbatch("bob", "-p", "p5", "-w", f"p5n{i}", "--gres=gpu:8", "--share=prodexp2",
                     script="sleep 300") for i in (1, 2, 3)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    job = c.sbatch("bob", "-p", "p5", "--gres=gpu:8", "--share=prodexp2", "--requeue",
                   script="sleep 300")
    record = wait_until(f"job {job} to run in p4",
                        lambda: (lambda j: j and j["JobState"] == "RUNNING" and
                                 j["Partition"] == "p4" and j)(c.job(job)), timeout=90)
    assert NODE in record["ExcNodeList"], record
    assert f"shareq: fell back from p5 to p4 after its prolog failed on {NODE}" in \
        record["SystemComment"], record["SystemComment"]
    assert f"shareq-failed:prolog,nodes:{NODE},requeue:1" in record["AdminComment"], record
    assert f"Reason={MISSING_GPU} [" in node_line(c, NODE)
