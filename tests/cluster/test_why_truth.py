"""`shareq why` and `shareq status` tell the truth (issue 13, point 3): the tool builds the same
view slurmctld decides on (reserved warm pools, reclaims in flight, completing nodes) and calls
the same policy::decide(), so for every pending job the reason it says slurmctld gives is the one
`squeue -o %r` shows, and the job it says starts next is the one that does.

Family p4 (4 nodes, one job = one node with --exclusive) at capacity:
  - p4n3 is a warm pool of alice/prodexp1 (WarmPoolMode=reserve): prodexp1's whole quota (1 node,
    BorrowLimit 0) is held by it;
  - research (quota 1) runs two jobs: it borrows one node;
  - prodexp2 (quota 2) runs one job, and a second one, within its quota, reclaims research's
    youngest job, which runs on through its PreemptGraceTime: a reclaim in flight;
  - pending meanwhile: that reclaiming job, a prodexp1 job of another user (it does not match
    the pool), one more prodexp2 job and one more research job.
Every wait polls with a bounded timeout.
"""

import json
import re

import pytest

from slurm import RUNNING_STATES, WaitTimeout, run_each, wait_until

GRACE = 60  # the victim runs on this long after it is warned: the reclaim stays in flight

P4_SHARES = """Share=ProdExp1 Family=p4 Quota=node=1 BorrowLimit=node=0
Share=ProdExp2 Family=p4 Quota=node=2
Share=Research Family=p4 Quota=node=1 BorrowLimit=UNLIMITED
ReclaimMinRuntime=0
ReclaimAfter=0
PreemptGraceTime={grace}
WarmPoolMode=reserve
"""

REPLACED = ("WarmPoolMode=", "ReclaimMinRuntime=", "ReclaimAfter=", "PreemptGraceTime=")


def truth_conf(original):
    lines = [l for l in original.splitlines()
             if not l.startswith(REPLACED) and not (l.startswith("Share=") and "Family=p4" in l)]
    return "\n".join(lines) + "\n" + P4_SHARES.format(grace=GRACE)


def p4_nodes():
    return [f"p4n{i}" for i in range(1, 5)]


def end_pools(c):
    """Ends every warm pool as an admin would (`shareq pools end`), waits until they are gone."""
    names = {m.group(1) for n in p4_nodes()
             if (m := re.match(r"shareq:(wp-\d+),", c.node_extra(n)))}
    for name in names:
        done = c.shareq("pools", "end", name)
        assert done.returncode == 0, done.stderr
    for n in p4_nodes():
        wait_until(f"{n} to be cold", lambda n=n: c.node_extra(n) == "")


@pytest.fixture
def truth(clean_queue):
    c = clean_queue
    end_pools(c)
    path = c.dir / "etc" / "shareq.conf"
    original = path.read_text()
    c.install_shareq_conf(truth_conf(original))
    try:
        yield c
    finally:
        run_each(c.cancel_all, lambda: end_pools(c), lambda: c.install_shareq_conf(original))


def node_job(c, user, share, *extra, script="sleep 600"):
    return c.sbatch(user, "-p", "p4", "-N1", "--exclusive", f"--share={share}", *extra,
                    script=script)


def queue(c):
    return c.run(["squeue", "-h", "-o", "%i %u %a %T %N %r"]).stdout


def pending_jobs(c):
    out = c.run(["squeue", "-h", "-t", "PENDING", "-o", "%i"])
    return sorted(int(j) for j in out.stdout.split())


def decision_of(c, job):
    """The `decision:` line `shareq why JOB` gives for family p4 (the scheduler's decide())."""
    out = c.shareq("why", str(job))
    assert out.returncode == 0, out.stderr
    assert "warning" not in out.stderr, out.stderr
    m = re.search(r"^family p4:.*\n(?:  .*\n)*?  decision:\s+(.*)$", out.stdout, re.M)
    assert m, f"no decision for family p4 in shareq why {job}:\n{out.stdout}"
    return m.group(1), out.stdout


def agrees(decision, scheduler_reason):
    """Whether squeue's reason is the one the tool says slurmctld gives."""
    m = re.search(r"slurmctld's reason: (.*)$", decision)
    if decision.startswith("waits;"):  # the shareq words exactly
        return m is not None and scheduler_reason == m.group(1)
    if decision.startswith("starts once a node has room;"):
        # Its victims (or a completing node) are still ending: the shareq words once the
        # scheduler has tried it and found no node, Slurm's own before.
        return scheduler_reason == m.group(1) or not scheduler_reason.startswith("shareq")
    # It starts (or preempts and starts): no shareq reason, Slurm's own until it runs.
    return not scheduler_reason.startswith("shareq")


def scheduler_decided(c, jobs):
    """Waits until slurmctld has given each of `jobs` a reason of shareq's (it tried them)."""
    try:
        wait_until(f"slurmctld to give jobs {jobs} a shareq reason",
                   lambda: all(c.reason(j).startswith("shareq:") for j in jobs), timeout=30)
    except WaitTimeout as e:
        raise AssertionError(f"{e}; the queue:\n{queue(c)}") from None


