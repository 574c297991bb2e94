"""A reclaim storm with warm pools, for the faults to strike during.

shareq.conf for the storm (storm_conf): the cluster's own with ReclaimAfter=0 and
ReclaimMinRuntime=5 (reclaims at once, and often), and family p5 made smaller than its nodes
(Capacity=gres/gpu=24, quotas 12 and 12) so that the capacity invariant is not one the hardware
keeps by itself. Borrowers (alice): prodexp1 in p4 (one node each, 4 jobs, quota 2) and
prodexp2 in p5 (4 GPUs each, 6 jobs, quota 12), long, requeueable. Reclaimers (bob): waves of
short jobs within quota, prodexp2 in p4 and research in p5 (a wave only while fewer than two of
bob's wait in its partition), each with an image and a keep-alive,
so that they leave warm pools which the borrowers' restarted jobs then end (prefer mode).
Every job's script runs as `faultjob-CLUSTER-ID` (invariants.py counts its processes).
"""

import hashlib
import os
import random
import re
import subprocess
import threading
import uuid

from invariants import script_prefix

IMAGE = "fault-img"


def job_script(c, seconds):
    return f"exec bash -c 'exec -a {script_prefix(c.dir)}$SLURM_JOB_ID sleep {seconds}'"


def storm_conf(original, c):
    lines = []
    for line in original.splitlines():
        if line.startswith(("ReclaimAfter=", "ReclaimMinRuntime=", "WarmPoolMode=")):
            continue
        if line.startswith("Family=p5 "):
            line = re.sub(r"Capacity=\S+", "Capacity=gres/gpu=24", line)
        if line.startswith("Share=") and "Family=p5" in line:
            line = re.sub(r"Quota=\S+", "Quota=gres/gpu=12", line)
        lines.append(line)
    lines += ["ReclaimAfter=0", "ReclaimMinRuntime=5", "WarmPoolMode=prefer"]
    return "\n".join(lines) + "\n"


def publish(c, name, data=None):
    data = data if data is not None else os.urandom(100_000)
    (c.dir / "images" / name).write_bytes(data)
    (c.dir / "images" / f"{name}.sha256").write_text(hashlib.sha256(data).hexdigest() + "\n")


def resume_drained(c):
    """Nodes a fault left drained (after kill -9 of slurmctld, Slurm drains a node with
    "Duplicate jobid" when a job id it gave again lands where the lost job of that id was): said
    and resumed, so that the next test has every node."""
    out = c.run(["sinfo", "-h", "-N", "-o", "%N|%T|%E"]).stdout
    for line in out.splitlines():
        node, state, reason = line.split("|", 2)
        if "drain" in state:
            print(f"node {node} was {state}: {reason}; resumed")
            c.scontrol("update", f"NodeName={node}", "State=RESUME")


class Storm:
    def __init__(self, c, checker, rng):
        self.c = c
        self.checker = checker
        self.rng = random.Random(rng.random())
        self.refused = 0
        self._stop = threading.Event()
        self._thread = None
        publish(c, IMAGE)

    def submit(self, user, *args, seconds):
        name = f"f{uuid.uuid4().hex[:10]}"  # the checker tells a job from a later one of its id
        out = self.c.run(["sbatch", "--parsable", "-o", "/dev/null", "--requeue",
                          f"--job-name={name}", *args, f"--wrap={job_script(self.c, seconds)}"],
                         user=user, timeout=90)
        if out.returncode != 0:
            self.refused += 1  # slurmctld down (a fault): not submitted, nothing to lose
            return None
        job = int(out.stdout.strip().split(";")[0])
        self.checker.register(job, name)
        return job

    # The borrowers: how many of each kind the storm keeps pending or running.
    BORROWERS = {"p4": 4, "p5": 6}
    # The reclaimers: a wave in a partition only while fewer of bob's wait there (wave()).
    MAX_WAITING = 2

    def borrower(self, partition):
        if partition == "p4":
            return self.submit("alice", "-p", "p4", "-N1", "--exclusive", "-A", "prodexp1",
                               f"--image={IMAGE}", seconds=900)
        return self.submit("alice", "-p", "p5", "-N1", "--gres=gpu:4", "-A", "prodexp2",
                           seconds=900)

    def borrowers(self):
        return [self.borrower(p) for p, n in self.BORROWERS.items() for _ in range(n)]

    def queue(self):
        """(user, partition, state) of every job slurmctld has pending or running; None when it
        does not answer."""
        try:
            out = self.c.run(["squeue", "-h", "-o", "%u %P %T"], timeout=30)
        except subprocess.TimeoutExpired:
            return None
        if out.returncode != 0:
            return None
        return [tuple(line.split()) for line in out.stdout.splitlines() if line.strip()]

    def top_up(self, queue):
        """Borrowers that ended (those within quota run their 900 s) are replaced, so that a
        long soak still has something to reclaim."""
        for partition, n in self.BORROWERS.items():
            have = sum(1 for user, part, _ in queue if user == "alice" and part == partition)
            for _ in range(n - have):
                self.borrower(partition)

    def wave(self, queue):
        """1-2 reclaimers in p4 and 1-3 in p5, each partition's only while bob has fewer than
        MAX_WAITING pending there: the waves come about as fast as two nodes serve them, and
        without the bound a long soak (kills, restarts) piles up a backlog that keeps his shares
        at their quotas for good, leaving the borrowers no idle capacity and so nothing to
        reclaim."""
        def waiting(partition):
            return sum(1 for user, part, state in queue
                       if user == "bob" and part == partition and state == "PENDING")
        p4 = [(self.rng.randint(5, 30), self.rng.randint(3, 12))
              for _ in range(self.rng.randint(1, 2))]
        p5 = [(self.rng.randint(5, 30), self.rng.randint(3, 12))
              for _ in range(self.rng.randint(1, 3))]
        if waiting("p4") < self.MAX_WAITING:
            for keep_alive, seconds in p4:
                self.submit("bob", "-p", "p4", "-N1", "--exclusive", "-A", "prodexp2",
                            f"--image={IMAGE}", f"--keep-alive={keep_alive}", seconds=seconds)
        if waiting("p5") < self.MAX_WAITING:
            for keep_alive, seconds in p5:
                self.submit("bob", "-p", "p5", "-N1", "--gres=gpu:4", "-A", "research",
                            f"--image={IMAGE}", f"--keep-alive={keep_alive}", seconds=seconds)

    def start(self):
        """Borrowers first, then a wave of reclaimers every 4 to 12 s until stop()."""
        self.borrowers()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="storm")
        self._thread.start()
        return self

    def _loop(self):
        while not self._stop.is_set():
            queue = self.queue()
            if queue is not None:  # slurmctld answers (a fault may have stopped it)
                self.top_up(queue)
                self.wave(queue)
            self._stop.wait(self.rng.uniform(4, 12))

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=300)
