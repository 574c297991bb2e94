"""Warm pools and the node-local image cache on the real cluster (issue 4).

The cluster serves images over HTTP from $SHAREQ_CLUSTER_DIR/images (python3's http.server on
127.0.0.1); each node caches them in $SHAREQ_CLUSTER_DIR/nodes/NODE/images (ImageCacheDir with
%n). Jobs use -N1 --exclusive in p4 so that a job is one node, and pin the first job of a pool to
a node other than the scheduler's first choice (-w p4n3), so that landing there is the pool's
doing. Every wait is bounded.
"""

import datetime
import hashlib
import os
import re
import time

import pytest

from slurm import run_each, wait_until

WARM_CONF_EXTRA = "WarmPoolMode={mode}\n"


def publish(c, name, size=200_000, corrupt=False):
    """Puts image NAME in the store; returns its digest (the published one)."""
    data = os.urandom(size)
    digest = hashlib.sha256(data).hexdigest()
    (c.dir / "images" / name).write_bytes(data)
    published = hashlib.sha256(b"other bytes").hexdigest() if corrupt else digest
    (c.dir / "images" / f"{name}.sha256").write_text(published + "\n")
    return published


def conf_with_mode(original, mode):
    lines = [l for l in original.splitlines() if not l.startswith("WarmPoolMode=")]
    return "\n".join(lines) + "\n" + WARM_CONF_EXTRA.format(mode=mode)


def end_pools(c):
    """Ends every warm pool (prefer mode): a non-matching job on a warm node ends its pool."""
    warm_nodes = [n for n in ("p4n1", "p4n2", "p4n3", "p4n4") if c.node_extra(n)]
    jobs = [c.sbatch("root", "-p", "p4", "-N1", "-w", n, "-A", "prodexp2", script="true")
            for n in warm_nodes]
    for j in jobs:
        c.wait_state(j, "COMPLETED")
    for n in warm_nodes:
        wait_until(f"{n} to be cold", lambda n=n: c.node_extra(n) == "")


@pytest.fixture
def warm(clean_queue):
    """A clean queue and no warm pool left from an earlier test."""
    c = clean_queue
    end_pools(c)
    yield c
    c.cancel_all()


def with_conf(c, make_conf):
    """No warm pool left; shareq.conf = make_conf(the cluster's) for one test, then put back."""
    end_pools(c)
    path = c.dir / "etc" / "shareq.conf"
    original = path.read_text()
    c.install_shareq_conf(make_conf(original))
    yield c
    run_each(c.cancel_all, lambda: c.install_shareq_conf(original))


@pytest.fixture
def reserve_mode(clean_queue):
    yield from with_conf(clean_queue, lambda original: conf_with_mode(original, "reserve"))


def node_log(c, node):
    return (c.dir / "log" / f"slurmd-{node}.log").read_text(errors="replace")


def fetches(c, node, job_image):
    return len(re.findall(rf"image {re.escape(job_image)} fetched", node_log(c, node)))


def job_out(c, name):
    path = c.jobs_dir / name
    return path.read_text() if path.exists() else ""


def sbatch_out(c, user, name, *args, script):
    """sbatch with the job's output kept in jobs/NAME."""
    out = c.run(["sbatch", "--parsable", "-o", name, *args, f"--wrap={script}"], user=user)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip().split(";")[0])


def make_pool(c, user, image, node="p4n3", keep_alive=300, script="true"):
    job = sbatch_out(c, user, f"pool-{image}-{user}.out", "-p", "p4", "-N1", "--exclusive",
                     "-w", node, f"--image={image}", f"--keep-alive={keep_alive}", script=script)
    c.wait_state(job, "COMPLETED")
    wait_until(f"{node} to show a warm pool", lambda: c.node_extra(node).startswith("shareq:"))
    return job


