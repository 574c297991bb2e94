"""The node image cache's metrics file on the real cluster (issue 16, point 2).

The cluster's shareq.conf sets ImageCacheMetricsFile=$SHAREQ_CLUSTER_DIR/nodes/%n/shareq.prom
(tests/cluster/lib/config.sh), the textfile prometheus-node-exporter would read. A job with a new
--image on one node must show there as one more successful fetch of the image's bytes, a second
job with it as one more hit, and the gauges must equal what the cache directory holds. Every wait
is bounded.
"""

import hashlib
import os
import re
import subprocess
import uuid

from slurm import wait_until

NODE = "p4n1"
LIMIT_BYTES = 200 << 30  # the cluster's ImageCacheSize=200G


def publish(c, name, size):
    data = os.urandom(size)
    (c.dir / "images" / name).write_bytes(data)
    (c.dir / "images" / f"{name}.sha256").write_text(hashlib.sha256(data).hexdigest() + "\n")


def metrics(c):
    """The node's textfile as {'name{labels}': value}; {} while it does not exist."""
    path = c.dir / "nodes" / NODE / "shareq.prom"
    if not path.exists():
        return {}
    values = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            values[key] = float(value)
    return values


def cache_as_it_is(c):
    """The gauges computed from the cache directory itself."""
    cache = c.dir / "nodes" / NODE / "images"
    images = [p for p in (cache / "sha256").iterdir() if not p.name.startswith(".")]
    pinned = [p for p in images
              if (cache / "pins" / p.name).is_dir() and any((cache / "pins" / p.name).iterdir())]
    return {
        "shareq_image_cache_bytes": float(sum(p.stat().st_size for p in images)),
        "shareq_image_cache_images": float(len(images)),
        "shareq_image_cache_pinned_images": float(len(pinned)),
        "shareq_image_cache_limit_bytes": float(LIMIT_BYTES),
    }


def gauges_match(c):
    now = metrics(c)
    expected = cache_as_it_is(c)
    return all(now.get(k) == v for k, v in expected.items()) and now


def run_image_job(c, image):
    job = c.sbatch("alice", "-p", "p4", "-N1", "-w", NODE, f"--image={image}",
                   script="test -r $SHAREQ_IMAGE_PATH")
    c.wait_state(job, "COMPLETED")
    return job


def test_an_image_job_counts_one_fetch_then_one_hit_and_the_gauges_are_the_cache(clean_queue):
    c = clean_queue
    image = f"metrics-{uuid.uuid4().hex[:8]}"
    size = 300_000
    publish(c, image, size)
    before = metrics(c)
    success = 'shareq_image_cache_fetches_total{result="success"}'
    failure = 'shareq_image_cache_fetches_total{result="failure"}'

    run_image_job(c, image)
    # The epilog rewrites the file after it unpinned the job: wait for the file to be the cache.
    after = wait_until("the metrics file to match the cache", lambda: gauges_match(c))
    assert after[success] == before.get(success, 0) + 1, after
    assert after[failure] == before.get(failure, 0), after
    assert after["shareq_image_cache_fetched_bytes_total"] == \
        before.get("shareq_image_cache_fetched_bytes_total", 0) + size, after
    assert after["shareq_image_cache_fetch_seconds_count"] == after[success], after
    assert after['shareq_image_cache_fetch_seconds_bucket{le="+Inf"}'] == after[success], after

    run_image_job(c, image)
    again = wait_until("the metrics file to count the hit",
                       lambda: (m := gauges_match(c)) and
                       m["shareq_image_cache_hits_total"] ==
                       after["shareq_image_cache_hits_total"] + 1 and m)
    assert again[success] == after[success], again
    mode = (c.dir / "nodes" / NODE / "shareq.prom").stat().st_mode & 0o777
    assert mode == 0o644, oct(mode)
    # Prometheus's own linter has nothing to say about the file (promtool: install-deps).
    lint = subprocess.run(["promtool", "check", "metrics"], capture_output=True, text=True,
                          stdin=(c.dir / "nodes" / NODE / "shareq.prom").open())
    assert lint.returncode == 0 and lint.stdout + lint.stderr == "", lint.stdout + lint.stderr
    leftovers = [p.name for p in (c.dir / "nodes" / NODE).iterdir()
                 if re.match(r"shareq\.prom\.tmp", p.name)]
    assert leftovers == []
