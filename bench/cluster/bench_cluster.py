"""What the cluster benchmarks share: running a command, private test clusters (one, or several
at once), slurmctld's memory, and submitting many jobs fast (burst_submit)."""

import os
import pathlib
import pwd
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
CLUSTER = REPO / "tests" / "cluster" / "cluster"


def as_user(user):
    """subprocess keyword arguments that run a command as `user` (a login name; None: the
    caller)."""
    if user is None:
        return {}
    entry = pwd.getpwnam(user)
    return dict(user=entry.pw_uid, group=entry.pw_gid, extra_groups=[])


def run(cmd, env, check=True, user=None):
    """Runs cmd (as `user`, a login name, when given; else as the caller); with check, a failure
    ends the benchmark with the command's stderr."""
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, **as_user(user))
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


def burst_submit(env, build_dir, chunks, shareq_mode, label=""):
    """Submits jobs through tests/cluster/tools/burst_submit (libslurm's slurm_submit_batch_job,
    the call sbatch makes, without one process start per job), one process per (user, lines) of
    `chunks`, all at once; user None submits as the caller. Each line: PARTITION EXCLUSIVE GPUS
    SECONDS SHARE PRIORITY. shareq_mode: each job carries what `sbatch --share --share-priority`
    puts in its spank_job_env; else the share is its account. Returns (seconds, [(outcome, job
    id or message, seconds)]) over all lines; a submitter that fails ends the benchmark."""
    tool = pathlib.Path(build_dir) / "tests" / "cluster" / "burst_submit"
    procs = []
    with tempfile.TemporaryDirectory(prefix="burst-") as tmp:
        os.chmod(tmp, 0o755)
        for i, (_, lines) in enumerate(chunks):
            with open(os.path.join(tmp, f"jobs{i}"), "w") as f:
                f.writelines(lines)
        start = time.monotonic()
        for i, (user, _) in enumerate(chunks):
            with open(os.path.join(tmp, f"jobs{i}")) as stdin:
                procs.append(subprocess.Popen(
                    [str(tool)] + (["-s"] if shareq_mode else []), env=env, cwd="/tmp",
                    stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                    **as_user(user)))
        outputs = [p.communicate() for p in procs]
        seconds = time.monotonic() - start
    results = []
    for (_, lines), p, (out, err) in zip(chunks, procs, outputs):
        if p.returncode != 0:
            sys.exit(f"{label}: burst_submit failed (exit {p.returncode}): {err}")
        if len(out.splitlines()) != len(lines):
            sys.exit(f"{label}: burst_submit answered {len(out.splitlines())} of its "
                     f"{len(lines)} jobs: {err}")
        for line in out.splitlines():
            outcome, rest = line.split(" ", 1)
            if outcome == "accepted":
                job, latency = rest.split()
                results.append(("accepted", job, float(latency)))
            else:
                latency, message = rest.split(" ", 1)
                results.append(("refused", message, float(latency)))
    return seconds, results
