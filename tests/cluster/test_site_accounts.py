"""A site's own accounts and habits on the real cluster: sub-accounts of a share, accounts in no
share (UnlistedAccounts), and `--nice` / `scontrol update Nice=` / `scontrol top`.

The accounts these tests add (`sacctmgr add account ... parent=`) reach slurmctld while it runs:
that is part of what is tested (no restart). Node-unit jobs use --exclusive, one job per node.
"""

import json
import shutil
import subprocess

import pytest

from exporter import free_port, http_get, samples, start_exporter
from slurm import run_each, wait_until

BASE = """
Family=p4 Partitions=p4 Capacity=node=4
Family=p5 Partitions=p5 Capacity=gres/gpu=32
Share=ProdExp1 Family=p4 Quota=node=2
Share=ProdExp2 Family=p4 Quota=node=2
Share=ProdExp2 Family=p5 Quota=gres/gpu=16
Share=Research Family=p5 Quota=gres/gpu=16
DefaultPriority=50
InSharePreemption=yes
ReclaimMinRuntime=0
ReclaimAfter=0
PreemptGraceTime=0
UnlistedAccounts={unlisted}
"""

SUB_ACCOUNT = "prodexp1-ranking"  # below prodexp1, a share
UNLISTED = "physics"  # below root, in no share


def conf(unlisted="borrow"):
    return BASE.format(unlisted=unlisted)


def add_account(c, account, parent, users):
    """Adds `account` under `parent` with `users`, and waits until slurmctld accepts a job of it
    (slurmdbd pushes the change to the running slurmctld)."""
    out = c.run(["sacctmgr", "-i", "add", "account", account, f"parent={parent}",
                 "cluster=shareq"])
    assert out.returncode == 0 or "Nothing new added" in out.stdout + out.stderr, out.stderr
    for user in users:
        out = c.run(["sacctmgr", "-i", "add", "user", user, f"account={account}",
                     "cluster=shareq", "qos=normal,low,high"])
        assert out.returncode == 0 or "Nothing new added" in out.stdout + out.stderr, out.stderr
    for user in users:
        wait_until(f"slurmctld to accept {user}'s jobs of account {account}",
                   lambda u=user: c.run(["sbatch", "--test-only", "-A", account, "-p", "p4",
                                         "--wrap=true"], user=u).returncode == 0,
                   timeout=60)


@pytest.fixture
def accounts(clean_queue):
    """The cluster with the test's accounts and shareq.conf; the cluster's own file afterwards."""
    c = clean_queue
    add_account(c, SUB_ACCOUNT, "prodexp1", ["alice"])
    add_account(c, UNLISTED, "root", ["bob"])
    path = c.dir / "etc" / "shareq.conf"
    original = path.read_text()
    c.install_shareq_conf(conf())
    yield c
    run_each(c.cancel_all, lambda: c.install_shareq_conf(original))


@pytest.fixture
def metrics(accounts):
    """shareq-exporter on the cluster: a function that returns the samples of one metric."""
    c = accounts
    port = free_port()
    base = c.dir / "site-accounts-exporter"
    shutil.rmtree(base, ignore_errors=True)  # counters from an earlier run would count here
    with open(c.dir / "site-accounts-exporter.log", "a") as log:
        proc = start_exporter(c, port, base, log)
    yield lambda name: samples(http_get(f"http://127.0.0.1:{port}/metrics"), name)
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def share_sample(metrics, name, share, **labels):
    """The value of `name` for `share` in family p4 (with `labels`), or None."""
    key = tuple(sorted({"family": "p4", "share": share, **labels}.items()))
    return metrics(name).get(key)


def node_job(c, user, *args, script="sleep 300"):
    return c.sbatch(user, "-p", "p4", "-N", "1", "--exclusive", "--requeue", *args, script=script)


def restarts(c, job):
    info = c.job(job)
    return int(info.get("Restarts", "0")) if info else 0


def pending_priority(c, job):
    out = c.run(["squeue", "-h", "-t", "PENDING", "-j", str(job), "-o", "%Q"]).stdout.strip()
    return int(out) if out else None


