"""The submission flags end to end: SPANK plugin on the client, job_submit/shareq in slurmctld."""

import pytest

RAW_SUBMIT = "tests/cluster/raw_submit"


def job_ids(cluster):
    out = cluster.run(["squeue", "-h", "-o", "%i"])
    return set(out.stdout.split())


def assert_refused(out, *needles):
    assert out.returncode != 0, f"expected a refusal, got: {out.stdout} {out.stderr}"
    for needle in needles:
        assert needle in out.stderr, f"{needle!r} not in: {out.stderr}"


# ---- client side: the SPANK plugin refuses malformed values before anything is submitted ----

BAD_FLAGS = [
    ("--share=has/slash", "--share"),
    ("--share=", "--share"),
    ("--share-priority=100", "0..99"),
    ("--share-priority=-1", "0..99"),
    ("--share-priority=high", "0..99"),
    ("--image=../etc/passwd", "--image"),
    ("--image=a/b", "--image"),
    ("--image=llama@sha256:1234", "--image"),
    ("--keep-alive=-5", "--keep-alive"),
    ("--keep-alive=10m", "--keep-alive"),
]


@pytest.mark.parametrize("flag,needle", BAD_FLAGS)
@pytest.mark.every_release
def test_sbatch_refuses_malformed_flag_before_submitting(clean_queue, flag, needle):
    before = job_ids(clean_queue)
    out = clean_queue.sbatch("alice", "-p", "p4", flag, expect_ok=False)
    assert_refused(out, "sbatch: error: shareq: ", needle)
    assert job_ids(clean_queue) == before


@pytest.mark.parametrize("variable,value,needle", [
    ("SHAREQ_SHARE_PRIORITY", "150", "0..99"),
    ("SHAREQ_IMAGE", "x y", "--image"),
    ("SHAREQ_KEEP_ALIVE", "abc", "--keep-alive"),
    ("SHAREQ_SHARE", "a/b", "--share"),
])
def test_environment_fallbacks_are_validated_too(clean_queue, variable, value, needle):
    """The message names the flag the variable stands for, and the variable the user set."""
    out = clean_queue.sbatch("alice", "-p", "p4", env={variable: value}, expect_ok=False)
    assert_refused(out, "shareq: ", needle, f"(from {variable})")


def test_command_line_wins_over_environment(clean_queue):
    c = clean_queue
    job = c.sbatch("alice", "-p", "p4", "--share-priority=70",
                   env={"SHAREQ_SHARE_PRIORITY": "20", "SHAREQ_SHARE": "prodexp2"})
    info = c.job(job)
    assert info["Account"] == "prodexp2"
    assert "priority=70" in info["AdminComment"]


def test_srun_and_salloc_refuse_malformed_values(clean_queue):
    out = clean_queue.run(["srun", "-p", "p4", "--share-priority=100", "true"], user="alice")
    assert_refused(out, "shareq: ", "0..99")
    out = clean_queue.run(["salloc", "-p", "p4", "--keep-alive=-1", "true"], user="alice")
    assert_refused(out, "shareq: ", "--keep-alive")


def test_flags_appear_in_help_with_the_shareq_prefix(cluster):
    for command in ("sbatch", "salloc", "srun"):
        out = cluster.run([command, "--help"], user="alice")
        for flag in ("--share=", "--share-priority=", "--image=", "--keep-alive="):
            assert flag in out.stdout, f"{flag} missing from {command} --help"
        assert "[shareq]" in out.stdout


# ---- controller side: job_submit/shareq is the authority ----------------------------------

def test_share_unknown_to_shareq_conf_is_refused(clean_queue):
    out = clean_queue.sbatch("alice", "-p", "p4", "--share=nosuchshare", expect_ok=False)
    assert_refused(out, "sbatch: error: shareq: --share", "nosuchshare", "prodexp1")
    # Given as a flag, so no variable is named (Slurm forwards the flag under its option name).
    assert "(from" not in out.stderr, out.stderr


@pytest.mark.parametrize("command", ["sbatch", "srun", "salloc"])
@pytest.mark.every_release
def test_a_share_refused_by_the_controller_names_where_it_came_from(clean_queue, command):
    """The SPANK plugin passes a well-formed share on; slurmctld refuses an unknown one and
    says whether the user gave the flag or the variable (SHAREQ_SHARE from a login script)."""
    args = [command, "-p", "p4"] + (["--wrap", "true"] if command == "sbatch" else ["true"])
    by_flag = clean_queue.run(args[:1] + ["--share=nosuchshare"] + args[1:], user="alice")
    assert_refused(by_flag, "shareq: --share", "nosuchshare")
    assert "(from" not in by_flag.stderr, by_flag.stderr
    by_variable = clean_queue.run(args, user="alice", env={"SHAREQ_SHARE": "nosuchshare"})
    assert_refused(by_variable, "shareq: --share", "nosuchshare", "(from SHAREQ_SHARE)")


def test_share_without_quota_in_the_partitions_family_is_refused(clean_queue):
    out = clean_queue.sbatch("bob", "-p", "p4", "--share=research", expect_ok=False)
    assert_refused(out, "shareq: --share", "research", "p4")