@pytest.mark.every_release
def test_matching_job_lands_on_the_warm_node_with_its_warm_dir_and_no_fetch(warm):
    c = warm
    publish(c, "warm-a")
    fetched_before = fetches(c, "p4n3", "warm-a")
    first = make_pool(c, "alice", "warm-a",
                      script="echo from-first > $SHAREQ_WARM_DIR/left; echo $SHAREQ_IMAGE_PATH")
    assert "SystemComment=shareq: cold start" in c.scontrol("show", "job", str(first))
    extra = c.node_extra("p4n3")
    assert "available" in extra and "owner=alice/prodexp1" in extra and "until=" in extra
    # The deadline is in epoch seconds (no time zone), within the job's keep-alive from now.
    until = int(re.search(r",until=(\d+),", extra).group(1))
    assert time.time() - 60 < until <= time.time() + 300, extra
    assert fetches(c, "p4n3", "warm-a") == fetched_before + 1

    second = sbatch_out(c, "alice", "warm-a-second.out", "-p", "p4", "-N1", "--exclusive",
                        "--image=warm-a", "--keep-alive=60",
                        script="hostname; cat $SHAREQ_WARM_DIR/left; stat -c '%U %a' $SHAREQ_WARM_DIR;"
                               " test -r $SHAREQ_IMAGE_PATH && echo image-ok")
    info = c.wait_state(second, "COMPLETED")
    assert info["NodeList"] == "p4n3"
    assert "warm start on wp-" in info["SystemComment"]
    assert "shareq-warm-start:wp-" in info["AdminComment"]
    out = job_out(c, "warm-a-second.out")
    assert "from-first" in out and "alice 700" in out and "image-ok" in out, out
    assert fetches(c, "p4n3", "warm-a") == fetched_before + 1  # served from the cache
    row = c.wait_sacct(second, "State", "COMPLETED")[-1]
    assert "shareq-warm-start:wp-" in c.sacct(second, ["AdminComment"])[-1]["AdminComment"], row


def test_another_user_does_not_get_the_pool_and_in_reserve_mode_waits(reserve_mode):
    c = reserve_mode
    publish(c, "warm-b")
    sleepers = [c.sbatch("root", "-p", "p4", "-N1", "--exclusive", "-w", n, "-A", "prodexp2",
                         script="sleep 300") for n in ("p4n1", "p4n2", "p4n4")]
    for s in sleepers:
        c.wait_state(s, "RUNNING")
    make_pool(c, "alice", "warm-b")
    bob = sbatch_out(c, "bob", "warm-b-bob.out", "-p", "p4", "-N1", "--exclusive",
                     "--image=warm-b", "-A", "prodexp2", script="hostname; echo dir=$SHAREQ_WARM_DIR")
    # The warm node is free, yet bob's job waits: reserve mode keeps it for alice's key.
    with pytest.raises(AssertionError):
        c.wait_state(bob, "RUNNING", timeout=12)
    assert c.job(bob)["JobState"] == "PENDING"
    c.run(["scancel", str(sleepers[0])])
    info = c.wait_state(bob, "COMPLETED")
    assert info["NodeList"] == "p4n1"
    assert "dir=\n" in job_out(c, "warm-b-bob.out")  # no warm directory, not alice's
    assert c.node_extra("p4n3").startswith("shareq:")  # still alice's


def test_pool_expires_on_time_and_unpins_its_image(warm):
    c = warm
    digest = publish(c, "warm-c")
    job = make_pool(c, "alice", "warm-c", keep_alive=8)
    pins = c.dir / "nodes" / "p4n3" / "images" / "pins" / digest
    assert (pins / f"warm-{job}").exists()
    pool = re.match(r"shareq:(wp-\d+),", c.node_extra("p4n3")).group(1)
    mark = c.log_offset()
    wait_until("the pool to expire", lambda: c.node_extra("p4n3") == "", timeout=40)
    assert re.search(rf"warm: {pool} .*\(keep-alive ran out\)", c.log_since(mark)), \
        c.log_since(mark)[-2000:]
    # The node removes the directory and the pin at its next prolog or epilog.
    other = c.sbatch("bob", "-p", "p4", "-N1", "-w", "p4n3", "-A", "prodexp2", script="true")
    c.wait_state(other, "COMPLETED")
    wait_until("the pin to go", lambda: not (pins / f"warm-{job}").exists())
    assert not (c.dir / "nodes" / "p4n3" / "warm" / f"warm-{job}").exists()


