"""What the cluster benchmarks share: running a command, private test clusters (one, or several
at once), and slurmctld's memory."""

import pathlib
import pwd
import subprocess
import sys
import threading

REPO = pathlib.Path(__file__).resolve().parents[2]
CLUSTER = REPO / "tests" / "cluster" / "cluster"


def run(cmd, env, check=True, user=None):
    """Runs cmd (as `user`, a login name, when given; else as the caller); with check, a failure
    ends the benchmark with the command's stderr."""
    as_user = {}
    if user is not None:
        entry = pwd.getpwnam(user)
        as_user = dict(user=entry.pw_uid, group=entry.pw_gid, extra_groups=[])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, **as_user)
    if check and out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit status {out.returncode}): {out.stderr}")
    return out


def percentile(values, p):
    """The nearest-rank P-th percentile of values (nan when there are none)."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def start_cluster(env):
    """Starts a fresh cluster as env describes and adds its `export` lines (SLURM_CONF...) to env."""
    stop_cluster(env)
    for line in run([str(CLUSTER), "up"], env).stdout.splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        env[key] = value


def stop_cluster(env):
    run([str(CLUSTER), "down"], env, check=False)


def run_clusters_at_once(clusters, work):
    """Starts every cluster (context managers whose __enter__ starts one), runs work(cluster) for
    each in a thread of its own, waits for all, and stops every cluster, also when one failed to
    start."""
    try:
        for c in clusters:
            c.__enter__()
        threads = [threading.Thread(target=work, args=(c,)) for c in clusters]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for c in clusters:
            c.__exit__()


def ctld_rss_mib(cluster_dir):
    """The resident memory (VmRSS) of the slurmctld of the cluster in cluster_dir, MiB; None when
    it cannot be read."""
    try:
        pid = (pathlib.Path(cluster_dir) / "run" / "slurmctld.pid").read_text().strip()
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None
