"""Security: users trying to break out, as a user would, on the real cluster (issue 17, point 3).

Each test is an attempt by alice or bob (real accounts; their commands run through runuser and
their jobs as themselves) to read or change what is not theirs: another user's warm directory,
what root removes when a pool ends, the shared image cache, another user's warm pool (forged
variables, `srun --export`, `scontrol update`), and a pending job's share or priority. What each
attempt must leave is checked afterwards, from root's side. The cluster's nodes share this host,
so a user's process on any node (or a login shell) sees every node's directories: the tests use
that, as an attacker on a shared node would. Every wait is bounded.

Covered elsewhere and not repeated here: a digest mismatch (tests/cluster/test_warm_pools.py
test_a_corrupt_image_fails_its_job_cleanly_and_leaves_the_cache_clean, tests/faults
test_a_misbehaving_image_store), `shareq pools end` by a non-operator (test_warm_pools.py
test_an_admin_ends_a_pool_with_shareq_pools_end), the removal's own races
(tests/unit/spank/warm_tree_test.cpp).
"""

import hashlib
import os
import pwd
import re
import stat

import pytest

from slurm import wait_until
from test_warm_pools import (end_pools, job_out, make_pool, node_log, publish, sbatch_out,
                             warm)  # noqa: F401 (warm: the fixture, shared)

RAW_SUBMIT = "tests/cluster/raw_submit"
NODES = ("p4n1", "p4n2", "p4n3", "p4n4")


def warm_root(c, node):
    return c.dir / "nodes" / node / "warm"


def cache_dir(c, node):
    return c.dir / "nodes" / node / "images"


def pool_of(c, node):
    m = re.match(r"shareq:(wp-\d+),", c.node_extra(node))
    return m.group(1) if m else ""


def end_pool_as_root(c, node):
    pool = pool_of(c, node)
    done = c.shareq("pools", "end", pool)
    assert done.returncode == 0, done.stderr
    wait_until(f"{pool} to end", lambda: c.node_extra(node) == "")


def as_user(c, user, script):
    """Runs a bash script as `user` (a login shell on this host, which is every node)."""
    return c.run(["bash", "-c", script], user=user)


def snapshot(path):
    """What must not change about a file an attacker aims at: owner, mode, links, bytes."""
    st = os.lstat(path)
    return (st.st_uid, stat.S_IMODE(st.st_mode), st.st_nlink,
            hashlib.sha256(path.read_bytes()).hexdigest())


def assert_not_writable_by_others(path):
    """`path` and every directory above it are root's and writable by no one else: root never
    works on a path a user controls."""
    for p in [path, *path.parents]:
        st = os.lstat(p)
        assert not stat.S_ISLNK(st.st_mode), f"{p} is a symbolic link"
        assert st.st_uid == 0, f"{p} is owned by uid {st.st_uid}"
        assert st.st_mode & 0o022 == 0 or st.st_mode & stat.S_ISVTX, \
            f"{p} is writable by others ({oct(st.st_mode)})"


# ---- another user's warm directory ------------------------------------------------------------

def test_another_users_warm_directory_can_be_neither_read_nor_changed(warm):
    c = warm
    publish(c, "esc-a")
    pool_job = make_pool(c, "alice", "esc-a", script="echo alice-secret > $SHAREQ_WARM_DIR/secret")
    name = f"warm-{pool_job}"
    root = warm_root(c, "p4n3")
    mine = root / name
    assert_not_writable_by_others(root)
    st = os.lstat(mine)
    assert st.st_uid != 0 and stat.S_IMODE(st.st_mode) == 0o700, oct(st.st_mode)

    # bob, from a job on another node and from a login shell, tries everything he can think of.
    attempts = {
        "list": f"ls {mine}",
        "read": f"cat {mine}/secret",
        "write": f"echo bob > {mine}/secret",
        "create": f"touch {mine}/from-bob",
        "rename": f"mv {mine} {root}/stolen",
        "remove": f"rm -rf {mine}",
        "state": f"echo until=1 > {root}/{name}.state",
        "plant": f"mkdir {root}/warm-999999",
        "link": f"ln -s {mine} {root}/warm-999998",
    }
    script = "; ".join(f"{{ {cmd}; }} 2>/dev/null && echo DID-{what}" for what, cmd in attempts.items())
    job = sbatch_out(c, "bob", "esc-a-bob.out", "-p", "p4", "-N1", "-w", "p4n1", "-A", "prodexp2",
                     script=script + "; echo bob-done")
    c.wait_state(job, "COMPLETED")
    shell = as_user(c, "bob", script)
    out = job_out(c, "esc-a-bob.out") + shell.stdout
    assert "bob-done" in out and "DID-" not in out, out

    # Nothing changed, and alice's matching job still gets her directory with what she left.
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("warm-")) == \
        sorted([name, f"{name}.state"]), list(root.iterdir())
    assert (mine / "secret").read_text() == "alice-secret\n"
    again = sbatch_out(c, "alice", "esc-a-again.out", "-p", "p4", "-N1", "--exclusive",
                       "--image=esc-a", script="cat $SHAREQ_WARM_DIR/secret; ls $SHAREQ_WARM_DIR")
    info = c.wait_state(again, "COMPLETED")
    assert info["NodeList"] == "p4n3" and "warm start on wp-" in info["SystemComment"], info
    assert job_out(c, "esc-a-again.out") == "alice-secret\nsecret\n"