def test_a_pool_ended_early_leaves_the_node_at_the_next_job_not_at_its_deadline(warm):
    c = warm
    digest = publish(c, "warm-e")
    job = make_pool(c, "alice", "warm-e", keep_alive=3600)
    pins = c.dir / "nodes" / "p4n3" / "images" / "pins" / digest
    warm_dir = c.dir / "nodes" / "p4n3" / "warm" / f"warm-{job}"
    assert (pins / f"warm-{job}").exists() and warm_dir.is_dir()
    # Prefer mode: another user's job takes the warm node, which ends the pool an hour early.
    other = c.sbatch("bob", "-p", "p4", "-N1", "-w", "p4n3", "-A", "prodexp2", script="true")
    c.wait_state(other, "COMPLETED")
    wait_until("p4n3 to be cold", lambda: c.node_extra("p4n3") == "")
    wait_until("the ended pool's pin to go", lambda: not (pins / f"warm-{job}").exists())
    assert not warm_dir.exists()
    assert f"warm directory warm-{job} ended early in slurmctld: removed" in node_log(c, "p4n3")


def test_an_admin_ends_a_pool_with_shareq_pools_end(warm):
    c = warm
    digest = publish(c, "warm-f")
    job = make_pool(c, "alice", "warm-f", keep_alive=3600)
    pool = re.match(r"shareq:(wp-\d+),", c.node_extra("p4n3")).group(1)
    shareq = str(c.build_dir / "tools" / "shareq")

    refused = c.run([shareq, "pools", "end", pool], user="bob")
    assert refused.returncode == 1, refused
    assert "ending a pool needs root or SlurmUser" in refused.stderr, refused.stderr
    unknown = c.run([shareq, "pools", "end", "wp-99999"])
    assert unknown.returncode == 1 and f"pools: {pool}" in unknown.stderr, unknown.stderr
    assert c.node_extra("p4n3").startswith(f"shareq:{pool},")

    done = c.run([shareq, "pools", "end", pool])
    assert done.returncode == 0, done.stderr
    wait_until("the pool to end", lambda: c.node_extra("p4n3") == "")
    log = (c.dir / "log" / "slurmctld.log").read_text()
    assert re.search(rf"{pool} terminated.*ended by an admin", log), "slurmctld logs who ended it"
    # The next job on the node removes the warm directory and the pin, an hour early.
    other = c.sbatch("bob", "-p", "p4", "-N1", "-w", "p4n3", "-A", "prodexp2", script="true")
    c.wait_state(other, "COMPLETED")
    pins = c.dir / "nodes" / "p4n3" / "images" / "pins" / digest
    wait_until("the pin to go", lambda: not (pins / f"warm-{job}").exists())


def test_two_jobs_starting_together_on_one_node_fetch_once(warm):
    c = warm
    publish(c, "warm-d", size=3_000_000)
    fetched_before = fetches(c, "p4n2", "warm-d")
    cached_before = node_log(c, "p4n2").count("image warm-d already cached")
    jobs = [c.sbatch(u, "-p", "p4", "-N1", "-n1", "-w", "p4n2", "--image=warm-d",
                     *(["-A", "prodexp2"] if u == "bob" else []), script="test -r $SHAREQ_IMAGE_PATH")
            for u in ("alice", "bob")]
    for j in jobs:
        c.wait_state(j, "COMPLETED")
    assert fetches(c, "p4n2", "warm-d") == fetched_before + 1
    assert node_log(c, "p4n2").count("image warm-d already cached") == cached_before + 1


