"""Fixtures of the fault-injection suite (issue 17, point 2), on the real test cluster.

The cluster, its driver and the session fixtures are tests/cluster's (imported, not copied).
Options (or environment):
  --rounds N       (SHAREQ_FAULT_ROUNDS, default 2) rounds of each fault
  --fault-seed S   (SHAREQ_FAULT_SEED, default: a new one) the seed of every random choice; each
                   test prints it and its own seed (S and the test's name), so that a failing run
                   is repeated with --fault-seed S.
Each test runs under the invariant checker (invariants.py), which fails it on any violation.
"""

import importlib.util
import os
import pathlib
import random
import sys
import zlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
CLUSTER_TESTS = HERE.parent / "cluster"
sys.path.insert(0, str(CLUSTER_TESTS))
sys.path.insert(0, str(HERE))

_spec = importlib.util.spec_from_file_location("cluster_conftest", CLUSTER_TESTS / "conftest.py")
cluster_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cluster_conftest)

# The session's cluster and the clean queue, as tests/cluster defines them.
cluster = cluster_conftest.cluster
clean_queue = cluster_conftest.clean_queue
needs_shareq_plugins = cluster_conftest.needs_shareq_plugins

from invariants import Checker  # noqa: E402
from storm import Storm, resume_drained, storm_conf  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--rounds", type=int, default=int(os.environ.get("SHAREQ_FAULT_ROUNDS", 2)),
                     help="rounds of each fault (SHAREQ_FAULT_ROUNDS; default 2)")
    parser.addoption("--fault-seed", type=int,
                     default=int(os.environ.get("SHAREQ_FAULT_SEED",
                                                random.SystemRandom().randrange(1 << 31))),
                     help="seed of the faults' random choices (SHAREQ_FAULT_SEED)")


def pytest_configure(config):
    cluster_conftest.pytest_configure(config)


def pytest_report_header(config):
    return (f"shareq faults: seed {config.getoption('--fault-seed')}, "
            f"{config.getoption('--rounds')} round(s) each")


@pytest.fixture
def rounds(request):
    return request.config.getoption("--rounds")


@pytest.fixture
def rng(request):
    seed = request.config.getoption("--fault-seed")
    own = seed ^ zlib.crc32(request.node.name.encode())
    print(f"\nfault seed {seed} (test {request.node.name}: random.Random({own}))")
    return random.Random(own)


@pytest.fixture
def storm_cluster(clean_queue):
    """The storm's shareq.conf (storm.py) installed for one test, the cluster's put back after."""
    c = clean_queue
    original = (c.dir / "etc" / "shareq.conf").read_text()
    conf = storm_conf(original, c)
    c.install_shareq_conf(conf)
    yield c, conf
    c.cancel_all()
    resume_drained(c)
    # A fault may have left slurmctld stopped; the harness starts it as it does.
    if "slurmctld: running" not in c.run([str(c.script), "status"]).stdout:
        c.restart_slurmctld()
    c.install_shareq_conf(original)


@pytest.fixture
def checked(storm_cluster, rng):
    """(cluster, checker, storm): the invariant checker runs for the whole test; the test fails
    on any violation, and on any submitted job lost at the end."""
    c, conf = storm_cluster
    checker = Checker(c, conf).start()
    storm = Storm(c, checker, rng)
    try:
        yield c, checker, storm
    finally:
        storm.stop()
        checker.stop()
    lost = checker.final_check()
    print(f"invariants: {checker.summary()}; jobs lost: {len(lost)}")
    assert not checker.violations, "invariant violations:\n" + "\n".join(checker.violations)
