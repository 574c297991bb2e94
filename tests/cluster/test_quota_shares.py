"""Quota shares on the real cluster: borrowing, reclaim, in-share priority preemption, limits.

Each test installs its own shareq.conf through `scontrol reconfigure` (the reconfigure path is
itself under test) and restores the cluster's file afterwards. Node-unit jobs use --exclusive so
that one job is one node, as on a GPU cluster where jobs take whole instances.
"""

import re
import time
import uuid

import pytest

from slurm import RUNNING_STATES, wait_until

BASE = """
Family=p4 Partitions=p4 Capacity=node={p4_capacity}
Family=p5 Partitions=p5 Capacity=gres/gpu=32
Share=ProdExp1 Family=p4 Quota=node={q1} {p1_extra}
Share=ProdExp2 Family=p4 Quota=node={q2} {p2_extra}
Share=ProdExp2 Family=p5 Quota=gres/gpu=16
Share=Research Family=p5 Quota=gres/gpu=16 {research_extra}
DefaultPriority=50
InSharePreemption=yes
ReclaimMinRuntime={min_runtime}
ReclaimAfter={reclaim_after}
PreemptGraceTime={grace}
"""


def conf(p4_capacity=4, q1=2, q2=2, p1_extra="", p2_extra="", research_extra="",
         min_runtime=0, grace=0, reclaim_after=0):
    return BASE.format(**locals())


@pytest.fixture
def shares(own_shareq_conf):
    """Each test installs a shareq.conf of its own; the cluster's own is put back afterwards."""
    return own_shareq_conf


def node_job(c, user, share, script="sleep 300", priority=None, *extra):
    args = ["-p", "p4", "-N", "1", "--exclusive", f"--share={share}", "--requeue"]
    if priority is not None:
        args.append(f"--share-priority={priority}")
    return c.sbatch(user, *args, *extra, script=script)


def gpu_job(c, user, share, gpus, priority, script="sleep 300"):
    return c.sbatch(user, "-p", "p5", f"--gres=gpu:{gpus}", f"--share={share}",
                    f"--share-priority={priority}", "--requeue", script=script)


def pending_order(c, first, second, first_ahead):
    """squeue's priorities of the pending jobs when both are pending and `first` is ahead of
    `second` (or, with first_ahead False, behind it); else None."""
    out = c.run(["squeue", "-h", "-t", "PENDING", "-o", "%i %Q"]).stdout
    prios = {int(i): int(q) for i, q in (line.split() for line in out.splitlines())}
    if not {first, second} <= prios.keys():
        return None
    return prios if (prios[first] > prios[second]) == first_ahead else None


def running_count(c, account, partition="p4"):
    out = c.run(["squeue", "-h", "-t", "RUNNING", "-A", account, "-p", partition, "-o", "%D"])
    return sum(int(n) for n in out.stdout.split())


def restarts(c, job):
    info = c.job(job)
    return int(info.get("Restarts", "0")) if info else 0


# ---- borrowing and reclaim (the seed's Figure 1) -------------------------------------------

@pytest.mark.every_release
def test_idle_quota_is_borrowed_and_reclaimed_down_to_exactly_the_quota(shares):
    c = shares
    c.install_shareq_conf(conf())
    owner_first = node_job(c, "bob", "prodexp2")
    c.wait_state(owner_first, "RUNNING")
    borrowers = [node_job(c, "alice", "prodexp1", script="sleep 120") for _ in range(3)]
    for job in borrowers:
        c.wait_state(job, "RUNNING")  # prodexp1 runs 3 on a quota of 2: it borrows 1
    assert running_count(c, "prodexp1") == 3

    owner_second = node_job(c, "bob", "prodexp2")  # within prodexp2's quota: reclaims
    c.wait_state(owner_second, "RUNNING", timeout=60)
    requeued = [job for job in borrowers if restarts(c, job) >= 1]
    assert len(requeued) == 1, "exactly one borrowed job is reclaimed"
    assert requeued[0] == max(borrowers), "the youngest borrowed job goes first"
    assert running_count(c, "prodexp1") == 2, "the borrower ends exactly at its quota"
    assert running_count(c, "prodexp2") == 2
    assert c.job_state(requeued[0]) == "PENDING"
    victim = c.job(requeued[0])
    assert f"preempted by job {owner_second} (reclaim)" in victim.get("SystemComment", ""), victim
    assert victim["Account"] == "prodexp1" and "share=prodexp1" in victim["AdminComment"]
    history = c.run(["sacct", "-n", "-P", "-D", "-X", "-j", str(requeued[0]), "-o", "State"])
    assert "PREEMPTED" in history.stdout.split() or "REQUEUED" in history.stdout.split(), history

    c.run(["scancel", str(owner_first), str(owner_second)])
    for job in borrowers:
        c.wait_state(job, "COMPLETED", timeout=300)


def test_jobs_deciding_while_victims_end_see_them_gone(shares):
    """Three jobs of a share with quota 2 arrive together while another share borrows the
    family, and victims get a grace period. Decisions taken while the first victim is still
    ending must see it gone and its preemptor running (reclaim_claims.hpp): the second job then
    reclaims the second node at once (both victims are warned before either job starts), and the
    third, which would borrow, preempts nothing. Deciding blindly instead, the second job picks
    the first job's victim again and reclaims only after the first job has started."""
    c = shares
    grace = 10
    c.install_shareq_conf(conf(grace=grace))
    lender = [node_job(c, "bob", "prodexp2") for _ in range(4)]
    for job in lender:
        c.wait_state(job, "RUNNING")
    owners = [node_job(c, "alice", "prodexp1") for _ in range(3)]

    def warned():
        return [job for job in lender if c.job(job).get("PreemptTime", "None") != "None"]

    wait_until("two lender jobs warned", lambda: len(warned()) >= 2, timeout=grace + 30)
    started = [job for job in owners if c.job_state(job) == "RUNNING"]
    assert not started, f"both victims are warned before a reclaimer starts: {started} started"
    for job in owners[:2]:
        c.wait_state(job, "RUNNING", timeout=grace + 60)
    # Hold the check for a while: a late over-reclaim would show up as a third requeue.
    deadline = time.monotonic() + grace + 5
    while time.monotonic() < deadline:
        assert running_count(c, "prodexp2") == 2, "the lender keeps exactly its quota"
        assert c.job_state(owners[2]) == "PENDING", "the third job would borrow: it waits"
        time.sleep(1)
    assert sum(1 for job in lender if restarts(c, job) >= 1) == 2, "exactly two were reclaimed"
    assert running_count(c, "prodexp1") == 2