def test_a_corrupt_image_fails_its_job_cleanly_and_leaves_the_cache_clean(warm):
    c = warm
    publish(c, "warm-bad", corrupt=True)
    job = sbatch_out(c, "alice", "warm-bad.out", "-p", "p4", "-N1", "-w", "p4n4",
                     "--image=warm-bad", script="echo should-not-run")
    info = c.wait_state(job, "FAILED")
    out = job_out(c, "warm-bad.out")
    assert "shareq: error: image warm-bad: digest mismatch" in out, out
    assert "should-not-run" not in out
    cache = c.dir / "nodes" / "p4n4" / "images" / "sha256"
    assert [p.name for p in cache.iterdir() if "tmp" in p.name] == []
    # The node is fine: the next job runs there.
    ok = c.sbatch("alice", "-p", "p4", "-N1", "-w", "p4n4", script="true")
    c.wait_state(ok, "COMPLETED")
    assert info["ExitCode"].startswith("1:")


@pytest.mark.every_release
def test_slurmctld_restart_keeps_the_pools(warm):
    c = warm
    publish(c, "warm-e")
    make_pool(c, "alice", "warm-e")
    c.restart_slurmctld()
    wait_until("the pool after the restart", lambda: c.node_extra("p4n3").startswith("shareq:"))
    job = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "--image=warm-e", script="true")
    info = c.wait_state(job, "COMPLETED")
    assert info["NodeList"] == "p4n3"
    assert "warm start on wp-" in info["SystemComment"]


def test_a_pool_ended_early_before_a_slurmctld_restart_still_leaves_at_the_next_job(warm):
    c = warm
    digest = publish(c, "warm-h")
    job = make_pool(c, "alice", "warm-h", keep_alive=3600)
    pool = re.match(r"shareq:(wp-\d+),", c.node_extra("p4n3")).group(1)
    done = c.run([str(c.build_dir / "tools" / "shareq"), "pools", "end", pool])
    assert done.returncode == 0, done.stderr
    wait_until("the pool to end", lambda: c.node_extra("p4n3") == "")
    state = c.dir / "spool" / "ctld" / "shareq_warm_pools"
    wait_until("the ended pool's directory in the state file",  # written off the locks
               lambda: f"ended node=p4n3 name=warm-{job} " in state.read_text())
    c.restart_slurmctld()
    # The restarted slurmctld still tells the next job on p4n3 to remove the directory, an hour
    # before the node's own sweep would.
    other = c.sbatch("bob", "-p", "p4", "-N1", "-w", "p4n3", "-A", "prodexp2", script="true")
    c.wait_state(other, "COMPLETED")
    pins = c.dir / "nodes" / "p4n3" / "images" / "pins" / digest
    wait_until("the pin to go", lambda: not (pins / f"warm-{job}").exists())
    assert not (c.dir / "nodes" / "p4n3" / "warm" / f"warm-{job}").exists()
    assert f"warm directory warm-{job} ended early in slurmctld: removed" in node_log(c, "p4n3")


# ---- reserve mode charges the owning share (issue 4, point 3) -------------------------------

# prodexp1 owns one node of p4 and may not borrow: one warm node uses its whole quota.
RESERVE_P4_SHARES = """Share=ProdExp1 Family=p4 Quota=node=1 BorrowLimit=node=0
Share=ProdExp2 Family=p4 Quota=node=3
"""


def conf_reserve_one_node_quota(original):
    lines = [l for l in original.splitlines()
             if not l.startswith("WarmPoolMode=")
             and not (l.startswith("Share=") and "Family=p4" in l)]
    return "\n".join(lines) + "\n" + RESERVE_P4_SHARES + WARM_CONF_EXTRA.format(mode="reserve")


@pytest.fixture
def reserve_one_node_quota(clean_queue):
    yield from with_conf(clean_queue, conf_reserve_one_node_quota)


def waits_at_prodexp1s_borrow_limit(c, job):
    """Waits until the scheduler has tried `job` and it waits at prodexp1's borrow limit; fails at
    once should it start instead."""
    def decided():
        state = c.job_state(job)
        if state != "PENDING":
            return state or "gone"
        return "prodexp1 at its borrow limit in p4" in c.reason(job) and state

    state = wait_until(f"job {job} to wait at prodexp1's borrow limit", decided)
    assert state == "PENDING", f"job {job} started ({state}) though prodexp1's quota is held"


