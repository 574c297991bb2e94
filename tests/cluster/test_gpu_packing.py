"""GPU packing (select/shareq): a job on one node goes where it leaves the fewest GPUs free, so
that whole nodes stay free for the jobs that need them; cons_tres alone takes the first node with
room. Family p5: 4 nodes of 8 GPUs; research's quota there is 16 GPUs."""

import pytest


@pytest.fixture
def packing(clean_queue):
    return clean_queue


def start(c, gpus, *extra):
    job = c.sbatch("bob", "-A", "research", "-p", "p5", f"--gres=gpu:{gpus}", *extra,
                   script="sleep 300")
    return c.wait_state(job, "RUNNING")


@pytest.mark.every_release
def test_small_job_goes_to_the_fullest_node_not_the_first(packing):
    c = packing
    four = start(c, 4)
    six = start(c, 6)  # no room beside the 4-GPU job: another node
    assert four["NodeList"] != six["NodeList"]
    # 4 GPUs free beside the first job, 2 beside the second: first fit would take the first.
    two = start(c, 2)
    assert two["NodeList"] == six["NodeList"], (four["NodeList"], six["NodeList"], two["NodeList"])


def test_job_the_fullest_node_cannot_hold_goes_elsewhere(packing):
    c = packing
    six = start(c, 6)
    # The 6-GPU job's node has 2 GPUs free but not 16 CPUs: the job starts on another node, at
    # once, rather than waiting for the best fit.
    two = start(c, 2, "--cpus-per-task=16")
    assert two["NodeList"] != six["NodeList"]
    assert two["NumCPUs"] == "16"