@pytest.mark.every_release
def test_a_job_within_quota_takes_back_borrowed_gpus_where_it_fits(shares):
    """prodexp2 borrows 8 of p5's 32 GPUs with four 6-GPU jobs, one per node: 8 GPUs are free,
    2 on each node. research asks for 8 within its quota: it fits by the numbers but on no node,
    so it reclaims one borrowed job (the youngest) and starts on that job's node."""
    c = shares
    c.install_shareq_conf(conf())
    borrowers = []
    for _ in range(4):
        borrowers.append(gpu_job(c, "bob", "prodexp2", 6, 50))
        c.wait_state(borrowers[-1], "RUNNING")
    owner = gpu_job(c, "bob", "research", 8, 50)
    info = c.wait_state(owner, "RUNNING", timeout=60)
    requeued = [job for job in borrowers if restarts(c, job) >= 1]
    assert requeued == [borrowers[-1]], "only the youngest borrowed job is reclaimed"
    assert running_count(c, "prodexp2", "p5") == 3
    assert f"preempted by job {owner} (reclaim)" in c.job(requeued[0]).get("SystemComment", "")
    history = c.run(["sacct", "-n", "-P", "-D", "-X", "-j", str(requeued[0]), "-o", "NodeList"])
    assert info["NodeList"] in history.stdout.split(), "it starts where the reclaimed job ran"


def research_on_all_of_p5(c, first_script="sleep 300"):
    """Research runs four 8-GPU jobs on p5's 32 GPUs (quota 16): the first (running
    `first_script`), then three that borrow. Returns them and prodexp2's held 8-GPU job, which is
    within its quota once released."""
    c.install_shareq_conf(conf())  # p5: 32 GPUs, research and prodexp2 16 each
    first = gpu_job(c, "bob", "research", 8, 50, script=first_script)
    c.wait_state(first, "RUNNING")
    borrowed = [gpu_job(c, "bob", "research", 8, 50) for _ in range(3)]
    for job in borrowed:
        c.wait_state(job, "RUNNING")
    owner = c.sbatch("bob", "-p", "p5", "--gres=gpu:8", "--share=prodexp2",
                     "--share-priority=50", "--requeue", "--hold", script="sleep 300")
    return first, borrowed, owner


def test_a_job_within_quota_waits_for_a_completing_node_instead_of_reclaiming(shares):
    """A job end frees a node by the numbers at once, but Slurm gives the node out only once the
    job's processes are gone (COMPLETING; here up to KillWait=5 s, the job ignores SIGTERM). A job
    within quota that fits by the numbers must wait for that node, not reclaim borrowed GPUs on
    another one: they would be preempted for capacity that is free a moment later."""
    c = shares
    slow_to_end, borrowed, owner = research_on_all_of_p5(c, "trap '' TERM; sleep 300")
    node = c.job(slow_to_end)["NodeList"]

    c.run(["scancel", str(slow_to_end)])
    wait_until("the ended job's node to be completing",
               lambda: "COMPLETING" in (c.job_state(slow_to_end) or "")
               or "comp" in c.run(["sinfo", "-h", "-n", node, "-o", "%T"]).stdout, timeout=10)
    c.run(["scontrol", "release", str(owner)])  # within quota, fits by the numbers
    c.wait_state(owner, "RUNNING", timeout=60)
    assert c.job(owner)["NodeList"] == node, "it waited for the node that was completing"
    for job in borrowed:
        info = c.job(job)
        assert restarts(c, job) == 0 and info.get("PreemptTime", "None") == "None", \
            f"job {job} was preempted for capacity that was being freed: {info}"


@pytest.mark.every_release
def test_a_node_stuck_completing_holds_a_reclaim_back_only_for_a_bounded_time(shares):
    """The wait for a completing node is bounded: KillWait + 2 x MessageTimeout + 10 s after the
    job ended (35 s here). A node whose epilog hangs longer stops holding the job back, which then
    takes back borrowed GPUs on another node: one borrowed job, no more."""
    c = shares
    stuck, borrowed, owner = research_on_all_of_p5(c)
    node = c.job(stuck)["NodeList"]
    hold = c.dir / "etc" / "epilog-hold" / str(stuck)
    hold.write_text("held by the test\n")  # the epilog keeps the node COMPLETING while it exists
    try:
        c.run(["scancel", str(stuck)])
        wait_until("the ended job's node to be completing",
                   lambda: "comp" in c.run(["sinfo", "-h", "-n", node, "-o", "%T"]).stdout,
                   timeout=10)
        c.run(["scontrol", "release", str(owner)])  # within quota, fits by the numbers
        wait_until("the job to wait for the completing node",
                   lambda: "finish cleaning up" in c.reason(owner), timeout=20)
        assert all(restarts(c, job) == 0 for job in borrowed), "nothing preempted while it waits"
        info = c.wait_state(owner, "RUNNING", timeout=90)
        assert info["NodeList"] != node, "the stuck node was still completing"
        assert "comp" in c.run(["sinfo", "-h", "-n", node, "-o", "%T"]).stdout
        requeued = [job for job in borrowed if restarts(c, job) >= 1]
        assert len(requeued) == 1, f"one borrowed job makes room, no more: {requeued}"
        assert f"preempted by job {owner} (reclaim)" in c.job(requeued[0]).get("SystemComment", "")
    finally:
        hold.unlink(missing_ok=True)