HOLD_S = 12  # two passes of the backfill scheduler (bf_interval=5) and a margin


def stays_at_prodexp1s_borrow_limit(c, job, running):
    """For HOLD_S seconds while `running` runs, `job` stays pending at prodexp1's borrow limit."""
    end = time.monotonic() + HOLD_S
    while time.monotonic() < end:
        assert c.job_state(running) == "RUNNING", f"job {running} ended within {HOLD_S} s"
        state, reason = c.job_state(job), c.reason(job)
        assert state == "PENDING" and "prodexp1 at its borrow limit in p4" in reason, \
            f"job {job} {state} ({reason}) while job {running} holds prodexp1's quota"
        time.sleep(1)


def test_reserve_mode_charges_the_warm_nodes_to_the_owning_share(reserve_one_node_quota):
    c = reserve_one_node_quota
    publish(c, "warm-q")
    make_pool(c, "alice", "warm-q")  # prodexp1's one node of quota is now warm on p4n3
    # Fair share: the owner's RawUsage grows while its pool is warm and no job of it runs.
    usage = c.share_raw_usage("prodexp1")
    wait_until("prodexp1's RawUsage to grow while its pool is warm",
               lambda: c.share_raw_usage("prodexp1") > usage, timeout=30)
    # A one-node job of prodexp1 that does not match the pool fits the quota's size, but the
    # quota is used by the warm node and prodexp1 may not borrow: it waits, saying why.
    plain = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", script="true")
    waits_at_prodexp1s_borrow_limit(c, plain)
    # The control: take away only the pool's hold on the quota (an admin ends the pool, nothing
    # else changes) and the very same job starts, with three nodes idle all along.
    end_pool(c, "p4n3")
    c.wait_state(plain, "COMPLETED", timeout=30)

    # The matching job claims the pool: the warm node becomes its own usage, not counted twice,
    # so it starts, on the warm node, while another plain job waits at the borrow limit again.
    make_pool(c, "alice", "warm-q")
    waiting = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", script="true")
    waits_at_prodexp1s_borrow_limit(c, waiting)
    claimer = sbatch_out(c, "alice", "warm-q-claimer.out", "-p", "p4", "-N1", "--exclusive",
                         "--image=warm-q", script=f"sleep {HOLD_S + 20}")
    info = c.wait_state(claimer, "RUNNING")
    assert info["NodeList"] == "p4n3"
    assert "warm start on wp-" in info["SystemComment"]
    # The claimer now holds prodexp1's quota (the pool's hold moved to it, not freed): through
    # two backfill passes after it started, the other job still waits at the borrow limit.
    stays_at_prodexp1s_borrow_limit(c, waiting, claimer)
    # The claimer ends without --keep-alive: the pool ends, the quota is free, the job runs.
    c.wait_state(claimer, "COMPLETED")
    c.wait_state(waiting, "COMPLETED")


def end_pool(c, node):
    """Ends the pool on `node` as an admin would (`shareq pools end`); waits until it is gone."""
    pool = re.match(r"shareq:(wp-\d+),", c.node_extra(node)).group(1)
    done = c.run([str(c.build_dir / "tools" / "shareq"), "pools", "end", pool])
    assert done.returncode == 0, done.stderr
    wait_until(f"{pool} to end", lambda: c.node_extra(node) == "")


def test_prefer_mode_charges_nothing_for_warm_nodes(warm):
    c = warm
    publish(c, "warm-p")
    make_pool(c, "alice", "warm-p")
    usage = c.share_raw_usage("prodexp1")
    # Two priority passes (5 s each) and more: a pool in prefer mode accrues nothing.
    with pytest.raises(AssertionError):
        wait_until("prodexp1's RawUsage to grow", lambda: c.share_raw_usage("prodexp1") > usage,
                   timeout=12)


# ---- multi-node pools ------------------------------------------------------------------------