def test_links_planted_in_a_warm_directory_are_not_followed_when_root_removes_it(warm):
    c = warm
    # Root's files that alice aims at: a copy of /etc/shadow (root, 0600), a directory of root's,
    # and a root file that anyone may write (so the kernel lets her hard-link it). Every link
    # points into this directory only, never at the host's own files: should the removal ever
    # follow a link (a regression, or a mutation check), what it destroys is this directory.
    targets = c.dir / "escape-targets"
    targets.mkdir(exist_ok=True)
    os.chmod(targets, 0o755)
    shadow = targets / "shadow"
    shadow.write_bytes(b"root:$6$not-a-real-hash:19000:0:99999:7:::\n")
    os.chmod(shadow, 0o600)
    rootdir = targets / "rootdir"
    rootdir.mkdir(exist_ok=True)
    (rootdir / "keep").write_text("root's\n")
    shared = targets / "shared"
    shared.write_text("anyone may write me, no one may remove me\n")
    os.chmod(shared, 0o666)
    before = {p: snapshot(p) for p in (shadow, rootdir / "keep", shared)}

    publish(c, "esc-b")
    plant = (f"d=$SHAREQ_WARM_DIR; ln -s {shadow} $d/shadow-link; ln -s {rootdir} $d/dir-link;"
             f" ln -s {targets} $d/targets-link; mkdir -p $d/sub/deeper;"
             f" ln -s {rootdir} $d/sub/deeper/dir-link; ln -s {targets} $d/sub/targets-link;"
             f" ln {shared} $d/hard-shared && echo hard-shared-linked;"
             f" ln {shadow} $d/hard-shadow 2>/dev/null || echo hard-shadow-refused;"
             f" chmod 000 $d/sub; echo planted")
    pool_job = sbatch_out(c, "alice", "esc-b-pool.out", "-p", "p4", "-N1", "--exclusive",
                          "-w", "p4n3", "--image=esc-b", "--keep-alive=3600", script=plant)
    c.wait_state(pool_job, "COMPLETED")
    out = job_out(c, "esc-b-pool.out")
    # The kernel (fs.protected_hardlinks) refuses a link to root's private file; one to the file
    # anyone may write is made, so the removal meets a hard link to root's file too.
    assert "planted" in out and "hard-shared-linked" in out and "hard-shadow-refused" in out, out
    assert os.lstat(shared).st_nlink == 2
    name = f"warm-{pool_job}"
    mine = warm_root(c, "p4n3") / name
    assert os.path.islink(mine / "shadow-link") and mine.is_dir()

    # The pool ends; the next job on the node has root remove the directory.
    wait_until("p4n3 to show the pool", lambda: pool_of(c, "p4n3"))
    end_pool_as_root(c, "p4n3")
    other = c.sbatch("bob", "-p", "p4", "-N1", "-w", "p4n3", "-A", "prodexp2", script="true")
    c.wait_state(other, "COMPLETED")
    wait_until(f"{name} to be removed", lambda: not os.path.lexists(mine))
    assert f"warm directory {name} ended early in slurmctld: removed" in node_log(c, "p4n3")

    # Every target is still there, unchanged (the hard link's count is back to one).
    assert rootdir.is_dir() and targets.is_dir()
    after = {p: snapshot(p) for p in before}
    before[shared] = before[shared][:2] + (1,) + before[shared][3:]
    assert after == before