def test_a_job_end_reranks_the_queue_before_slurm_schedules_again(shares):
    """Two shares run at their quota and each has a job waiting that would borrow. One share's
    running job ends: its waiting job is now within quota. Slurm schedules at once (epilog
    complete) in the order of the priorities it holds; ranked before the end, that order put the
    other share's borrower first, which took the freed node and was reclaimed a moment later by
    the job within quota. The pending jobs are re-ranked after every job start and end
    (plugins/priority/recalc.hpp), so the job within quota starts and the borrower never does."""
    c = shares
    c.install_shareq_conf(conf())
    running = {"prodexp1": [node_job(c, "alice", "prodexp1") for _ in range(2)],
               "prodexp2": [node_job(c, "bob", "prodexp2") for _ in range(2)]}
    for jobs in running.values():
        for job in jobs:
            c.wait_state(job, "RUNNING")
    waiting = {"prodexp1": node_job(c, "alice", "prodexp1"),
               "prodexp2": node_job(c, "bob", "prodexp2")}

    def borrower_priorities():
        out = c.run(["squeue", "-h", "-t", "PENDING", "-o", "%i %Q"]).stdout
        prios = {int(i): int(q) for i, q in (line.split() for line in out.splitlines())}
        both = all(job in prios and prios[job] < 2**30 for job in waiting.values())
        return both and prios

    prios = wait_until("both waiting jobs ranked as borrowers", borrower_priorities)
    # The borrower Slurm tries first (higher priority; equal ones go by job id) must keep waiting
    # when the other share gets a node back.
    first = max(waiting, key=lambda share: (prios[waiting[share]], -waiting[share]))
    other = "prodexp2" if first == "prodexp1" else "prodexp1"
    c.run(["scancel", str(running[other][0])])
    c.wait_state(waiting[other], "RUNNING", timeout=60)
    assert c.job_state(waiting[first]) == "PENDING"
    assert restarts(c, waiting[first]) == 0, \
        "the borrower started on the freed node and was reclaimed: the queue was not re-ranked"


