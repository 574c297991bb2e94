"""The image store misbehaving (fault_store.py) while jobs fetch images in their prologs: each
such job fails cleanly with an error naming its image, nothing but whole, verified images enter
a node's cache (the checker hashes every cached file), the node takes the next job, and no job
is lost. And kill -9 of a slurmd while its job's prolog is fetching an image."""

import contextlib
import os
import re
import signal
import subprocess
import time

from controller import settle_crash_window
from fault_store import MODES, FaultStore
from slurm import wait_until

NODES = ("p5n1", "p5n2", "p5n3", "p5n4", "p4n1", "p4n2", "p4n3", "p4n4")


def use_store(c, checker, conf, url):
    text = re.sub(r"^ImageStore=.*$", f"ImageStore={url}", conf, flags=re.M)
    c.install_shareq_conf(text)
    checker.set_conf(text)


@contextlib.contextmanager
def serving(c, checker):
    """A FaultStore, made the cluster's ImageStore for the test; stopped after."""
    store = FaultStore()
    try:
        use_store(c, checker, (c.dir / "etc" / "shareq.conf").read_text(), store.url)
        yield store
    finally:
        store.stop()


def submit(c, checker, name, node, image):
    p, share = ("p5", "prodexp2") if node.startswith("p5") else ("p4", "prodexp1")
    out = c.run(["sbatch", "--parsable", "-o", name, "-p", p, "-A", share, "-N1", "-w", node,
                 f"--image={image}", "--wrap=echo ran-$SLURM_JOB_ID"], user="alice")
    assert out.returncode == 0, out.stderr
    job = int(out.stdout.strip().split(";")[0])
    checker.register(job)
    return job


# What each fault's job must be told (its cause, after "shareq: error: image NAME: ").
CAUSES = {
    "500": "HTTP status 500",
    "reset": "the store closed the connection after ",
    "truncated": "digest mismatch",
    "wrong": "digest mismatch",
    "slow": "the store sent less than 1024 bytes/s for 30 s (the stall limit)",
    "file": "the store redirected to file://",
    "huge": "larger than the image cache (ImageCacheSize, ",
}


def test_a_misbehaving_image_store(checked, rounds, rng):
    c, checker, _ = checked
    with serving(c, checker) as store:
        for r in range(rounds):
            modes = rng.sample(MODES, len(MODES))
            nodes = rng.sample(NODES, len(modes))
            jobs = {}
            for mode, node in zip(modes, nodes):
                image = f"{mode}-{r}-{rng.randrange(1 << 30):x}"
                store.publish(image)
                jobs[mode] = (submit(c, checker, f"store-{mode}-{r}.out", node, image), node, image)
            for mode, (job, node, image) in jobs.items():
                state = c.wait_state(job, ("FAILED", "COMPLETED"), timeout=120)["JobState"]
                out = (c.jobs_dir / f"store-{mode}-{r}.out").read_text()
                assert state == "FAILED", f"{mode}: job {job} {state}: {out}"
                assert f"shareq: error: image {image}" in out, f"{mode}: {out}"
                assert f"ran-{job}" not in out, f"{mode}: the job ran without its image"
                said = [l for l in out.splitlines() if "shareq: error: image" in l][0]
                assert CAUSES[mode] in said, f"{mode}: {said}"
                print(f"round {r + 1}: {mode} on {node}: {said.strip()}")
            # Every node still runs a job with a good image, fetched whole.
            good = f"ok-{r}-{rng.randrange(1 << 30):x}"
            store.publish(good)
            oks = [submit(c, checker, f"store-ok-{r}-{n}.out", n, good) for n in nodes]
            for job in oks:
                c.wait_state(job, "COMPLETED", timeout=120)
            for n in nodes:
                cache = c.dir / "nodes" / n / "images" / "sha256"
                leftovers = [p.name for p in cache.iterdir() if not re.fullmatch(r"[0-9a-f]{64}", p.name)]
                assert leftovers == [], f"{n}: {leftovers}"


def test_kill9_slurmd_during_a_prologs_image_fetch(checked, rounds, rng):
    """A job whose prolog fetches a slowly served image; its node's slurmd is killed (-9) while
    the fetch runs and started again as the harness starts it: the job is not lost (it ends or
    is requeued), the node comes back and runs the next job.

    The prolog (PrologFlags=Alloc) was the killed slurmd's: its fetch goes on and ends, but no
    one tells slurmctld, and the job stays RUNNING with reason Prolog, holding its node. Slurm
    ends it as a batch job missing from its node at the node's next registration once the job
    has run BatchStartTimeout + MessageTimeout (CRASH_WINDOW_S); nodes register every 20 pings
    (minutes), or at once on `scontrol reconfigure`, which an admin runs, as after a slurmctld
    crash (controller.settle_crash_window)."""
    c, checker, _ = checked
    with serving(c, checker) as store:
        for r in range(rounds):
            node = rng.choice(NODES)
            image = f"slow-{r}-{rng.randrange(1 << 30):x}"
            store.publish(image)
            job = submit(c, checker, f"slurmd-kill-{r}.out", node, image)
            wait_until("the prolog to fetch the image", lambda: image in store.requests,
                       timeout=90)
            fetching_at = time.monotonic()  # after the job started
            pidfile = c.dir / "run" / f"slurmd-{node}.pid"
            pid = int(pidfile.read_text())
            os.kill(pid, signal.SIGKILL)
            wait_until("slurmd to be gone", lambda: not os.path.exists(f"/proc/{pid}"))
            started = subprocess.run(["/usr/sbin/slurmd", "-N", node], env=c.env,
                                     capture_output=True, text=True, timeout=60)
            assert started.returncode == 0, started.stderr
            print(f"round {r + 1}: slurmd {node} killed during job {job}'s fetch, started again")
            # The prolog's fetch gives up after 30 s under 1 KiB/s (the node's stall timeout);
            # slurmctld still has the job in Prolog. Settled as the docstring says: the job
            # ends or is requeued.
            wait_until("the prolog's fetch to give up", lambda: f"job {job}: image {image}: "
                       "fetching" in (c.dir / "log" / f"slurmd-{node}.log").read_text(
                           errors="replace"), timeout=60)
            settled_log = settle_crash_window(c, checker, fetching_at)
            wait_until(f"job {job} to end or be requeued",
                       lambda: c.job_state(job) in ("FAILED", "COMPLETED", "PENDING",
                                                    "NODE_FAIL", "CANCELLED"), timeout=30)
            missing = re.search(rf"Batch JobId={job} missing from batch node[^\n]*", settled_log)
            print(f"round {r + 1}: job {job} {c.job_state(job)} after the node registered"
                  f" ({missing.group(0) if missing else 'slurmctld said nothing of it'})")
            c.run(["scancel", str(job)])
            wait_until(f"node {node} to take jobs", lambda: re.search(
                r"State=(IDLE|MIXED|ALLOCATED)\b",
                c.scontrol("-o", "show", "node", node)) is not None, timeout=120)
            ok = f"ok-{r}-{rng.randrange(1 << 30):x}"
            store.publish(ok)
            c.wait_state(submit(c, checker, f"slurmd-ok-{r}.out", node, ok), "COMPLETED",
                         timeout=120)