def pool_name(c, node):
    """The pool on the node's Extra ("wp-N"), or ""."""
    m = re.match(r"shareq:(wp-\d+),", c.node_extra(node))
    return m.group(1) if m else ""


def test_a_job_without_an_image_gets_its_warm_directory_in_every_step(warm):
    """slurmctld names a job's warm directory in its prolog's environment only; the steps of a
    job without --image find it through what the prolog left on the node (spank remote.cpp:
    steps of jobs with neither skip loading shareq_node.so)."""
    c = warm
    job = sbatch_out(c, "alice", "warm-no-image.out", "-p", "p4", "-N1", "--exclusive",
                     "--keep-alive=60",
                     script="echo batch=$SHAREQ_WARM_DIR; srun bash -c 'echo step=$SHAREQ_WARM_DIR'")
    c.wait_state(job, "COMPLETED")
    out = job_out(c, "warm-no-image.out")
    batch = re.search(r"^batch=(/\S+)$", out, re.M)
    assert batch, f"the batch step has no SHAREQ_WARM_DIR: {out!r}"
    assert f"step={batch.group(1)}\n" in out, f"the srun step has another or none: {out!r}"


def test_a_two_node_pool_is_claimed_whole_by_a_matching_two_node_job(warm):
    c = warm
    publish(c, "warm-m")
    # Each node's task leaves a file naming its node in that node's warm directory.
    first = sbatch_out(c, "alice", "warm-m-first.out", "-p", "p4", "-N2", "--exclusive",
                       "-w", "p4n2,p4n3", "--image=warm-m", "--keep-alive=300",
                       script="srun -N2 --ntasks-per-node=1 bash -c "
                              "'echo left-on-$SLURMD_NODENAME > $SHAREQ_WARM_DIR/left'")
    c.wait_state(first, "COMPLETED")
    wait_until("both nodes to be warm", lambda: pool_name(c, "p4n2") and pool_name(c, "p4n3"))
    assert pool_name(c, "p4n2") == pool_name(c, "p4n3"), "one pool holds both nodes"
    assert "nodes=2" in c.node_extra("p4n2")

    # A one-node job with otherwise the same key does not match: the node count is in the key.
    single = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "--image=warm-m", script="true")
    info = c.wait_state(single, "COMPLETED")
    assert "cold start" in info["SystemComment"], info["SystemComment"]
    assert info["NodeList"] not in ("p4n2", "p4n3")
    assert pool_name(c, "p4n2") and pool_name(c, "p4n3"), "the pool is still there"

    # The matching two-node job lands on exactly the pool's two nodes (the scheduler's own first
    # choice would be p4n[1-2]), and each node's warm directory holds what was left there.
    second = sbatch_out(c, "alice", "warm-m-second.out", "-p", "p4", "-N2", "--exclusive",
                        "--image=warm-m",
                        script="srun -N2 --ntasks-per-node=1 bash -c "
                               "'echo $SLURMD_NODENAME:$(cat $SHAREQ_WARM_DIR/left)'")
    info = c.wait_state(second, "COMPLETED")
    assert info["NodeList"] == "p4n[2-3]"
    assert "warm start on wp-" in info["SystemComment"]
    out = job_out(c, "warm-m-second.out")
    assert "p4n2:left-on-p4n2" in out and "p4n3:left-on-p4n3" in out, out


# ---- reclaim ends a borrowing share's reserved pool before any running job ------------------