def sprio_row(c, job):
    """sprio's PRIORITY, SITE, FAIRSHARE, ASSOC and NICE columns of a pending job."""
    fields = c.run(["sprio", "-h", "-j", str(job), "-o", "%Y %S %F %B %N"]).stdout.split()
    assert len(fields) == 5, fields
    return dict(zip(["priority", "site", "fairshare", "assoc", "nice"], map(int, fields)))


# ---- sub-accounts -------------------------------------------------------------------------

@pytest.mark.every_release
def test_a_sub_accounts_jobs_count_and_rank_inside_its_parents_share(accounts, metrics):
    c = accounts
    jobs = [node_job(c, "alice", "-A", SUB_ACCOUNT) for _ in range(3)]
    for job in jobs:
        c.wait_state(job, "RUNNING")
    info = c.job(jobs[0])
    assert info["Account"] == SUB_ACCOUNT, info  # the site's accounting keeps its own account
    assert "share=prodexp1," in info["AdminComment"], info
    p4 = c.shareq_status("p4")
    assert p4["by_share"]["prodexp1"]["usage"] == 3, p4
    assert p4["by_share"]["prodexp1"]["borrowed"] == 1, p4
    rows = c.run(["sshare", "-n", "-P", "-a", "-o", "Account"]).stdout.splitlines()
    names = [r.strip() for r in rows]
    assert SUB_ACCOUNT in names and names.index(SUB_ACCOUNT) > names.index("prodexp1"), rows
    assert len(rows[names.index(SUB_ACCOUNT)]) - len(SUB_ACCOUNT) > \
        len(rows[names.index("prodexp1")]) - len("prodexp1"), "sshare nests it under prodexp1"
    # The metrics count them under ProdExp1, and name no share after the sub-account.
    wait_until("the exporter to count the sub-account's 3 jobs under prodexp1",
               lambda: share_sample(metrics, "shareq_running_jobs", "prodexp1") == 3, timeout=30)
    assert share_sample(metrics, "shareq_share_usage", "prodexp1") == 3
    assert share_sample(metrics, "shareq_share_borrowed", "prodexp1") == 1
    for name in ("shareq_running_jobs", "shareq_share_usage", "shareq_share_quota"):
        assert not [k for k in metrics(name) if ("share", SUB_ACCOUNT) in k], metrics(name)

    # prodexp2 within its quota takes back what the sub-account borrows, down to prodexp1's quota.
    owners = [node_job(c, "bob", "-A", "prodexp2") for _ in range(2)]
    for job in owners:
        c.wait_state(job, "RUNNING", timeout=90)
    reclaimed = [job for job in jobs if restarts(c, job) >= 1]
    assert len(reclaimed) == 1, [c.job(j) for j in jobs]
    assert f"(reclaim)" in c.job(reclaimed[0]).get("SystemComment", "")
    wait_until("the exporter to count the reclaim of the sub-account's job under prodexp1",
               lambda: share_sample(metrics, "shareq_preemptions_total", "prodexp1",
                                    reason="reclaim") == 1, timeout=60)


# ---- accounts in no share --------------------------------------------------------------

def test_an_unlisted_account_borrows_idle_capacity_after_every_share_and_is_reclaimed(accounts):
    c = accounts
    owned = [node_job(c, "alice", "-A", "prodexp1") for _ in range(2)]
    guests = [node_job(c, "bob", "-A", UNLISTED, "--share-priority=10") for _ in range(2)]
    for job in owned + guests:
        c.wait_state(job, "RUNNING")
    assert c.job(guests[0])["Account"] == UNLISTED
    assert "share=(unlisted)," in c.job(guests[0])["AdminComment"]
    p4 = c.shareq_status("p4")
    assert p4["by_share"]["(unlisted)"]["usage"] == 2, p4
    assert p4["by_share"]["(unlisted)"]["quota"] == 0, p4

    # Waiting: its reason says why; a share's borrower ranks ahead of it.
    waiting_guest = node_job(c, "bob", "-A", UNLISTED, "--share-priority=99")
    borrower = node_job(c, "alice", "-A", "prodexp1", "--share-priority=0")
    wait_until("the guest's reason to name unlisted accounts",
               lambda: "account in no share" in c.reason(waiting_guest))
    assert pending_priority(c, borrower) > pending_priority(c, waiting_guest)
    # Never preempting: the priority-99 guest waits beside the priority-10 guests it could
    # preempt if it were a share.
    assert all(restarts(c, job) == 0 and c.job_state(job) == "RUNNING" for job in guests)

    # A share within its quota reclaims from it.
    c.run(["scancel", str(borrower), str(waiting_guest)])
    owner = node_job(c, "bob", "-A", "prodexp2")
    c.wait_state(owner, "RUNNING", timeout=90)
    assert sum(restarts(c, job) for job in guests) == 1
    assert all(restarts(c, job) == 0 for job in owned)