# ---- the shared image cache --------------------------------------------------------------------

def cache_files(c, node):
    """Every entry under the node's image cache's sha256 directory."""
    d = cache_dir(c, node) / "sha256"
    return sorted(d.iterdir()) if d.is_dir() else []


def assert_cache_holds_only_what_hashes_to_its_name(c):
    for node in NODES:
        for p in cache_files(c, node):
            st = os.lstat(p)
            assert stat.S_ISREG(st.st_mode), f"{p} is not a plain file"
            assert st.st_uid == 0 and st.st_mode & 0o222 == 0, f"{p}: {oct(st.st_mode)}"
            assert hashlib.sha256(p.read_bytes()).hexdigest() == p.name, f"{p} does not hash to its name"


def test_a_user_cannot_plant_or_change_anything_in_the_image_cache(warm):
    c = warm
    digest = publish(c, "esc-c")
    fake = hashlib.sha256(b"bob's image").hexdigest()
    cache = cache_dir(c, "p4n2")
    attempts = {
        "plant": f"echo evil > {cache}/sha256/{fake}",
        "plant-tmp": f"echo evil > {cache}/sha256/.tmp-{fake}",
        "plant-link": f"ln -s {cache}/sha256/{digest} {cache}/sha256/{fake}",
        "append": "echo evil >> $SHAREQ_IMAGE_PATH",
        "chmod": "chmod u+w $SHAREQ_IMAGE_PATH",
        "replace": f"cp /etc/hostname {cache}/sha256/x && mv -f {cache}/sha256/x $SHAREQ_IMAGE_PATH",
        "remove": "rm -f $SHAREQ_IMAGE_PATH",
        "pin": f"mkdir -p {cache}/pins/{fake}",
        "lock": f"touch {cache}/locks/{digest}.lock-bob",
        "lock-open": f"true >>{cache}/locks/{digest}.lock",
    }
    script = "; ".join(f"{{ {cmd}; }} 2>/dev/null && echo DID-{what}" for what, cmd in attempts.items())
    job = sbatch_out(c, "bob", "esc-c.out", "-p", "p4", "-N1", "-w", "p4n2", "-A", "prodexp2",
                     "--image=esc-c", script="test -r $SHAREQ_IMAGE_PATH && echo can-read; " + script + "; echo end")
    c.wait_state(job, "COMPLETED")
    out = job_out(c, "esc-c.out")
    assert "can-read" in out and "end" in out and "DID-" not in out, out
    assert_not_writable_by_others(cache / "sha256")
    names = [p.name for p in cache_files(c, "p4n2")]
    assert digest in names and fake not in names and f".tmp-{fake}" not in names, names
    assert_cache_holds_only_what_hashes_to_its_name(c)


def test_racing_a_fetch_two_jobs_and_a_user_at_the_partial_file_leave_a_clean_cache(warm):
    c = warm
    digest = publish(c, "esc-d", size=64_000_000)
    cache = cache_dir(c, "p4n4") / "sha256"
    # bob's job on p4n4 watches the cache while the image is fetched, and tries to write into
    # each partial file (.tmp-*) it sees; it stops once the image is in place (bounded: 120 s).
    watcher = sbatch_out(
        c, "bob", "esc-d-watch.out", "-p", "p4", "-N1", "-n1", "-w", "p4n4", "-A", "prodexp2",
        script=f"echo watching; for i in $(seq 1200); do"
               f" for f in {cache}/.tmp-*; do [ -e \"$f\" ] || continue; echo SAW;"
               f"  {{ echo evil >> \"$f\"; }} 2>/dev/null && echo WROTE; done;"
               f" [ -e {cache}/{digest} ] && break; sleep 0.1; done; echo watch-done")
    c.wait_state(watcher, "RUNNING")
    wait_until("the watcher to start", lambda: "watching" in job_out(c, "esc-d-watch.out"))
    # Two jobs of two users ask for the same image on the same node at once.
    jobs = [sbatch_out(c, u, f"esc-d-{u}.out", "-p", "p4", "-N1", "-n1", "-w", "p4n4",
                       "--image=esc-d", *(["-A", "prodexp2"] if u == "bob" else []),
                       script="sha256sum < $SHAREQ_IMAGE_PATH")
            for u in ("alice", "bob")]
    for j in jobs:
        c.wait_state(j, "COMPLETED", timeout=120)
    c.wait_state(watcher, "COMPLETED", timeout=150)
    for u in ("alice", "bob"):
        assert job_out(c, f"esc-d-{u}.out").split()[0] == digest
    watch = job_out(c, "esc-d-watch.out")
    assert "watch-done" in watch and "WROTE" not in watch, watch
    print(f"the watcher saw a partial file {watch.count('SAW')} time(s)")
    names = [p.name for p in cache_files(c, "p4n4")]
    assert digest in names and not [n for n in names if n.startswith(".tmp")], names
    assert_cache_holds_only_what_hashes_to_its_name(c)