@pytest.mark.every_release
def test_share_the_user_has_no_association_with_is_refused_by_slurm(clean_queue):
    # research is a valid share in p5, but alice has no association to it.
    out = clean_queue.sbatch("alice", "-p", "p5", "--share=research", "--gres=gpu:1",
                             expect_ok=False)
    assert_refused(out, "Invalid account")


def test_keep_alive_above_max_keep_alive_is_refused(clean_queue):
    out = clean_queue.sbatch("alice", "-p", "p4", "--keep-alive=3601", expect_ok=False)
    assert_refused(out, "shareq: --keep-alive", "3600")


@pytest.mark.parametrize("variable,value,needle", [
    ("SHAREQ_SHARE_PRIORITY", "100", "--share-priority"),
    ("SHAREQ_SHARE", "no/such", "--share"),
    ("SHAREQ_IMAGE", "../../x", "--image"),
    ("SHAREQ_KEEP_ALIVE", "-1", "--keep-alive"),
])
@pytest.mark.every_release
def test_controller_refuses_what_a_bypassed_client_sends(clean_queue, variable, value, needle):
    """A client without the SPANK plugin can put anything in the job's SPANK environment."""
    raw = str(clean_queue.build_dir / RAW_SUBMIT)
    before = job_ids(clean_queue)
    log_path = clean_queue.dir / "log" / "slurmctld.log"
    log_start = log_path.stat().st_size
    out = clean_queue.run([raw, "-p", "p4", "-A", "prodexp1", "-e", f"{variable}={value}"],
                          user="alice")
    assert out.returncode != 0, out.stdout
    assert job_ids(clean_queue) == before
    with open(log_path, encoding="utf-8", errors="replace") as log:
        log.seek(log_start)
        new_log = log.read()
    said = [line for line in (out.stderr + new_log).splitlines() if f"shareq: {needle}:" in line]
    assert said, out.stderr
    assert all(line.endswith(f"(from {variable})") for line in said), said


# ---- accepted jobs ------------------------------------------------------------------------

@pytest.mark.every_release
def test_valid_gpu_job_runs_under_its_share_and_is_accounted(clean_queue):
    c = clean_queue
    job = c.sbatch("bob", "-p", "p5", "--share=Research", "--share-priority=80",
                   "--gres=gpu:8", "-N", "2", "--keep-alive=600", "--image=llama-train",
                   script="srun hostname")
    info = c.wait_state(job, "COMPLETED")
    assert info["Account"] == "research"
    tag = info["AdminComment"]
    assert "share=research" in tag and "priority=80" in tag
    assert "keep_alive=600" in tag and "image=llama-train" in tag
    rows = c.wait_sacct(job, "State", "COMPLETED")
    row = c.sacct(job, ["Account", "State", "AdminComment"])[-1]
    assert row["Account"] == "research" and row["State"] == "COMPLETED"
    assert "share=research" in row["AdminComment"], rows


def test_without_share_the_account_is_the_share_with_default_priority(clean_queue):
    c = clean_queue
    job = c.sbatch("alice", "-p", "p4", "-A", "prodexp2", script="true")
    info = c.wait_state(job, "COMPLETED")
    assert info["Account"] == "prodexp2"
    assert "share=prodexp2" in info["AdminComment"] and "priority=50" in info["AdminComment"]


def test_default_account_is_the_share_when_nothing_is_given(clean_queue):
    c = clean_queue
    job = c.sbatch("alice", "-p", "p4", script="true")
    info = c.wait_state(job, "COMPLETED")
    assert info["Account"] == "prodexp1"
    assert "share=prodexp1" in info["AdminComment"]


@pytest.mark.every_release
def test_srun_and_salloc_carry_the_flags(clean_queue):
    c = clean_queue
    out = c.run(["srun", "-p", "p4", "--share=prodexp2", "--share-priority=33",
                 "bash", "-c", "echo $SLURM_JOB_ID"], user="alice")
    assert out.returncode == 0, out.stderr
    info = c.job(int(out.stdout.strip()))
    assert info["Account"] == "prodexp2" and "priority=33" in info["AdminComment"]

    out = c.run(["salloc", "-p", "p4", "--share-priority=44", "--no-shell"], user="alice",
                env={"SHAREQ_SHARE": "prodexp2"})
    assert out.returncode == 0, out.stderr
    job = next(w for w in out.stderr.split() if w.isdigit())
    info = c.job(job)
    assert info["Account"] == "prodexp2" and "priority=44" in info["AdminComment"]


@pytest.mark.every_release
def test_a_user_cannot_move_a_pending_job_to_a_share_without_quota(clean_queue):
    c = clean_queue
    job = c.sbatch("bob", "-p", "p4", "-A", "prodexp2", "--hold", script="true")
    out = c.run(["scontrol", "update", f"JobId={job}", "Account=research"], user="bob")
    assert out.returncode != 0
    assert c.job(job)["Account"] == "prodexp2"
