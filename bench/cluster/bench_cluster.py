"""What the cluster benchmarks share: running a command, and a private test cluster."""

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
CLUSTER = REPO / "tests" / "cluster" / "cluster"


def run(cmd, env, check=True):
    """Runs cmd; with check, a failure ends the benchmark with the command's stderr."""
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if check and out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {out.stderr}")
    return out


def start_cluster(env):
    """Starts a fresh cluster as env describes and adds its `export` lines (SLURM_CONF...) to env."""
    stop_cluster(env)
    for line in run([str(CLUSTER), "up"], env).stdout.splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        env[key] = value


def stop_cluster(env):
    run([str(CLUSTER), "down"], env, check=False)