@pytest.mark.every_release
def test_within_quota_jobs_are_ordered_before_borrowers(shares):
    c = shares
    c.install_shareq_conf(conf(reclaim_after=3600))  # both stay pending while the test looks
    # The fill runs at the borrower's --share-priority: with a lower one, the borrower could
    # preempt it in-share (BASE has InSharePreemption=yes) at Slurm's next pass, while the test
    # looks (CI saw it: three fill jobs requeued, the borrower first of its share, within quota).
    fill = [node_job(c, "alice", "prodexp1", "sleep 300", 99) for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    # Both wait for capacity; prodexp2 is under its quota, prodexp1 would borrow further.
    borrower = node_job(c, "alice", "prodexp1", "sleep 1", 99)
    owner = node_job(c, "bob", "prodexp2", "sleep 1", 1)
    tier = 1 << 30

    def ranked():
        # A job is ranked at submission from the last ranking, then again after it (within 5 s).
        out = c.run(["squeue", "-h", "-t", "PENDING", "-o", "%i %Q"]).stdout
        prios = {int(i): int(q) for i, q in (line.split() for line in out.splitlines())}
        return prios if {owner, borrower} <= prios.keys() and prios[owner] >= tier else None

    prios = wait_until("prodexp2's job ranked within quota", ranked)
    assert prios[owner] >= tier > prios[borrower], prios
    # One job per -j: Slurm 24.11.5's sprio refuses a list ("Invalid job id": its _build_job_list
    # parses the whole argument instead of each id).
    sprio = c.run(["sprio", "-h", "-j", str(owner)])
    assert sprio.returncode == 0 and str(owner) in sprio.stdout, sprio.stdout + sprio.stderr
    by_user = c.run(["sprio", "-h", "-u", "bob", "-o", "%i"]).stdout.split()
    assert str(owner) in by_user and str(borrower) not in by_user
    by_partition = c.run(["sprio", "-h", "-p", "p5", "-o", "%i"]).stdout.split()
    assert str(owner) not in by_partition
    # The factors add up to the priority squeue shows.
    line = c.run(["sprio", "-h", "-j", str(owner), "-o", "%i %Y %S %F %B"]).stdout.split()
    assert int(line[1]) == sum(int(x) for x in line[2:]), line


def with_private_jobs(text):
    """slurm.conf's text with PrivateData=jobs."""
    assert "PrivateData" not in text, "the cluster's slurm.conf already sets PrivateData"
    return text + "PrivateData=jobs\n"


@pytest.mark.every_release
def test_sprio_with_private_data_shows_own_jobs_and_those_of_coordinated_accounts(shares):
    """PrivateData=jobs: sprio shows a user their own jobs and those of the accounts they
    coordinate, as multifactor does; root sees all. priority/shareq decides this, asking once
    per sprio call whether the caller is an operator, once per account whether they coordinate
    it."""
    c = shares
    coordinator = ["coordinator", "account=prodexp2", "names=alice"]
    c.run(["sacctmgr", "-i", "delete", *coordinator])  # what an aborted run may have left
    c.install_shareq_conf(conf(reclaim_after=3600))  # all stay pending while the test looks
    fill = [node_job(c, "alice", "prodexp1") for _ in range(4)]
    fill += [gpu_job(c, "alice", "prodexp2", 8, 50) for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    alices = node_job(c, "alice", "prodexp1", "sleep 1")
    bobs = node_job(c, "bob", "prodexp2", "sleep 1")
    # In an account alice never coordinates.
    bobs_research = gpu_job(c, "bob", "research", 8, 50, script="sleep 1")
    pending = {alices, bobs, bobs_research}

    def shown_to(user):
        out = c.run(["sprio", "-h", "-o", "%i"], user=user)
        assert out.returncode == 0, out.stderr
        return {int(i) for i in out.stdout.split()} & pending

    wait_until("the three jobs in sprio", lambda: shown_to("root") == pending)
    with c.slurm_conf_edited(with_private_jobs):
        wait_until("alice to see only her own job", lambda: shown_to("alice") == {alices})
        assert shown_to("bob") == {bobs, bobs_research}
        assert shown_to("root") == pending
        out = c.run(["sacctmgr", "-i", "add", *coordinator])
        assert out.returncode == 0, out.stdout + out.stderr
        try:
            wait_until("alice, coordinator of prodexp2, to see bob's job there",
                       lambda: shown_to("alice") == {alices, bobs})
            assert shown_to("bob") == {bobs, bobs_research}
        finally:
            out = c.run(["sacctmgr", "-i", "delete", *coordinator])
            assert out.returncode == 0, out.stdout + out.stderr


def test_borrow_weight_lets_the_heavier_user_borrow_first(shares):
    """Among borrowers, fair share puts the share that used more last; BorrowWeight=100 on it
    (scontrol reconfigure) puts its borrower first."""
    c = shares
    c.install_shareq_conf(conf(reclaim_after=3600))
    heavy = [node_job(c, "alice", "prodexp1") for _ in range(4)]
    for job in heavy:
        c.wait_state(job, "RUNNING")
    wait_until("prodexp1 to have usage", lambda: c.share_raw_usage("prodexp1"), timeout=30)
    c.run(["scancel", str(heavy[2]), str(heavy[3])])
    light = [node_job(c, "bob", "prodexp2") for _ in range(2)]
    for job in light:
        c.wait_state(job, "RUNNING")
    wait_until("prodexp2 to have usage", lambda: c.share_raw_usage("prodexp2"), timeout=30)
    assert c.share_raw_usage("prodexp1") > c.share_raw_usage("prodexp2")
    # Both shares at their quota, the family full: each job below borrows, and waits.
    first = node_job(c, "alice", "prodexp1", "sleep 1", 50)
    second = node_job(c, "bob", "prodexp2", "sleep 1", 50)

    def order(first_ahead):
        return pending_order(c, first, second, first_ahead)

    prios = wait_until("prodexp2's borrower ahead (less usage)", lambda: order(False))
    assert prios[first] < 1 << 30 and prios[second] < 1 << 30, prios  # both borrow
    c.install_shareq_conf(conf(reclaim_after=3600, p1_extra="BorrowWeight=100"))
    wait_until("prodexp1's borrower ahead (BorrowWeight=100)", lambda: order(True))
    status = c.shareq("status", "--family", "p4", "--json")
    assert '"share":"prodexp1"' in status.stdout and '"borrow_weight":100' in status.stdout, \
        status.stdout


def test_borrow_order_largest_puts_the_larger_borrower_first(shares):
    """Among borrowers, research (BorrowWeight=100) goes first by fair share, its 2-GPU job ahead
    of prodexp2's 8-GPU job; BorrowOrder=largest (scontrol reconfigure) puts the 8-GPU job first,
    and sprio's JOBSIZE column shows each one's size class x 2^26."""
    c = shares
    fair = conf(reclaim_after=3600, research_extra="BorrowWeight=100")
    c.install_shareq_conf(fair)
    fill = [gpu_job(c, "bob", share, 8, 50) for share in ("prodexp2", "research") for _ in "12"]
    for job in fill:
        c.wait_state(job, "RUNNING")
    for share in ("prodexp2", "research"):
        wait_until(f"{share} to have usage", lambda: c.share_raw_usage(share), timeout=30)
    # Both shares at their quota (16 GPUs), p5 full: both jobs below borrow, and wait.
    large = gpu_job(c, "bob", "prodexp2", 8, 50, script="sleep 1")
    small = gpu_job(c, "bob", "research", 2, 50, script="sleep 1")

    def order(large_ahead):
        return pending_order(c, large, small, large_ahead)

    prios = wait_until("research's small borrower ahead (fair share)", lambda: order(False))
    assert prios[large] < 1 << 30 and prios[small] < 1 << 30, prios  # both borrow
    c.install_shareq_conf(fair + "BorrowOrder=largest\n")
    wait_until("prodexp2's 8-GPU borrower ahead (BorrowOrder=largest)", lambda: order(True))
    rows = c.run(["sprio", "-h", "-j", f"{large},{small}", "-o", "%i %Y %J"]).stdout.split("\n")
    jobsize = {int(i): (int(y), int(j)) for i, y, j in (r.split() for r in rows if r.strip())}
    assert jobsize[large][1] == 4 << 26 and jobsize[small][1] == 2 << 26, jobsize
    canonical = c.shareq("check-config")
    assert "\nBorrowOrder=largest\n" in canonical.stdout, canonical.stdout + canonical.stderr


@pytest.mark.every_release
def test_a_shares_first_tier_ends_at_its_first_job_that_would_borrow(shares):
    """A share's jobs enter the within-quota tier in the share's own order, up to the first that
    does not fit what is left of its quota: a smaller job of lower --share-priority behind it does
    not pass it (policy/ordering.hpp). Research (quota 16 GPUs in p5, running nothing) asks for 8
    GPUs at priority 90, then 16 at 80, then 2 at 10, while prodexp2 fills p5."""
    c = shares
    c.install_shareq_conf(conf(reclaim_after=3600))  # nothing is reclaimed while the test looks
    fill = [gpu_job(c, "alice", "prodexp2", 8, 99) for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    first = gpu_job(c, "bob", "research", 8, 90)
    large = c.sbatch("bob", "-p", "p5", "-N", "2", "--gres=gpu:8", "--share=research",
                     "--share-priority=80", "--requeue", script="sleep 300")
    small = gpu_job(c, "bob", "research", 2, 10)

    def priorities():
        out = c.run(["squeue", "-h", "-t", "PENDING", "-o", "%i %Q"]).stdout
        prios = {int(i): int(q) for i, q in (line.split() for line in out.splitlines())}
        return prios if {first, large, small} <= prios.keys() else None

    tier = 1 << 30

    def ranked():
        # A job is ranked at submission from the last ranking, then again after it (within 5 s):
        # the small job may show the first tier for a moment.
        prios = priorities()
        return prios if prios and prios[small] < tier else None

    prios = wait_until("research's small job ranked behind its large one", ranked)
    assert prios[first] >= tier, prios  # 8 of 16: within quota
    assert prios[large] < tier, prios  # 8 + 16 > 16: borrows
    assert prios[large] > prios[small], prios  # the share's own order: priority 80 before 10


def test_slurms_job_list_is_kept_in_scheduling_order(shares):
    """priority/shareq keeps job_list in the order Slurm's schedulers sort the pending jobs, so
    that each pass sorts a queue that is already in order (job_list_order.hpp): `scontrol show
    jobs`, which walks job_list, lists them highest priority first, not in submission order."""
    c = shares
    c.install_shareq_conf(conf())
    # Both shares at quota, at a priority no waiting job may preempt.
    fill = [node_job(c, "alice", "prodexp1", "sleep 300", 99) for _ in range(2)]
    fill += [node_job(c, "bob", "prodexp2", "sleep 300", 99) for _ in range(2)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    waiting = {priority: node_job(c, "alice", "prodexp1", "sleep 1", priority)
               for priority in (10, 50, 30, 90)}
    expected = [waiting[p] for p in (90, 50, 30, 10)]

    def listed():
        out = c.run(["scontrol", "-o", "show", "jobs"]).stdout
        return [int(m.group(1)) for m in re.finditer(r"^JobId=(\d+) .*JobState=PENDING", out, re.M)]

    order = wait_until("the pending jobs in priority order",
                       lambda: (now := listed()) == expected and now, timeout=30)
    assert order == expected
    queue = c.run(["squeue", "-h", "-t", "PENDING", "-o", "%i %Q"]).stdout.split("\n")
    prios = {int(i): int(q) for i, q in (line.split() for line in queue if line)}
    assert [prios[j] for j in expected] == sorted(prios.values(), reverse=True), prios


# ---- in-share priority preemption (the seed's Figure 2) ------------------------------------

@pytest.mark.every_release
def test_higher_priority_job_preempts_only_the_lowest_priority_job_of_its_share(shares):
    c = shares
    c.install_shareq_conf(conf(research_extra="BorrowLimit=gres/gpu=0"))
    jobs = {p: gpu_job(c, "bob", "research", 4, p) for p in (80, 50, 30, 10)}
    for job in jobs.values():
        c.wait_state(job, "RUNNING")

    low = gpu_job(c, "bob", "research", 4, 5, script="sleep 1")
    wait_until("the priority-5 job to be considered",
               lambda: c.reason(low) not in ("", "None") and c.reason(low))
    assert all(restarts(c, j) == 0 for j in jobs.values()), "priority 5 preempts nothing"
    assert c.job_state(low) == "PENDING"

    high = gpu_job(c, "bob", "research", 4, 90, script="sleep 1")
    c.wait_state(high, ["RUNNING", "COMPLETED"], timeout=60)
    assert restarts(c, jobs[10]) == 1, "the priority-10 job is preempted"
    assert all(restarts(c, jobs[p]) == 0 for p in (80, 50, 30))
    info = c.job(jobs[10])
    assert info["Account"] == "research"
    assert "priority=10" in info["AdminComment"], "a requeued job keeps its share and priority"


PREEMPT_OFF = "preempt: no running job can be preempted"
PREEMPT_ON = "preempt: a running job may be preempted"


def preemption_answers(c, since=0):
    """preempt/shareq's answers to Slurm's "can anything be preempted?" logged after offset
    `since` of slurmctld's log (verbose level), in order, with the offset after the last."""
    text = (c.dir / "log" / "slurmctld.log").read_text(errors="replace")
    answers = [m.group(0) for m in re.finditer(f"{PREEMPT_OFF}|{PREEMPT_ON}", text[since:])]
    return answers, len(text)


def test_slurm_searches_for_victims_only_while_a_pending_job_may_preempt(shares):
    """While no running job can be a victim (no share borrows, no pending job is above a running
    one of its share), preempt/shareq tells Slurm that nothing can be preempted, and Slurm skips
    its walk of every job per job it tests. A higher-priority submission changes the answer at
    once, and its in-share preemption happens as before."""
    c = shares
    c.install_shareq_conf(conf())
    c.scontrol("setdebug", "verbose")
    try:
        running = [node_job(c, "alice", "prodexp1", "sleep 300", 50) for _ in range(2)]
        running += [node_job(c, "bob", "prodexp2", "sleep 300", 50) for _ in range(2)]
        for job in running:
            c.wait_state(job, "RUNNING")
        waiting = node_job(c, "alice", "prodexp1", "sleep 300", 50)  # tested at every pass
        _, mark = wait_until("Slurm to be told that nothing can be preempted",
                             lambda: (a := preemption_answers(c))[0][-1:] == [PREEMPT_OFF] and a)

        high = node_job(c, "alice", "prodexp1", "sleep 300", 80)
        c.wait_state(high, "RUNNING", timeout=60)
        assert PREEMPT_ON in preemption_answers(c, mark)[0]
        assert sorted(restarts(c, job) for job in running[:2]) == [0, 1], \
            "the priority-80 job preempts one priority-50 job of its share"
        assert all(restarts(c, job) == 0 for job in running[2:] + [waiting])

        # Its victim waits at priority 50 again, under a share whose lowest running job is 50.
        wait_until("Slurm to be told again that nothing can be preempted",
                   lambda: preemption_answers(c, mark)[0][-1:] == [PREEMPT_OFF])
        assert c.job_state(waiting) == "PENDING"
    finally:
        c.scontrol("setdebug", "info")


# ---- limits ---------------------------------------------------------------------------------

def test_borrow_limit_caps_a_share_with_idle_nodes_left(shares):
    c = shares
    c.install_shareq_conf(conf(p2_extra="BorrowLimit=node=1"))
    jobs = [node_job(c, "bob", "prodexp2") for _ in range(4)]
    for job in jobs[:3]:
        c.wait_state(job, "RUNNING")
    wait_until("the 4th job's reason", lambda: "borrow limit" in c.reason(jobs[3]))
    assert c.job_state(jobs[3]) == "PENDING"
    assert running_count(c, "prodexp2") == 3


def test_lend_limit_caps_what_others_may_borrow_from_a_share(shares):
    c = shares
    c.install_shareq_conf(conf(p1_extra="LendLimit=node=1"))
    jobs = [node_job(c, "bob", "prodexp2") for _ in range(4)]
    for job in jobs[:3]:
        c.wait_state(job, "RUNNING")
    # One node lendable of prodexp1's two: prodexp2 borrows it, and nothing more.
    def refused():
        reason = c.reason(jobs[3])
        return "nothing to borrow in p4" in reason and reason

    reason = wait_until("the 4th job's reason", refused)
    assert "1/1 lendable borrowed" in reason, reason
    assert c.job_state(jobs[3]) == "PENDING"
    assert running_count(c, "prodexp2") == 3


def test_family_capacity_below_the_partition_size_is_never_exceeded(shares):
    c = shares
    c.install_shareq_conf(conf(p4_capacity=3, q1=2, q2=1))
    jobs = [node_job(c, "alice", "prodexp1") for _ in range(4)]
    for job in jobs[:3]:
        c.wait_state(job, "RUNNING")
    wait_until("the 4th job's reason", lambda: "capacity" in c.reason(jobs[3]))
    assert running_count(c, "prodexp1") == 3
    out = c.run(["sinfo", "-h", "-p", "p4", "-t", "idle", "-o", "%D"]).stdout.strip()
    assert out == "1", "a node stays idle: the site reserved only 3"


# ---- reclaim timing and grace ---------------------------------------------------------------

@pytest.mark.parametrize("setting, words", [({"min_runtime": 15}, "ReclaimMinRuntime=15s"),
                                             ({"reclaim_after": 15}, "ReclaimAfter=15s")],
                         ids=["ReclaimMinRuntime", "ReclaimAfter"])
def test_a_job_within_quota_reclaims_only_once_its_setting_allows(shares, setting, words):
    """ReclaimMinRuntime: borrowed jobs run that long first; ReclaimAfter: the job within quota
    waits that long for capacity to come free by itself first."""
    c = shares
    c.install_shareq_conf(conf(**setting))
    fill = [node_job(c, "alice", "prodexp1") for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    started = time.time()
    owner = node_job(c, "bob", "prodexp2", "sleep 1")
    wait_until(f"the {words} reason", lambda: words in c.reason(owner), timeout=10)
    assert not any(restarts(c, job) for job in fill), f"reclaimed before {words}"
    c.wait_state(owner, ["RUNNING", "COMPLETED"], timeout=90)
    assert time.time() - started >= 10, f"reclaimed before {words}"
    assert sum(1 for job in fill if restarts(c, job) >= 1) == 1


def test_a_job_within_quota_takes_capacity_that_comes_free_during_reclaim_after(shares):
    c = shares
    c.install_shareq_conf(conf(reclaim_after=60))
    fill = [node_job(c, "alice", "prodexp1") for _ in range(3)]
    short = node_job(c, "alice", "prodexp1", "sleep 8")
    for job in fill + [short]:
        c.wait_state(job, "RUNNING")
    owner = node_job(c, "bob", "prodexp2", "sleep 1")
    c.wait_state(owner, ["RUNNING", "COMPLETED"], timeout=45)
    assert not any(restarts(c, job) for job in fill + [short]), "reclaimed though a node came free"


# A training step that checkpoints on SIGTERM: it notes when the signal came and carries on,
# noting every 0.2 s that it still runs, until Slurm kills it.
GRACE_STEP = """\
#!/bin/bash
out=$1/$SLURM_JOB_ID
trap 'date +%s.%N >> "$out.term"' TERM
while :; do
  date +%s.%N >> "$out.alive"
  sleep 0.2
done
"""


def stamps(path):
    """The times (epoch seconds) a step noted in `path`, in order; [] while there is none."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    return [float(t) for t in text.split() if re.fullmatch(r"\d+\.\d+", t)]


@pytest.mark.every_release
def test_a_victim_keeps_running_for_its_grace_time_after_sigterm(shares):
    """PreemptGraceTime: when a victim's grace time starts, Slurm sends its job steps SIGTERM
    (preempt.c, _job_check_grace_internal: the steps only, so training runs under srun; the batch
    shell is not signalled) and requeues the job only once the grace time has run out. A step that
    traps SIGTERM to checkpoint and carries on keeps running, on its node, for the grace time, and
    the reclaiming job waits meanwhile. Without a grace time, the SIGTERM comes from the requeue
    itself: the victim is no longer running when its step gets the signal, and is killed
    KillWait later."""
    c = shares
    grace = 8
    c.install_shareq_conf(conf(grace=grace))
    out = c.jobs_dir / f"grace-{uuid.uuid4().hex[:8]}"
    out.mkdir()
    out.chmod(0o777)  # the steps run as alice
    step = out / "step.sh"
    step.write_text(GRACE_STEP)
    fill = [node_job(c, "alice", "prodexp1", f"srun bash {step} {out}") for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    wait_until("every step to run", lambda: all(stamps(out / f"{job}.alive") for job in fill))
    owner = node_job(c, "bob", "prodexp2", "sleep 1")  # within prodexp2's quota: reclaims

    def signalled():
        return [job for job in fill if stamps(out / f"{job}.term")]

    victims = wait_until("a victim's step to get SIGTERM", signalled, timeout=60)
    # Read at once: the signal came at most a polling interval ago.
    info = c.job(victims[0])
    assert victims == [max(fill)], f"one victim, the youngest borrowed job: {victims}"
    victim = victims[0]
    term_at = stamps(out / f"{victim}.term")[0]
    assert info["JobState"] in RUNNING_STATES and info.get("Restarts", "0") == "0", \
        f"the victim got SIGTERM from its requeue, not at the start of a grace time: {info}"
    assert info.get("PreemptTime", "None") != "None", info

    # The grace time: the victim runs on and keeps its node; the reclaiming job waits.
    # (Slurm counts whole seconds from PreemptTime, which is at most 1 s before the signal.)
    grace_ends = term_at + grace - 1.5
    while time.time() < grace_ends:
        assert c.job_state(victim) in RUNNING_STATES and restarts(c, victim) == 0, \
            f"the victim was requeued {time.time() - term_at:.1f}s after SIGTERM, grace {grace}s"
        assert c.job_state(owner) == "PENDING", "the reclaiming job started during the grace time"
        time.sleep(0.25)
    beats = stamps(out / f"{victim}.alive")
    assert beats[-1] >= grace_ends - 1, \
        f"the victim's step stopped {beats[-1] - term_at:.1f}s after SIGTERM, grace {grace}s"

    # Once the grace time has run out, the victim is requeued and the reclaiming job starts.
    # Here Slurm requeues it from job_time_limit(), which runs every PERIODIC_TIMEOUT (30 s): up
    # to 30 s after the grace time ("requeued to reclaim resources for JobId=Invalid").
    c.wait_state(owner, ["RUNNING", "COMPLETED"], timeout=grace + 45)
    assert restarts(c, victim) == 1
    assert all(restarts(c, job) == 0 for job in fill if job != victim)


@pytest.mark.every_release
def test_a_reclaiming_job_waits_out_its_victims_grace_time_even_beside_a_free_node(shares):
    """Family p4 has 4 nodes and a Capacity of 3. prodexp1 borrows it full; prodexp2's job,
    within its quota, reclaims one of them, which runs on for PreemptGraceTime. The victim still
    holds its node of the capacity: the reclaiming job waits, although the fourth node is free.
    (Until 2026-12-04 it started there, and the family ran 4 nodes of its 3 for the grace time.)"""
    c = shares
    grace = 8
    c.install_shareq_conf(conf(p4_capacity=3, q1=1, q2=2, grace=grace))
    fill = [node_job(c, "alice", "prodexp1") for _ in range(3)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    owner = node_job(c, "bob", "prodexp2", "sleep 1")  # within prodexp2's quota: reclaims

    def signalled():
        return [job for job in fill if c.job(job).get("PreemptTime", "None") != "None"]

    victim = wait_until("a victim's grace time to start", signalled, timeout=60)[0]
    grace_ends = time.time() + grace - 2  # PreemptTime is at most a polling interval old
    wait_until("the reclaiming job to say it waits for its victim",
               lambda: c.reason(owner) == "shareq: waiting for the jobs it preempted to end",
               timeout=grace - 2)
    while time.time() < grace_ends:
        nodes = running_count(c, "prodexp1") + running_count(c, "prodexp2")
        assert nodes <= 3, f"family p4 runs {nodes} nodes of its capacity 3 in the grace time"
        assert c.job_state(owner) == "PENDING", "the reclaiming job started beside its victim"
        time.sleep(0.25)
    c.wait_state(owner, ["RUNNING", "COMPLETED"], timeout=grace + 45)
    assert restarts(c, victim) == 1


# ---- reconfiguration and restart ------------------------------------------------------------

@pytest.mark.every_release
def test_reconfigure_applies_a_good_file_and_keeps_the_old_one_on_a_bad_file(shares):
    c = shares
    c.install_shareq_conf(conf().replace("DefaultPriority=50", "DefaultPriority=70"))
    job = c.sbatch("alice", "-p", "p4", "--hold", script="true")
    assert "priority=70" in c.job(job)["AdminComment"]

    bad = conf().replace("DefaultPriority=50", "DefaultPriority=150")
    mark = c.log_offset()
    c.install_shareq_conf(bad, expect_good=False)
    log = c.log_since(mark)
    assert re.search(r"shareq: .*shareq\.conf:\d+: DefaultPriority", log), log[-2000:]
    job = c.sbatch("alice", "-p", "p4", "--hold", script="true")
    assert "priority=70" in c.job(job)["AdminComment"], "the previous good file stays"

    # A slurmctld that starts with the bad file (a restart; from Slurm 23.11 also what
    # `scontrol reconfigure` does) starts from the copy of the last good one in StateSaveLocation.
    mark = c.log_offset()
    c.restart_slurmctld()
    job = c.sbatch("alice", "-p", "p4", "--hold", script="true")
    info = c.job(job)
    assert "priority=70" in info.get("AdminComment", ""), f"the last good file is lost: {info}"
    log = c.log_since(mark)
    assert "keeping the previous good configuration, saved in " in log, log[-2000:]


@pytest.mark.every_release
def test_slurmctld_restart_during_a_borrow_loses_nothing(shares):
    c = shares
    c.install_shareq_conf(conf())
    fill = [node_job(c, "alice", "prodexp1") for _ in range(4)]
    for job in fill:
        c.wait_state(job, "RUNNING")
    # Priority 10, below the running jobs: it cannot preempt inside its own share.
    pending = node_job(c, "alice", "prodexp1", "sleep 1", 10)
    before = c.run(["squeue", "-h", "-j", str(pending), "-o", "%Q"]).stdout.strip()
    # Usage accrues at the next recalculation pass (at most 5 s): on a fresh cluster, with no
    # earlier test's usage, it is 0 until then.
    usage_before = wait_until("prodexp1 to have usage", lambda: c.share_raw_usage("prodexp1"),
                              timeout=30)

    c.restart_slurmctld()
    for job in fill:
        assert c.job_state(job) == "RUNNING", f"job {job} lost its run across the restart"
    after = c.run(["squeue", "-h", "-j", str(pending), "-o", "%Q"]).stdout.strip()
    assert after == before
    assert c.share_raw_usage("prodexp1") >= usage_before > 0

    owner = node_job(c, "bob", "prodexp2", "sleep 1")  # decisions unchanged: it reclaims
    c.wait_state(owner, ["RUNNING", "COMPLETED"], timeout=60)
    assert sum(1 for job in fill if restarts(c, job) >= 1) == 1


def test_slurmctld_restart_while_victims_end_keeps_the_reclaim_in_flight(shares):
    """A reclaim in flight (its victims in their grace period) survives a slurmctld restart
    (reclaim_claims.hpp): the restarted controller restores it, the reclaiming job starts where
    its victims ran once they end, and nothing else is preempted, in particular not the borrower
    that started meanwhile in a 2-GPU hole the 8-GPU reclaimer cannot use (the youngest borrowed
    job: first in the reclaim order, were the reclaim decided afresh)."""
    c = shares
    grace = 40
    c.install_shareq_conf(conf(grace=grace))  # p5: 32 GPUs, research and prodexp2 16 each
    big = [gpu_job(c, "bob", "research", 8, 60) for _ in range(2)]
    for job in big:
        c.wait_state(job, "RUNNING")
    older = [gpu_job(c, "bob", "research", 2, 60) for _ in range(4)]  # a node of 2-GPU jobs
    for job in older:
        c.wait_state(job, "RUNNING")
    low = [gpu_job(c, "bob", "research", 2, 40) for _ in range(4)]  # the last node: victims
    for job in low:
        c.wait_state(job, "RUNNING")  # research runs 32 GPUs on a quota of 16
    victims_node = c.job(low[0])["NodeList"]
    late = gpu_job(c, "bob", "research", 2, 40)  # would borrow past the family's capacity
    owner = gpu_job(c, "bob", "prodexp2", 8, 50)  # within prodexp2's quota: reclaims 8 GPUs
    wait_until("the four priority-40 jobs to be warned",
               lambda: all(c.job(j).get("PreemptTime", "None") != "None" for j in low),
               timeout=30)

    c.run(["scancel", str(older[0])])  # a 2-GPU hole: the waiting borrower takes it
    c.wait_state(late, "RUNNING", timeout=30)
    assert c.job_state(owner) == "PENDING", "no node has 8 free GPUs before the victims end"
    # The reclaim is in flight as slurmctld goes down: its victims still run, warned.
    for job in low:
        assert (c.job_state(job), restarts(c, job)) == ("RUNNING", 0), c.job(job)
    mark = c.log_offset()
    c.restart_slurmctld()
    assert "reclaim: restored 1 reclaim(s) in flight" in c.log_since(mark)

    c.wait_state(owner, "RUNNING", timeout=grace + 60)
    assert c.job(owner)["NodeList"] == victims_node, "it starts where its victims ran"
    assert all(restarts(c, job) == 1 for job in low), "the warned victims are requeued"
    for job in big + older[1:] + [late]:
        info = c.job(job)
        assert restarts(c, job) == 0 and info.get("PreemptTime", "None") == "None", \
            f"the restarted controller preempted more than the reclaim needed: {info}"


def test_a_reclaiming_job_cancelled_while_its_victim_ends_no_longer_holds_the_capacity(shares):
    """A job that preempted its victim counts as running until it starts (reclaim_claims.hpp).
    Cancelled while the victim is in its grace period, it must stop counting at the next pass
    over the queue. Otherwise the next job of its share would see the share's quota as used and
    wait until the reclaim timed out (grace + KillWait + 2 x MessageTimeout + 10 s)."""
    c = shares
    grace = 30
    c.install_shareq_conf(conf(q1=3, q2=1, grace=grace))
    fill = [node_job(c, "alice", "prodexp1") for _ in range(4)]  # prodexp1 borrows 1
    for job in fill:
        c.wait_state(job, "RUNNING")
    first = node_job(c, "bob", "prodexp2")  # within prodexp2's quota of 1: reclaims
    warned = wait_until("a borrowed job to be warned",
                        lambda: [j for j in fill if c.job(j).get("PreemptTime", "None") != "None"],
                        timeout=30)
    victim_node = c.job(warned[0])["NodeList"]
    mark = c.log_offset()
    c.run(["scancel", str(first)])
    wait_until("the cancelled job's reclaim to be dropped",
               lambda: f"reclaim: JobId={first} is no longer pending" in c.log_since(mark),
               timeout=20)

    # Within quota again: ranked in the first tier while the warned job ends. Were the dropped
    # reclaim still counted, prodexp2's quota would look used and this job would borrow, ranked
    # below it, until the reclaim timed out (grace + KillWait + 2 x MessageTimeout + 10 s).
    second = node_job(c, "bob", "prodexp2")
    tier = 1 << 30

    def ranked_within_quota():
        out = c.run(["squeue", "-h", "-j", str(second), "-t", "PENDING", "-o", "%Q"]).stdout
        return out.strip().isdigit() and int(out) >= tier

    wait_until(f"job {second} ranked within prodexp2's quota", ranked_within_quota, timeout=20)
    c.wait_state(second, "RUNNING", timeout=grace + 30)
    assert c.job(second)["NodeList"] == victim_node, "it takes the warned job's node"
    assert sum(1 for job in fill if restarts(c, job) >= 1) == 1, "one borrowed job reclaimed"


def test_lowering_a_quota_preempts_nothing_until_another_share_needs_it(shares):
    c = shares
    c.install_shareq_conf(conf(q1=3, q2=1))
    jobs = [node_job(c, "alice", "prodexp1") for _ in range(3)]
    for job in jobs:
        c.wait_state(job, "RUNNING")  # 3 nodes, all within prodexp1's quota of 3

    c.install_shareq_conf(conf(q1=2, q2=2))  # prodexp1 now borrows 1
    assert all(c.job_state(job) == "RUNNING" and restarts(c, job) == 0 for job in jobs)

    owners = [node_job(c, "bob", "prodexp2") for _ in range(2)]  # within prodexp2's new quota
    for job in owners:
        c.wait_state(job, "RUNNING", timeout=60)
    assert running_count(c, "prodexp1") == 2, "reclaimed down to the new quota, not below"
    assert sum(1 for job in jobs if restarts(c, job) >= 1) == 1