def test_unlisted_accounts_refused_when_configured(accounts):
    c = accounts
    c.install_shareq_conf(conf(unlisted="refuse"))
    out = c.sbatch("bob", "-p", "p4", "-A", UNLISTED, expect_ok=False)
    assert out.returncode != 0
    assert "no share \"physics\"" in out.stderr and "UnlistedAccounts=refuse" in out.stderr, \
        out.stderr
    sub = c.sbatch("alice", "-p", "p4", "-A", SUB_ACCOUNT, "--exclusive")
    assert "share=prodexp1," in c.job(sub)["AdminComment"]  # a sub-account is no unlisted one
    named = c.sbatch("bob", "-p", "p4", f"--share={UNLISTED}", expect_ok=False)
    assert named.returncode != 0 and "no share \"physics\" in shareq.conf" in named.stderr


# ---- nice ----------------------------------------------------------------------------------

def fill_p4(c):
    """p4 full of prodexp2's own jobs at the highest priority: the waiting prodexp2 jobs below
    borrow, so nothing can be reclaimed or preempted for them, and they start only as nodes
    come free, in the order shareq ranks them."""
    fill = [node_job(c, "root", "-A", "prodexp2", "--share-priority=99") for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    return fill


def test_nice_orders_inside_a_share_and_priority(accounts):
    c = accounts
    fill = fill_p4(c)
    stepped_back = node_job(c, "alice", "-A", "prodexp2", "--nice=1000", script="sleep 60")
    plain = node_job(c, "alice", "-A", "prodexp2", script="sleep 60")
    wait_until("both ranked", lambda: pending_priority(c, stepped_back) and
               pending_priority(c, plain))
    assert pending_priority(c, plain) > pending_priority(c, stepped_back)
    row = sprio_row(c, stepped_back)
    assert row["nice"] == 1000, row
    assert row["priority"] == row["site"] + row["fairshare"] + row["assoc"] - row["nice"], row

    # A user steps back the other one further; it re-ranks at once.
    c.run(["scontrol", "update", f"JobId={plain}", "Nice=2000"], user="alice")
    wait_until("the update to re-rank the queue",
               lambda: pending_priority(c, stepped_back) > pending_priority(c, plain))
    assert sprio_row(c, plain)["nice"] == 2000

    # The order is what Slurm schedules by: one free node goes to the less nice job.
    c.run(["scancel", str(fill[0])])
    c.wait_state(stepped_back, "RUNNING", timeout=60)
    assert c.job_state(plain) == "PENDING"


def test_nice_never_crosses_share_priority_and_scontrol_top_reorders(accounts):
    c = accounts
    fill = fill_p4(c)
    high = node_job(c, "alice", "-A", "prodexp2", "--share-priority=60", "--nice=5000")
    first = node_job(c, "alice", "-A", "prodexp2", script="sleep 60")
    second = node_job(c, "alice", "-A", "prodexp2", script="sleep 60")
    wait_until("all ranked", lambda: all(pending_priority(c, j) for j in (high, first, second)))
    assert pending_priority(c, high) > pending_priority(c, first) >= pending_priority(c, second)

    # scontrol top by the jobs' owner (the test cluster sets SchedulerParameters=enable_user_top,
    # as a site must for users) works by nice values among one user's jobs of one partition:
    # `second` goes ahead of `first`.
    out = c.run(["scontrol", "top", str(second)], user="alice")
    assert out.returncode == 0, out.stderr
    wait_until("top to hold after shareq re-ranks",
               lambda: pending_priority(c, second) > pending_priority(c, first))
    c.run(["scancel", str(high)])
    c.run(["scancel", str(fill[0])])
    c.wait_state(second, "RUNNING", timeout=60)
    assert c.job_state(first) == "PENDING"


def test_check_config_notes_a_share_below_another_and_a_share_that_is_no_account(accounts):
    c = accounts
    path = c.dir / "etc" / "nested-shares.conf"
    path.write_text(conf() + "Share=prodexp1-ranking Family=p5 Quota=gres/gpu=0\n"
                             "Share=nosuchaccount Family=p5 Quota=gres/gpu=0\n")
    out = c.shareq("check-config", "--accounts", str(path))
    assert out.returncode == 0, out.stderr
    notes = [line for line in out.stdout.splitlines() if line.startswith("# note: ")]
    assert notes == [
        "# note: share nosuchaccount is no account in Slurm's association tree: no job runs "
        "under it until `sacctmgr add account nosuchaccount`",
        "# note: share prodexp1-ranking is below share prodexp1's account (prodexp1-ranking -> "
        "prodexp1): it is its own share, and prodexp1's quota does not cover its jobs (the "
        "nearest listed account wins)"], out.stdout
    plain = c.shareq("check-config", str(path))
    assert plain.returncode == 0 and "# note:" not in plain.stdout


def test_an_operators_explicit_priority_holds_over_shareqs_order(accounts):
    c = accounts
    fill = fill_p4(c)
    older = node_job(c, "alice", "-A", "prodexp2", script="sleep 60")
    younger = node_job(c, "alice", "-A", "prodexp2", script="sleep 60")
    wait_until("both ranked", lambda: pending_priority(c, older) and pending_priority(c, younger))
    held = pending_priority(c, older) + 5
    c.scontrol("update", f"JobId={younger}", f"Priority={held}")
    wait_until("the explicit priority", lambda: pending_priority(c, younger) == held)
    c.run(["scancel", str(fill[0])])
    c.wait_state(younger, "RUNNING", timeout=60)  # shareq's recalculations left it in place
    assert c.job_state(older) == "PENDING"
    assert pending_priority(c, older) < held


def queue_tiers(c):
    """{job id: tier} of every pending job in p4, as `shareq queue --json` gives them."""
    out = c.shareq("queue", "--family", "p4", "--json")
    assert out.returncode == 0, out.stderr
    return {job["job_id"]: job["tier"] for job in json.loads(out.stdout)["families"][0]["jobs"]}


def test_the_exporter_tiers_a_job_whose_priority_an_operator_set_as_shareq_ranks_it(accounts,
                                                                                     metrics):
    """An operator's Priority=P is any number: a within-quota job set low lacks the priority's
    within-quota bit, a borrower set high has it. The exporter's tier is the core's ranking
    (shareq queue's TIER), not that bit."""
    c = accounts
    fill_p4(c)  # prodexp2 borrows prodexp1's 2 nodes
    # Within prodexp1's quota; not eligible for an hour, so it reclaims nothing meanwhile.
    within = node_job(c, "alice", "-A", "prodexp1", "--begin=now+3600")
    borrower = node_job(c, "alice", "-A", "prodexp2")
    wait_until("both ranked", lambda: pending_priority(c, within) and
               pending_priority(c, borrower))
    c.scontrol("update", f"JobId={within}", "Priority=100")
    c.scontrol("update", f"JobId={borrower}", f"Priority={2**30 + 1000}")
    wait_until("the explicit priorities", lambda: pending_priority(c, within) == 100 and
               pending_priority(c, borrower) == 2**30 + 1000)
    assert queue_tiers(c) == {within: "within_quota", borrower: "borrow"}, queue_tiers(c)
    wait_until("the exporter to tier both as shareq ranks them",
               lambda: share_sample(metrics, "shareq_pending_jobs", "prodexp1",
                                    tier="within_quota") == 1 and
               share_sample(metrics, "shareq_pending_jobs", "prodexp2", tier="borrow") == 1,
               timeout=30)
    assert share_sample(metrics, "shareq_pending_jobs", "prodexp1", tier="borrow") is None
    assert share_sample(metrics, "shareq_pending_jobs", "prodexp2", tier="within_quota") is None
