"""An image's digest is resolved outside slurmctld's locks (issue 17, point 1).

slurmctld never waits on the image store: job_submit queues a question to a thread of its own,
and a job with --image waits, with a reason that says why, until the store's answer (asked at or
after its submission) is in. Tried with a store that accepts connections and never answers.
Every wait is bounded.
"""

import hashlib
import os
import socket
import threading
import time

import pytest

from slurm import wait_until


class HungStore:
    """An HTTP "store" on 127.0.0.1 that accepts every connection and never answers.

    `opened` counts the connections it accepted; `closed` those whose client gave up."""

    def __init__(self):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.opened = 0
        self.closed = 0
        self.lock = threading.Lock()
        self.stopping = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.opened += 1
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn):
        with conn:
            try:
                while conn.recv(4096):
                    pass  # read the request, never answer
            except OSError:
                pass
        with self.lock:
            self.closed += 1

    def counts(self):
        with self.lock:
            return self.opened, self.closed

    def stop(self):
        self.stopping = True
        self.listener.close()


def with_store(text, url):
    lines = [l for l in text.splitlines() if not l.startswith("ImageStore=")]
    return "\n".join(lines) + f"\nImageStore={url}\n"


@pytest.fixture
def hung_store(clean_queue):
    c = clean_queue
    path = c.dir / "etc" / "shareq.conf"
    original = path.read_text()
    store = HungStore()
    c.install_shareq_conf(with_store(original, f"http://127.0.0.1:{store.port}"))
    yield c, store, original
    c.cancel_all()
    c.install_shareq_conf(original)
    store.stop()


def publish(c, name):
    data = os.urandom(50_000)
    digest = hashlib.sha256(data).hexdigest()
    (c.dir / "images" / name).write_bytes(data)
    (c.dir / "images" / f"{name}.sha256").write_text(digest + "\n")
    return digest


def test_a_hung_image_store_stalls_no_submission_and_its_jobs_run_once_it_answers(hung_store):
    c, store, original = hung_store
    submitted = []

    def submit():
        out = c.run(["sbatch", "--parsable", "-o", "/dev/null", "-p", "p4", "-n1",
                     "--image=llama-train", "--wrap=true"], user="alice", timeout=300)
        submitted.append(out)

    threads = [threading.Thread(target=submit) for _ in range(20)]
    for t in threads:
        t.start()
    wait_until("slurmctld to ask the hung store", lambda: store.counts()[0] >= 1)

    # Another user's sbatch and squeue answer while the store's first question is still open
    # (it stays open until the asker's transfer timeout): nothing in slurmctld waits on it.
    other = c.sbatch("bob", "-p", "p4", script="true")
    queue = c.run(["squeue", "-h"], user="bob")
    closed = store.counts()[1]
    assert queue.returncode == 0, queue.stderr
    assert closed == 0, f"bob's commands returned only after {closed} question(s) timed out"
    c.wait_state(other, "COMPLETED")

    for t in threads:
        t.join(timeout=300)
    assert len(submitted) == 20
    assert all(out.returncode == 0 for out in submitted), [o.stderr for o in submitted]
    jobs = [int(out.stdout.strip().split(";")[0]) for out in submitted]

    # They wait, saying why; none starts on an image it does not know.
    wait_until("the jobs to wait for the image store",
               lambda: all("image llama-train" in c.reason(j) for j in jobs))
    assert all(c.job_state(j) == "PENDING" for j in jobs)

    # The store answers again: every job runs.
    c.install_shareq_conf(original)
    for j in jobs:
        c.wait_state(j, "COMPLETED", timeout=180)


def test_job_submit_reloaded_while_a_question_is_in_flight_asks_it_again(hung_store):
    """Slurm 22.05 reloads the job_submit plugins at `scontrol reconfigure` when JobSubmitPlugins
    changed: fini, under slurmctld's write locks, then init. fini cancels a question in flight to
    the image store (it does not wait for the store's own timeouts under those locks), and the
    reloaded plugin asks it again: the job runs once the store answers."""
    c, store, original = hung_store
    job = c.sbatch("alice", "-p", "p4", "-n1", "--image=llama-train", script="true")
    wait_until("slurmctld to ask the hung store", lambda: store.counts()[0] >= 1)
    offset = c.log_offset()
    # A question in flight (a connection the store holds open) when fini runs.
    wait_until("a question to the store in flight",
               lambda: store.counts()[0] > store.counts()[1])
    with c.slurm_conf_edited(lambda text: text.replace("JobSubmitPlugins=shareq\n",
                                                        "JobSubmitPlugins=shareq,logging\n")):
        wait_until("job_submit/shareq to be loaded again",
                   lambda: "shareq: job_submit: loaded" in c.log_since(offset))
        assert c.job_state(job) == "PENDING"
        c.install_shareq_conf(original)  # the store answers
        c.wait_state(job, "COMPLETED", timeout=180)


def test_an_unpublished_image_waits_with_the_stores_answer_and_runs_once_published(clean_queue):
    c = clean_queue
    name = f"later-{os.urandom(3).hex()}"
    job = c.sbatch("alice", "-p", "p4", "-n1", f"--image={name}", script="true")
    wait_until("the job to show the store's answer",
               lambda: f"image {name}: cannot read its published digest" in c.reason(job))
    assert c.job_state(job) == "PENDING"
    publish(c, name)
    c.wait_state(job, "COMPLETED", timeout=120)


def test_a_pin_the_store_does_not_publish_waits_and_says_which(clean_queue):
    c = clean_queue
    published = (c.dir / "images" / "llama-train.sha256").read_text().split()[0]
    wrong = hashlib.sha256(b"not the image").hexdigest()
    job = c.sbatch("alice", "-p", "p4", "-n1", f"--image=llama-train@sha256:{wrong}",
                   script="true")
    wait_until("the job to name both digests",
               lambda: wrong in c.reason(job) and published in c.reason(job))
    assert c.job_state(job) == "PENDING"
    ok = c.sbatch("alice", "-p", "p4", "-n1", f"--image=llama-train@sha256:{published}",
                  script="true")
    c.wait_state(ok, "COMPLETED")


def cached_digests(c):
    """Every digest in any node's image cache."""
    return {p.name for p in (c.dir / "nodes").glob("*/images/sha256/*") if "tmp" not in p.name}


def test_a_job_submitted_after_a_push_runs_the_new_image(clean_queue):
    c = clean_queue
    name = f"pushed-{os.urandom(3).hex()}"
    old = publish(c, name)
    first = c.sbatch("alice", "-p", "p4", "-n1", f"--image={name}", script="true")
    c.wait_state(first, "COMPLETED")
    assert old in cached_digests(c)
    # Pushed a second after slurmctld last asked about it (answers count to the second).
    wait_until("a new second", lambda: (c.dir / "images" / f"{name}.sha256").stat().st_mtime
               < time.time() - 1)
    new = publish(c, name)
    second = c.sbatch("alice", "-p", "p4", "-n1", f"--image={name}", script="true")
    c.wait_state(second, "COMPLETED")
    assert new in cached_digests(c)
