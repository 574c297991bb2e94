"""The image cache's file system full (issue 17, point 2): a 64 MiB tmpfs mounted over one node's
ImageCacheDir (NODE/images; the cluster's ImageCacheSize is 200G, so the cache thinks it has
room) while jobs fetch 40 and 48 MiB images from a store (fault_store.py, whole images):

  1. image A (40 MiB) fits: its job runs;
  2. image B (40 MiB) does not fit beside A: the write fails with ENOSPC, the cache evicts the
     unpinned A (least recently used) to make room and fetches again: B's job runs;
  3. a filler file (other data on the file system) leaves 4 MiB free; image C (48 MiB) would
     not fit even with B evicted: C's job fails, told "No space left on device" and ImageCacheDir;
     B is not evicted for nothing, no partial file is left, slurmd and slurmctld stay up, the
     node is not drained;
  4. the filler removed: C's job (the same image) runs, B evicted for it.

The invariant checker hashes every cached file (the tmpfs's too) and counts every job. The tmpfs
is unmounted whatever happens."""

import contextlib
import os
import re
import subprocess

from slurm import wait_until
from test_image_store import NODES, serving, submit

MIB = 1 << 20
DISK = 64 * MIB
IMAGE = 40 * MIB  # one fits, two do not
LARGER = 48 * MIB  # does not fit beside a 40 MiB image and the filler, nor with it evicted
FILLER = DISK - IMAGE - 4 * MIB


@contextlib.contextmanager
def small_file_system(c, node):
    """A DISK-sized tmpfs over NODE's ImageCacheDir (hiding what is cached there), unmounted
    after, lazily if a process still has a file open in it."""
    images = c.dir / "nodes" / node / "images"
    images.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK},mode=0755", "tmpfs",
                    str(images)], check=True, capture_output=True, text=True)
    try:
        yield images
    finally:
        if subprocess.run(["umount", str(images)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(images)], check=True)


def cached(images):
    """Names in sha256/: the cached images, and any partial file (a fetch's temporary)."""
    sha = images / "sha256"
    return sorted(p.name for p in sha.iterdir()) if sha.is_dir() else []


def run_job(c, checker, name, node, image, state):
    job = submit(c, checker, name, node, image)
    got = c.wait_state(job, ("FAILED", "COMPLETED"), timeout=180)["JobState"]
    out = (c.jobs_dir / name).read_text()
    assert got == state, f"job {job} with image {image} on {node}: {got}: {out}"
    return job, out


def node_healthy(c, node):
    pid = int((c.dir / "run" / f"slurmd-{node}.pid").read_text())
    assert os.path.exists(f"/proc/{pid}"), f"slurmd of {node} is gone"
    c.run(["scontrol", "ping"]).check_returncode()
    wait_until(f"node {node} to take jobs", lambda: re.search(
        r"State=(IDLE|MIXED|ALLOCATED)\b", c.scontrol("-o", "show", "node", node)) is not None,
        timeout=60)


def test_image_cache_file_system_full(checked, rounds, rng):
    c, checker, _ = checked
    with serving(c, checker) as store:
        for r in range(rounds):
            node = rng.choice(NODES)
            tag = f"{r}-{rng.randrange(1 << 30):x}"
            a, b, big = f"ok-a-{tag}", f"ok-b-{tag}", f"ok-c-{tag}"
            store.publish(a, IMAGE)
            store.publish(b, IMAGE)
            store.publish(big, LARGER)
            digest = {n: store.digest(n) for n in (a, b, big)}
            with small_file_system(c, node) as images:
                run_job(c, checker, f"full-a-{tag}.out", node, a, "COMPLETED")
                assert cached(images) == [digest[a]]

                run_job(c, checker, f"full-b-{tag}.out", node, b, "COMPLETED")
                assert cached(images) == [digest[b]], "A was not evicted to make room for B"
                print(f"round {r + 1}: {node}: B fetched, A evicted for room on the disk")

                filler = images / "filler"
                filler.write_bytes(b"\0" * FILLER)
                job, out = run_job(c, checker, f"full-c-{tag}.out", node, big, "FAILED")
                said = [line for line in out.splitlines() if "shareq: error: image" in line]
                assert said, f"job {job} was not told why: {out}"
                assert f"image {big}: " in said[0] and "No space left on device" in said[0] \
                    and f"ImageCacheDir {images} is on a full file system" in said[0], said[0]
                assert f"ran-{job}" not in out, "the job ran without its image"
                assert cached(images) == [digest[b]], \
                    "a partial file was left, or B was evicted though that made no room"
                node_healthy(c, node)
                print(f"round {r + 1}: {node}: {said[0].strip()}")

                filler.unlink()
                run_job(c, checker, f"full-c2-{tag}.out", node, big, "COMPLETED")
                assert cached(images) == [digest[big]]
                print(f"round {r + 1}: {node}: the filler removed, the same image ran")
                # A whole sample of the checker (its cached-images check) before it goes.
                seen = checker.samples
                wait_until("two samples of the checker", lambda: checker.samples >= seen + 2,
                           timeout=60)
            node_healthy(c, node)
