#!/usr/bin/python3
"""What a hung image store costs other users: sbatch and squeue latency, healthy store vs hung.

Starts a private test cluster, then runs two phases on it, each the same:
  - user alice submits --jobs (20) `sbatch -p p4 -n1 --image=llama-train` at once, in parallel;
  - meanwhile user bob runs --probes (10) rounds of `sbatch -p p4 --wrap true` then `squeue`,
    one after another, each timed from just before the call to its return.
Phase "healthy": ImageStore is the cluster's HTTP store. Phase "hung": ImageStore points at a TCP
server on 127.0.0.1 that accepts every connection and never answers (a registry behind a dead
proxy). Printed: P50 and max of bob's sbatch and squeue in each phase, alice's submissions'
P50/max, and the ratio hung / healthy of bob's P50s. Before shareq asked the store outside
slurmctld's locks, a hung store made every submission on the cluster wait for it (10 s each).

Usage: bench/cluster/submit_stall.py [--jobs 20] [--probes 10] [--build-dir build]
           [--cluster-dir BUILD_DIR/bench-cluster] [--port-base $SHAREQ_PORT_BASE or 16900]
       (as root, with the build dir built)
"""

import argparse
import os
import pathlib
import socket
import sys
import threading
import time

from bench_cluster import REPO, percentile, run, start_cluster, stop_cluster

CONFIG_LOADED = "shareq.conf: loaded (version "


class HungStore:
    """Accepts connections on 127.0.0.1 and never answers."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = self.listener.getsockname()[1]
        self.held = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                self.held.append(self.listener.accept()[0])
            except OSError:
                return


def install_store(env, url):
    """Points shareq.conf's ImageStore at url and waits until slurmctld has loaded it."""
    cluster = pathlib.Path(env["SHAREQ_CLUSTER_DIR"])
    conf = cluster / "etc" / "shareq.conf"
    log = cluster / "log" / "slurmctld.log"
    before = log.read_text(errors="replace").count(CONFIG_LOADED)
    lines = [l for l in conf.read_text().splitlines() if not l.startswith("ImageStore=")]
    tmp = conf.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + f"\nImageStore={url}\n")
    tmp.replace(conf)
    run(["scontrol", "reconfigure"], env)
    deadline = time.monotonic() + 60
    while log.read_text(errors="replace").count(CONFIG_LOADED) <= before:
        if time.monotonic() > deadline:
            sys.exit("slurmctld did not load the new shareq.conf within 60 s")
        time.sleep(0.2)


def timed(cmd, env, user):
    start = time.monotonic()
    out = run(cmd, env, check=False, user=user)
    return time.monotonic() - start, out.returncode


def phase(env, jobs, probes):
    """One phase: alice's parallel --image submissions, bob's probes meanwhile."""
    alice = []

    def submit():
        alice.append(timed(["sbatch", "-o", "/dev/null", "-p", "p4", "-n1",
                            "--image=llama-train", "--wrap=true"], env, "alice"))

    threads = [threading.Thread(target=submit) for _ in range(jobs)]
    for t in threads:
        t.start()
    bob_sbatch, bob_squeue = [], []
    for _ in range(probes):
        bob_sbatch.append(timed(["sbatch", "-o", "/dev/null", "-p", "p4", "--wrap=true"], env,
                                "bob"))
        bob_squeue.append(timed(["squeue", "-h"], env, "bob"))
    for t in threads:
        t.join()
    run(["scancel", "--full", "--user=alice"], env, check=False)
    run(["scancel", "--full", "--user=bob"], env, check=False)
    return {"alice sbatch --image": alice, "bob sbatch": bob_sbatch, "bob squeue": bob_squeue}


def report(results):
    print(f"{'phase':8} {'command':22} {'n':>3} {'P50 (s)':>8} {'max (s)':>8} {'failed':>6}")
    for name, figures in results.items():
        for command, samples in figures.items():
            seconds = [s for s, _ in samples]
            failed = sum(1 for _, rc in samples if rc != 0)
            print(f"{name:8} {command:22} {len(samples):3d} {percentile(seconds, 50):8.3f} "
                  f"{max(seconds):8.3f} {failed:6d}")
    for command in ("bob sbatch", "bob squeue"):
        healthy = percentile([s for s, _ in results["healthy"][command]], 50)
        hung = percentile([s for s, _ in results["hung"][command]], 50)
        print(f"{command}: P50 hung / healthy = {hung / healthy:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--probes", type=int, default=10)
    parser.add_argument("--build-dir", type=pathlib.Path, default=REPO / "build")
    parser.add_argument("--cluster-dir", type=pathlib.Path)
    parser.add_argument("--port-base", type=int,
                        default=int(os.environ.get("SHAREQ_PORT_BASE", "16900")))
    opts = parser.parse_args()
    cluster_dir = opts.cluster_dir or opts.build_dir / "bench-cluster"
    env = dict(os.environ)
    env.update(SHAREQ_CLUSTER_DIR=str(cluster_dir), SHAREQ_BUILD_DIR=str(opts.build_dir),
               SHAREQ_PORT_BASE=str(opts.port_base))
    start_cluster(env)
    try:
        results = {}
        results["healthy"] = phase(env, opts.jobs, opts.probes)
        hung = HungStore()
        install_store(env, f"http://127.0.0.1:{hung.port}")
        results["hung"] = phase(env, opts.jobs, opts.probes)
        report(results)
    finally:
        stop_cluster(env)


if __name__ == "__main__":
    main()
