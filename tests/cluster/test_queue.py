"""shareq queue against the real cluster: the job it lists first is the one that starts.

Family p4 (slurm-conf/shareq.conf) counts nodes, capacity 4: prodexp1 and prodexp2 have a quota
of 2 each (prodexp2 may borrow 2). ReclaimMinRuntime=60 keeps a just-started borrowed job from
being reclaimed during the test.
"""

import json
import re

from slurm import wait_until


def node_job(c, user, share, script="sleep 300"):
    return c.sbatch(user, "-p", "p4", "-N1", "--exclusive", f"--share={share}", script=script)


def queue(c, *args):
    out = c.shareq("queue", "--family", "p4", "--json", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["families"][0]


def test_the_job_listed_first_starts_when_capacity_frees(clean_queue):
    c = clean_queue
    # p4 full: prodexp1 holds 1 of its 2 nodes, prodexp2 3 (borrowing 1).
    running = [node_job(c, "alice", "prodexp1")]
    running += [node_job(c, "bob", "prodexp2") for _ in range(3)]
    for job in running:
        c.wait_state(job, "RUNNING")
    borrower = node_job(c, "bob", "prodexp2")  # submitted first, would borrow a second node
    within = node_job(c, "alice", "prodexp1")  # within prodexp1's quota
    for job in (borrower, within):
        wait_until(f"job {job}'s shareq reason", lambda job=job: c.reason(job).startswith("shareq:"))

    p4 = queue(c)
    assert p4["unit"] == "node" and p4["pending_jobs"] == 2, p4
    first, second = p4["jobs"]
    assert (first["job_id"], first["tier"], first["share"]) == (within, "within_quota", "prodexp1")
    assert (second["job_id"], second["tier"], second["share"]) == (borrower, "borrow", "prodexp2")
    assert first["position"] == 1 and first["amount"] == 1 and first["user"] == "alice", first
    assert second["outlook"] == "waits" and second["words"], second
    assert [j["job_id"] for j in queue(c, "--share", "ProdExp2")["jobs"]] == [borrower]
    assert [j["job_id"] for j in queue(c, "--limit", "1")["jobs"]] == [within]
    table = c.shareq("queue", "--family", "p4")
    assert table.returncode == 0, table.stderr
    assert "family p4: 2 pending\n" in table.stdout, table.stdout
    assert re.search(rf"^1\s+{within}\s+alice\s+prodexp1\s+within quota\s", table.stdout, re.M), table.stdout

    c.run(["scancel", str(running[1])])  # frees one of prodexp2's nodes
    c.wait_state(first["job_id"], "RUNNING")
    assert c.job_state(borrower) == "PENDING"


def test_bad_options_name_the_option_and_the_allowed_values(cluster):
    out = cluster.shareq("queue", "--limit", "0")
    assert out.returncode == 2 and "--limit: \"0\" is out of range; allowed: 1..1000000" in out.stderr
    out = cluster.shareq("queue", "--share", "nosuch")
    assert out.returncode == 2 and "--share: no share \"nosuch\"; shares: " in out.stderr, out.stderr
