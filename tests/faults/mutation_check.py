#!/usr/bin/env python3
"""Shows that the invariant checker catches each broken invariant (a mutation check, not CI).

On a running test cluster (tests/cluster/cluster up), with the storm's shareq.conf installed:
the checker is told a capacity smaller than the real one, a job id nobody submitted, and a cached
image and a warm directory are broken by hand, while a short reclaim storm runs. Prints the
violations by kind and exits 1 unless every kind was caught. The cluster's shareq.conf is put back.

  python3 tests/faults/mutation_check.py
"""

import os
import pathlib
import random
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "cluster"), str(HERE)]

import invariants  # noqa: E402
from invariants import Checker  # noqa: E402
from slurm import Cluster, wait_until  # noqa: E402
from storm import Storm, storm_conf  # noqa: E402


def main():
    script = HERE.parent / "cluster" / "cluster"
    env = dict(line.removeprefix("export ").split("=", 1) for line in subprocess.run(
        [str(script), "env"], check=True, capture_output=True, text=True).stdout.splitlines())
    c = Cluster(script=script, env=env, build_dir=pathlib.Path(
        os.environ.get("SHAREQ_BUILD_DIR", HERE.parents[1] / "build")))
    original = (c.dir / "etc" / "shareq.conf").read_text()
    conf = storm_conf(original, c)
    c.cancel_all()
    c.install_shareq_conf(conf)
    # Mutation 1: the checker believes p5 holds 16 GPUs, the cluster runs up to 24.
    # Mutation 5: it believes research's quota in p5 is 24, so any reclaim there goes below it.
    told = conf.replace("Capacity=gres/gpu=24", "Capacity=gres/gpu=16")
    told += "Share=Research Family=p5 Quota=gres/gpu=24\n"  # the later line wins in parse_conf
    told = told.replace("Share=ProdExp2 Family=p5 Quota=gres/gpu=12",
                        "Share=ProdExp2 Family=p5 Quota=gres/gpu=24")
    # Mutation 6: no preemption allowed at all in the loop window.
    invariants.MAX_PREEMPTIONS = 0
    checker = Checker(c, told).start()
    storm = Storm(c, checker, random.Random(7)).start()
    try:
        # Mutation 2: a job id in the record that slurmctld never had.
        checker.register(999999, "never-submitted")
        # Mutation 3: a cached image whose bytes do not match its name.
        cache = c.dir / "nodes" / "p4n1" / "images" / "sha256"
        cache.mkdir(parents=True, exist_ok=True)
        bad = cache / ("0" * 64)
        bad.write_bytes(b"not the image\n")
        # Mutation 4: a warm directory others can read.
        warm = c.dir / "nodes" / "p4n1" / "warm" / "warm-999999"
        warm.mkdir(parents=True, exist_ok=True)
        warm.chmod(0o755)
        # Mutation 7: a second process of a running job's script.
        first = wait_until("a running storm job", lambda: next(
            (j for j in sorted(checker.submitted) if c.job_state(j) == "RUNNING"), None))
        twin = subprocess.Popen(["bash", "-c",
                                 f"exec -a {invariants.script_prefix(c.dir)}{first} sleep 60"])
        kinds = ("capacity", "lost", "cache", "warm", "quota", "loop", "twice")
        wait_until("every mutation to be caught", lambda: all(
            any(f" {k}:" in v for v in checker.violations) for k in kinds), timeout=120)
    finally:
        storm.stop()
        checker.stop()
        twin.kill()
        for p in (bad, warm):
            (p.rmdir if p.is_dir() else p.unlink)() if p.exists() else None
        c.cancel_all()
        c.install_shareq_conf(original)
    caught = {k: [v for v in checker.violations if f" {k}:" in v] for k in kinds}
    for k, vs in caught.items():
        print(f"{k}: {len(vs)} violation(s), first: {vs[0] if vs else 'NONE'}")
    return 0 if all(caught.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