# ---- claiming another user's warm pool ---------------------------------------------------------

def forged_env(name, warm_dir):
    """Every variable a user might set to name a warm directory."""
    return {"SHAREQ_WARM_NAME": name, "SPANK_SHAREQ_WARM_NAME": name,
            "SLURM_SPANK_SHAREQ_WARM_NAME": name, "SHAREQ_WARM_ENDED": name,
            "SPANK_SHAREQ_WARM_ENDED": name, "SLURM_SPANK_SHAREQ_WARM_ENDED": name,
            "SHAREQ_WARM_POOL": "wp-1", "SHAREQ_WARM_DIR": str(warm_dir)}


def bobs_warm_dirs(c):
    """Warm directories (and their state files) that belong to bob, on any node."""
    bob = pwd.getpwnam("bob").pw_uid
    return [p for n in NODES if warm_root(c, n).is_dir()
            for p in warm_root(c, n).iterdir() if os.lstat(p).st_uid == bob]


def test_forged_warm_variables_never_hand_over_another_users_warm_directory(warm):
    c = warm
    publish(c, "esc-e")
    pool_job = make_pool(c, "alice", "esc-e", script="echo alice-secret > $SHAREQ_WARM_DIR/secret")
    name = f"warm-{pool_job}"
    mine = warm_root(c, "p4n3") / name
    pool = pool_of(c, "p4n3")
    env = forged_env(name, mine)
    export = "--export=ALL," + ",".join(f"{k}={v}" for k, v in env.items())
    show = "echo dir=$SHAREQ_WARM_DIR; cat $SHAREQ_WARM_DIR/secret 2>/dev/null; echo end"

    # 1. sbatch with the variables in its environment, and with --export; each step also runs an
    #    srun with --export naming the directory.
    step = f"srun {export} bash -c '{show}'"
    forged = []
    out = c.run(["sbatch", "--parsable", "-o", "esc-e-env.out", "-p", "p4", "-N1", "-A",
                 "prodexp2", "--image=esc-e", f"--wrap={show}; {step}"], user="bob", env=env)
    assert out.returncode == 0, out.stderr
    forged.append(int(out.stdout.strip()))
    forged.append(sbatch_out(c, "bob", "esc-e-export.out", "-p", "p4", "-N1", "-A", "prodexp2",
                             "--keep-alive=60", export, script=f"{show}; {step}"))
    # 2. a client that bypasses the SPANK plugin and puts the names in the job's SPANK
    #    environment itself, where slurmctld's own names go.
    raw = c.run([str(c.build_dir / RAW_SUBMIT), "-p", "p4", "-A", "prodexp2",
                 "-e", f"SHAREQ_WARM_NAME={name}", "-e", f"SHAREQ_WARM_ENDED={name}",
                 "-e", "SHAREQ_IMAGE=esc-e", "-w", f"#!/bin/sh\n{show}\n"], user="bob")
    assert raw.returncode == 0, raw.stderr
    forged.append(int(raw.stdout.split()[0]))
    # 3. a held job whose writable fields name the directory, then released.
    held = c.sbatch("bob", "-p", "p4", "-N1", "-A", "prodexp2", "--hold", "--keep-alive=60",
                    script=show)
    for field in (f"Comment={name}", f"Name={name}", f"WCKey={name}",
                  f"Extra=SHAREQ_WARM_NAME={name}"):
        c.run(["scontrol", "update", f"JobId={held}", field], user="bob")
    assert c.run(["scontrol", "release", str(held)], user="bob").returncode == 0
    forged.append(held)

    for job in forged:
        info = c.wait_state(job, ["COMPLETED", "FAILED"], timeout=90)
        assert info["JobState"] == "COMPLETED", info
        assert info["NodeList"] != "p4n3", "a job of bob's landed on alice's warm node"
    outs = [job_out(c, f) for f in ("esc-e-env.out", "esc-e-export.out",
                                    f"slurm-{forged[2]}.out")]
    for text in outs:
        assert "end" in text and "alice-secret" not in text, text
    # shareq gave none of them alice's directory; each got its own or none.
    for text in outs:
        for d in re.findall(r"^dir=(\S*)$", text, re.M):
            assert d in ("", str(mine)) or not d.endswith(f"/{name}"), text
    # Nothing of bob's was created under alice's name, and alice's pool and directory are whole.
    assert not any(p.name.startswith(name) for p in bobs_warm_dirs(c)), bobs_warm_dirs(c)
    assert pool_of(c, "p4n3") == pool and (mine / "secret").read_text() == "alice-secret\n"
    # alice's own matching job still claims the pool, her file in it.
    again = sbatch_out(c, "alice", "esc-e-again.out", "-p", "p4", "-N1", "--exclusive",
                       "--image=esc-e", script="cat $SHAREQ_WARM_DIR/secret")
    info = c.wait_state(again, "COMPLETED")
    assert info["NodeList"] == "p4n3" and "warm start on wp-" in info["SystemComment"], info
    assert job_out(c, "esc-e-again.out") == "alice-secret\n"


