"""slurmctld with shareq's plugins stops as Slurm means it to: SIGTERM (what `systemctl stop
slurmctld` sends) ends it with exit status 0. Slurm calls the job_submit plugins' fini only in
builds with MEMORY_LEAK_DEBUG; Debian's end with exit(), which destroys the plugins' static
objects. A std::thread object still running then calls std::terminate: until 2026-12-04 every
stop of slurmctld with shareq ended in SIGABRT (exit status 134, a core dump where enabled).

The cluster's slurmctld is a daemon whose exit status nobody sees, so this test stops it, starts
one in the foreground (`slurmctld -D`) as this test's child, runs a job through shareq's plugins,
stops it, and starts the daemon again.
"""

import os
import signal
import subprocess
import tempfile

import pytest

from slurm import wait_until

PING_TIMEOUT = 60
EXIT_TIMEOUT = 120  # an orderly stop saves state and waits for its agents


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def answers(c):
    out = c.run(["scontrol", "ping"])
    return out.returncode == 0 and "UP" in out.stdout


@pytest.mark.every_release
@pytest.mark.stock_too
def test_slurmctld_exits_with_status_0_when_stopped(clean_queue):
    c = clean_queue
    pid = int((c.dir / "run" / "slurmctld.pid").read_text())
    os.kill(pid, signal.SIGTERM)
    wait_until("the slurmctld daemon to stop", lambda: not alive(pid), EXIT_TIMEOUT)
    with tempfile.TemporaryFile("w+") as stderr:
        ctld = subprocess.Popen(["/usr/sbin/slurmctld", "-D"], env=c.env, cwd=c.dir,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=stderr)
        try:
            wait_until("slurmctld -D to answer", lambda: answers(c), PING_TIMEOUT)
            # Every shareq plugin at work: job_submit (and its thread), priority, select.
            job = c.sbatch("alice", "-p", "p4", "-A", "prodexp1", script="true")
            c.wait_state(job, "COMPLETED", timeout=60)
            ctld.send_signal(signal.SIGTERM)
            ctld.wait(timeout=EXIT_TIMEOUT)
            stderr.seek(0)
            said = stderr.read()
            assert ctld.returncode == 0, \
                f"slurmctld exited with {ctld.returncode} (negative: killed by that signal):\n" \
                f"{said[-2000:]}"
            assert "terminate called" not in said, said[-2000:]
        finally:
            if ctld.poll() is None:
                ctld.kill()
                ctld.wait()
            c.restart_slurmctld()  # the daemon again, for the tests after this one
