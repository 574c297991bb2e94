"""Fixtures for tests against the real test cluster (tests/cluster/cluster).

The session fixture uses a running cluster if there is one in SHAREQ_CLUSTER_DIR, else starts
one and stops it at the end. Every wait polls with a bounded timeout.
"""

import os
import pathlib
import subprocess

import pytest

from slurm import Cluster, run_each

REPO = pathlib.Path(__file__).resolve().parents[2]
CLUSTER_SCRIPT = REPO / "tests" / "cluster" / "cluster"


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "every_release: also run against every other Slurm release (SHAREQ_SLURM_VERSION); "
        "together these touch every plugin and entry point")
    config.addinivalue_line(
        "markers",
        "stock_too: also runs when the cluster runs Slurm's stock plugins (SHAREQ_STOCK=1); "
        "every other test is skipped then")


def _cluster_env():
    out = subprocess.run([str(CLUSTER_SCRIPT), "env"], check=True, capture_output=True, text=True)
    env = {}
    for line in out.stdout.splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        env[key] = value
    return env


def _cluster_running():
    out = subprocess.run([str(CLUSTER_SCRIPT), "status"], capture_output=True, text=True)
    return "slurmctld: running" in out.stdout


@pytest.fixture(scope="session")
def cluster():
    started_here = False
    if not _cluster_running():
        subprocess.run([str(CLUSTER_SCRIPT), "up"], check=True, stdout=subprocess.DEVNULL)
        started_here = True
    env = _cluster_env()
    build_dir = pathlib.Path(os.environ.get("SHAREQ_BUILD_DIR", REPO / "build"))
    c = Cluster(script=CLUSTER_SCRIPT, env=env, build_dir=build_dir)
    yield c
    c.cancel_all()
    if started_here:
        subprocess.run([str(CLUSTER_SCRIPT), "down"], check=False)


@pytest.fixture(autouse=True)
def needs_shareq_plugins(request, cluster):
    """Skips a test of shareq's plugins when the cluster runs Slurm's stock ones, unless it is
    marked stock_too."""
    if cluster.stock and request.node.get_closest_marker("stock_too") is None:
        pytest.skip("cluster runs Slurm's stock plugins (SHAREQ_STOCK=1)")


@pytest.fixture
def clean_queue(cluster):
    """Starts a test with no job left from an earlier one, and leaves none behind."""
    cluster.cancel_all()
    yield cluster
    cluster.cancel_all()


@pytest.fixture
def own_shareq_conf(clean_queue):
    """For a test that installs shareq.conf files of its own: starts from the cluster's own file
    and puts it back afterwards."""
    c = clean_queue
    original = (c.dir / "etc" / "shareq.conf").read_text()
    c.install_shareq_conf(original)
    yield c
    run_each(c.cancel_all, lambda: c.install_shareq_conf(original))