def test_a_forged_name_on_the_warm_node_itself_gets_no_directory_of_alices(warm):
    """bob's job takes alice's warm node (which ends her pool, in prefer mode: the documented
    price of a pool) with every variable naming her directory: it runs, without her directory,
    and never sees her file."""
    c = warm
    publish(c, "esc-f")
    pool_job = make_pool(c, "alice", "esc-f", script="echo alice-secret > $SHAREQ_WARM_DIR/secret")
    name = f"warm-{pool_job}"
    mine = warm_root(c, "p4n3") / name
    env = forged_env(name, mine)
    export = "--export=ALL," + ",".join(f"{k}={v}" for k, v in env.items())
    out = c.run(["sbatch", "--parsable", "-o", "esc-f.out", "-p", "p4", "-N1", "--exclusive",
                 "-w", "p4n3", "-A", "prodexp2", "--image=esc-f", "--keep-alive=60", export,
                 f"--wrap=echo dir=$SHAREQ_WARM_DIR; cat {mine}/secret 2>/dev/null; "
                 f"srun {export} bash -c 'cat $SHAREQ_WARM_DIR/secret 2>/dev/null; echo end'"],
                user="bob", env=env)
    assert out.returncode == 0, out.stderr
    job = int(out.stdout.strip())
    info = c.wait_state(job, ["COMPLETED", "FAILED"], timeout=90)
    assert info["JobState"] == "COMPLETED", (info, job_out(c, "esc-f.out"))
    assert info["NodeList"] == "p4n3" and "warm start" not in info["SystemComment"], info
    text = job_out(c, "esc-f.out")
    # bob asked for a keep-alive: he gets a warm directory of his own job's name, not alice's.
    assert f"dir={warm_root(c, 'p4n3')}/warm-{job}\n" in text, text
    assert "end" in text and "alice-secret" not in text, text
    assert not any(p.name.startswith(name) for p in bobs_warm_dirs(c)), bobs_warm_dirs(c)


# ---- a pending job's share and priority --------------------------------------------------------

def tag_of(c, job):
    """shareq's record on the job: its AdminComment (the tag job_submit wrote) and account."""
    info = c.job(job)
    return info["AdminComment"], info["Account"]


def why_share_lines(c, job):
    """`shareq why JOB`'s first line: the job's state, user, share and share priority as shareq
    decides them ("job J: PENDING, user alice, share prodexp1, priority 10")."""
    out = c.shareq("why", str(job))
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()[0]