def test_reclaim_ends_a_borrowers_reserved_pool_before_preempting_its_jobs(reserve_mode):
    """prodexp1 (quota 2) runs two jobs and keeps a third node warm in reserve mode: it borrows
    one node through its pool. prodexp2 asks for its quota back: the warm pool, which runs no
    work, is ended for it; prodexp1's running jobs are not touched."""
    c = reserve_mode
    original = (c.dir / "etc" / "shareq.conf").read_text()
    c.install_shareq_conf(original.replace("ReclaimMinRuntime=60", "ReclaimMinRuntime=0"))
    publish(c, "warm-r")
    make_pool(c, "alice", "warm-r", keep_alive=3600)
    pool = re.match(r"shareq:(wp-\d+),", c.node_extra("p4n3")).group(1)
    running = [c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "--requeue",
                        script="sleep 300") for _ in range(2)]
    owner = c.sbatch("bob", "-p", "p4", "-N1", "--exclusive", "-A", "prodexp2", "--requeue",
                     script="sleep 300")
    for job in running + [owner]:
        c.wait_state(job, "RUNNING")
    reclaimer = c.sbatch("bob", "-p", "p4", "-N1", "--exclusive", "-A", "prodexp2",
                         script="sleep 300")
    info = c.wait_state(reclaimer, "RUNNING", timeout=60)
    assert info["NodeList"] == "p4n3", "the job starts on the ended pool's node"
    for job in running:
        assert c.job_state(job) == "RUNNING" and c.job(job).get("Restarts", "0") == "0"
    log = (c.dir / "log" / "slurmctld.log").read_text()
    assert re.search(rf"{pool} terminated.*reclaimed for job {reclaimer} of share ProdExp2",
                     log, re.IGNORECASE), "slurmctld logs why the pool ended"


def mails(c):
    """Every mail the cluster's MailProg recorded (tests/cluster/lib/config.sh), oldest first."""
    return [p.read_text() for p in sorted((c.dir / "mail").glob("mail-*"))]


NOTICE = re.compile(r"arg: Slurm Job_id=(\d+) Name=shareq: job (\d+) left its nodes warm as "
                    r"(wp-\d+): (\S+) \(partition (\S+)\) until (\S+) \(in (\d+) s\); (.*) Ended")


def test_pool_notice_is_mailed_with_mail_type_end_only(warm):
    c = warm
    digest = publish(c, "warm-m")
    quiet = make_pool(c, "alice", "warm-m", node="p4n3")  # no --mail-type: no notice
    mailed = sbatch_out(c, "alice", "warm-m-mailed.out", "-p", "p4", "-N1", "--exclusive",
                        "-w", "p4n2", "--image=warm-m", "--keep-alive=300", "--mail-type=END",
                        "--mail-user=alice@example.org", script="true")
    c.wait_state(mailed, "COMPLETED")

    def notice():
        for text in mails(c):
            m = NOTICE.search(text)
            if m and int(m.group(1)) == mailed:
                return text, m
        return None
    text, m = wait_until("the warm-pool notice of the mailed job", notice)
    assert int(m.group(2)) == mailed and m.group(4) == "p4n2" and m.group(5) == "p4", text
    pool, until_iso, left = m.group(3), m.group(6), int(m.group(7))
    extra = wait_until(f"p4n2 to show {pool}", lambda: c.node_extra("p4n2").startswith(
        f"shareq:{pool},available,") and c.node_extra("p4n2"))
    until = int(re.search(r",until=(\d+),", extra).group(1))
    # The absolute time carries its UTC offset and is the pool's deadline; so are the seconds.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", until_iso), until_iso
    assert datetime.datetime.fromisoformat(until_iso).timestamp() == until, text
    assert 250 <= left <= 300, text
    assert m.group(8) == (f"a job reuses them when it has the same user alice, share prodexp1, "
                          f"image warm-m (sha256:{digest[:12]}), partition p4, node count 1"), text
    assert "arg: -s\n" in text and "arg: alice@example.org\n" in text, text
    assert f"SPANK_SHAREQ_WARM_POOL={pool}\n" in text and "SPANK_SHAREQ_WARM_NODES=p4n2\n" in text
    assert f"SPANK_SHAREQ_WARM_UNTIL={until}\n" in text, text
    # Slurm's own end mail still comes, and the job that asked for no mail got none: its mail
    # would have been queued before the notice above.
    wait_until("Slurm's own end mail", lambda: any(
        f"arg: Slurm Job_id={mailed} Name=wrap Ended" in t for t in mails(c)))
    assert not any(f"Job_id={quiet} " in t for t in mails(c)), mails(c)
