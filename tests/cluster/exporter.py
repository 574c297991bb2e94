"""shareq-exporter as a process of a test: started as user alice (unprivileged) on a free port,
reading the cluster's slurmctld and slurmdbd every second, and its /metrics read back."""

import re
import shutil
import socket
import subprocess
import urllib.request

from slurm import wait_until


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def reachable(url):
    try:
        http_get(url, timeout=2)
        return True
    except OSError:
        return False


def start_exporter(cluster, port, state_dir, log):
    """Starts the exporter and waits until it answers; returns its process."""
    state_dir.mkdir(parents=True, exist_ok=True)
    shutil.chown(state_dir, "alice")
    exporter = cluster.build_dir / "tools" / "exporter" / "shareq-exporter"
    proc = subprocess.Popen(
        ["runuser", "-u", "alice", "--", str(exporter),
         f"--web.listen-address=127.0.0.1:{port}", "--min-interval", "1",
         f"--state-dir={state_dir}"], env=cluster.env, stdout=log, stderr=subprocess.STDOUT)
    wait_until("the exporter to answer", lambda: reachable(f"http://127.0.0.1:{port}/metrics"))
    return proc


def samples(text, name):
    """{labels: value} of every sample of metric `name` in exposition `text`, labels as a dict
    frozen into a sorted tuple of (label, value)."""
    found = {}
    for line in text.splitlines():
        m = re.match(rf"^{re.escape(name)}(?:\{{(.*)\}})? (\S+)$", line)
        if m:
            labels = tuple(sorted(re.findall(r'(\w+)="([^"]*)"', m.group(1) or "")))
            found[labels] = float(m.group(2))
    return found