@pytest.fixture
def pending(clean_queue):
    """p4 full with alice's own jobs (share priority 90, so nothing is preempted for the job
    under test); alice's job at share priority 10 pends behind them."""
    c = clean_queue
    end_pools(c)
    fill = [c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "--share-priority=90",
                     script="sleep 300") for _ in NODES]
    for j in fill:
        c.wait_state(j, "RUNNING")
    job = c.sbatch("alice", "-p", "p4", "-N1", "--exclusive", "--share-priority=10",
                   script="true")
    wait_until(f"job {job} to be tried and pend",
               lambda: c.job_state(job) == "PENDING" and c.reason(job) not in ("", "None"))
    yield c, job
    c.cancel_all()


# (field, whether Slurm or shareq refuses it from the job's user)
USER_FIELDS = [
    ("Comment=shareq-share:research,priority:99", None),
    ("Name=shareq-priority-99", None),
    ("WCKey=research", None),
    ("Extra=shareq:priority=99", None),
    ("AdminComment=shareq:research:99", True),
    ("Priority=4000000000", True),
    ("Priority=1", True),  # "Changes to job priority are not persistent, change nice instead"
    ("Nice=-10000", True),
    ("Partition=p5", True),
    ("QOS=high", None),
]


def test_fields_a_user_can_write_change_neither_share_nor_priority(pending):
    c, job = pending
    tag, account = tag_of(c, job)
    assert tag and account == "prodexp1", (tag, account)
    why = why_share_lines(c, job)
    assert why == f"job {job}: PENDING, user alice, share prodexp1, priority 10", why
    for field, refused in USER_FIELDS:
        out = c.run(["scontrol", "update", f"JobId={job}", field], user="alice")
        print(f"scontrol update {field}: exit {out.returncode} {out.stderr.strip()}")
        if refused:
            assert out.returncode != 0, f"{field} was accepted from the job's user"
        assert tag_of(c, job) == (tag, account), f"{field} changed the job's share or tag"
        assert why_share_lines(c, job) == why, f"{field} changed what shareq why says"
    # What a user may do, as documented: nice the job (Slurm's order within the rules); its
    # share and share priority stay.
    for field in ("Nice=100",):
        out = c.run(["scontrol", "update", f"JobId={job}", field], user="alice")
        assert out.returncode == 0, (field, out.stderr)
        assert tag_of(c, job) == (tag, account), field
        assert why_share_lines(c, job).startswith(why + ", nice 100"), field
    # Another share with a quota in the family: shareq moves the job's tag with it
    # (job_modify, as a new submission); the share priority goes along.
    out = c.run(["scontrol", "update", f"JobId={job}", "Account=prodexp2"], user="alice")
    assert out.returncode == 0, out.stderr
    assert tag_of(c, job)[1] == "prodexp2" and "share=prodexp2," in tag_of(c, job)[0]
    assert why_share_lines(c, job).startswith(
        f"job {job}: PENDING, user alice, share prodexp2, priority 10"), why_share_lines(c, job)
    assert c.job_state(job) == "PENDING"


@pytest.mark.every_release
def test_a_user_moving_a_pending_job_to_a_share_without_quota_is_told_why(clean_queue):
    c = clean_queue
    job = c.sbatch("bob", "-p", "p4", "-A", "prodexp2", "--hold", script="true")
    tag = tag_of(c, job)
    out = c.run(["scontrol", "update", f"JobId={job}", "Account=research"], user="bob")
    assert out.returncode != 0
    reason = ('shareq: --share: share "research" has no quota in family p4 (partition p4); '
              'shares in p4: prodexp1, prodexp2')
    if " 22.05." in c.run(["scontrol", "-V"]).stdout:
        # Slurm 22.05 hands job_modify no message for the user: scontrol shows Slurm's own words
        # for the error code, and shareq's reason is in slurmctld's log (docs/bad-inputs.md).
        assert out.stderr == f"Invalid account or account/partition combination specified for job {job}\n", out.stderr
        log = (c.dir / "log" / "slurmctld.log").read_text(errors="replace")
        assert f"shareq: job_modify: refused update of JobId={job} by uid " in log, log[-2000:]
        assert reason in log
    else:
        assert reason in out.stderr, out.stderr
    assert tag_of(c, job) == tag