def check_every_pending_job_agrees(c, expected_pending, what):
    """Polls until, for every pending job, `shareq why` says the reason squeue shows (the
    scheduler's reason lags its decisions by up to a pass); fails naming each disagreement."""
    last = {}

    def all_agree():
        pending = pending_jobs(c)
        if pending != sorted(expected_pending):
            last["pending"] = pending
            return False
        bad = {}
        for job in pending:
            decision, text = decision_of(c, job)
            said = c.reason(job)
            if not agrees(decision, said):
                bad[job] = {"shareq why": text, "squeue %r": said}
        last["disagreements"] = bad
        return not bad

    try:
        wait_until(what, all_agree, timeout=30)
    except WaitTimeout as e:
        raise AssertionError(f"{e}: {json.dumps(last, indent=1)}\nthe queue:\n{queue(c)}") \
            from None


def test_why_and_status_agree_with_the_scheduler_with_pools_reclaims_and_borrowers(truth):
    c = truth
    # prodexp1's warm pool on p4n3, made by alice's job: it holds prodexp1's one node of quota.
    maker = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "-w", "p4n3",
                     "--share=prodexp1", "--keep-alive=900", script="true")
    c.wait_state(maker, "COMPLETED")
    wait_until("p4n3 to show a warm pool", lambda: c.node_extra("p4n3").startswith("shareq:"))

    # research borrows: two jobs on its quota of one (the youngest is the reclaim's victim;
    # --no-requeue: preempted, it ends rather than coming back as a pending job).
    research = [node_job(c, "bob", "research", "--no-requeue") for _ in range(2)]
    for job in research:
        c.wait_state(job, "RUNNING")
    held = node_job(c, "bob", "prodexp2")
    c.wait_state(held, "RUNNING")

    # prodexp2's second job is within its quota: it reclaims research's youngest job, which
    # runs on through its grace time while the reclaimer waits for it.
    reclaimer = node_job(c, "bob", "prodexp2")
    victim = max(research)

    def warned():
        info = c.job(victim)
        return (info.get("PreemptTime", "None") != "None"
                and f"preempted by job {reclaimer} (reclaim)" in info.get("SystemComment", "")
                and info)

    try:
        info = wait_until(f"job {victim} to be warned of its preemption by job {reclaimer}",
                          warned, timeout=30)
    except WaitTimeout as e:
        raise AssertionError(f"{e}; the queue:\n{queue(c)}") from None
    assert info["JobState"] in RUNNING_STATES, info

    # Pending meanwhile: prodexp1 (root's job: not the pool's owner, so not the pool's match),
    # prodexp2 beyond its quota, research beyond its quota.
    owner_plain = c.sbatch("root", "-p", "p4", "-N1", "--exclusive", "-A", "prodexp1",
                           script="sleep 600")
    over = node_job(c, "bob", "prodexp2")
    borrower = node_job(c, "bob", "research", "--no-requeue")
    waiting = [reclaimer, owner_plain, over, borrower]

    # Until the scheduler has tried a new job its reason is Slurm's default; here every job but
    # the reclaimer waits, each for a reason of shareq's.
    scheduler_decided(c, waiting[1:])
    check_every_pending_job_agrees(c, waiting, "shareq why to agree with squeue during the reclaim")
    assert c.job_state(victim) in RUNNING_STATES, "the reclaim was still in flight during the check"

    # status: usage as the scheduler's ledger counts it (the pool is prodexp1's usage; the
    # reclaimer counts, its victim no longer), and the job that starts next.
    p4 = c.shareq_status("p4")
    usage = {s: (r["usage"], r["reserved"]) for s, r in p4["by_share"].items()}
    assert usage == {"prodexp1": (1, 1), "prodexp2": (2, 0), "research": (1, 0)}, p4
    assert (p4["used"], p4["idle"]) == (4, 0), p4
    assert p4["next_job"] == reclaimer, p4
    assert f"next to start in p4: job {reclaimer} (prodexp2)\n" in c.shareq("status").stdout
    _, text = decision_of(c, reclaimer)
    assert "it starts next" in text, text
    for job in waiting[1:]:
        _, text = decision_of(c, job)
        assert f"job {reclaimer} starts next" in text, text

    # The job said to start next is the one that does: nothing else leaves the queue first.
    def started():
        return [job for job in waiting if c.job_state(job) != "PENDING"]

    first = wait_until("a pending job to start", started, timeout=GRACE + 90)
    assert first == [reclaimer], f"shareq said job {reclaimer} starts next; {first} started"
    c.wait_state(reclaimer, "RUNNING")

    # Afterwards the family is full again: every other job waits, as the tool says.
    scheduler_decided(c, waiting[1:])
    check_every_pending_job_agrees(c, waiting[1:], "shareq why to agree with squeue afterwards")
    assert c.shareq_status("p4")["next_job"] is None
