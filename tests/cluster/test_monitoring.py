"""shareq-exporter against a real Prometheus (issue 16): Debian's prometheus (2.42) scrapes the
exporter and a node exporter every second; a borrow-and-reclaim scenario and a warm start run on
the cluster; Prometheus's HTTP API must then say what `shareq status --json`, `squeue` and
`sacct` say. Also: `promtool check metrics` finds nothing in the exporter's output, the exporter
answers `shareq_up 0` while slurmctld is down, and every panel of packaging/grafana/*.json has
data, the node image-cache panels from a node's ImageCacheMetricsFile.

The exporter runs as user alice (unprivileged) with --min-interval 1; Prometheus, the node
exporter and the exporter are this module's own processes on free ports, stopped at its end.
Every wait polls with a bounded timeout.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import time
import urllib.parse

import pytest

from exporter import free_port, http_get, reachable, start_exporter
from slurm import run_each, wait_until
from test_quota_shares import conf, node_job, restarts
from test_warm_pools import end_pools, make_pool, publish, sbatch_out

REPO = pathlib.Path(__file__).resolve().parents[2]
SCRAPE_WAIT = 30  # seconds: several rounds of the exporter and scrapes of Prometheus


@pytest.fixture(autouse=True)
def needs_prometheus():
    for tool in ("prometheus", "promtool", "prometheus-node-exporter"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (scripts/install-deps.sh installs it)")


class Monitoring:
    """The exporter, a node exporter and Prometheus scraping both."""

    def __init__(self, cluster, base):
        self.c = cluster
        self.base = base
        self.procs = []
        self.textfile_dir = base / "textfile"  # the node side's .prom files go here
        self.state_dir = base / "exporter-state"
        self.exporter_port, self.node_port, self.prom_port = free_port(), free_port(), free_port()
        self.exporter_url = f"http://127.0.0.1:{self.exporter_port}"
        self.prom_url = f"http://127.0.0.1:{self.prom_port}"

    def start(self):
        self.textfile_dir.mkdir(parents=True, exist_ok=True)
        self.start_exporter()
        self.spawn(["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{self.node_port}",
                    f"--collector.textfile.directory={self.textfile_dir}"], "node-exporter")
        config = self.base / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            "scrape_configs:\n"
            f"  - job_name: shareq\n    static_configs:\n"
            f"      - targets: ['127.0.0.1:{self.exporter_port}']\n"
            f"  - job_name: node\n    static_configs:\n"
            f"      - targets: ['127.0.0.1:{self.node_port}']\n")
        self.spawn(["prometheus", f"--config.file={config}",
                    f"--storage.tsdb.path={self.base / 'prometheus-data'}",
                    f"--web.listen-address=127.0.0.1:{self.prom_port}"], "prometheus")
        wait_until("Prometheus to be ready", lambda: reachable(self.prom_url + "/-/ready"))
        wait_until("Prometheus to scrape the exporter",
                   lambda: self.value('up{job="shareq"}') == 1 and
                   self.value('up{job="node"}') == 1)

    def start_exporter(self):
        log = open(self.base / "exporter.log", "a")
        self.exporter = start_exporter(self.c, self.exporter_port, self.state_dir, log)
        self.procs.append(self.exporter)

    def spawn(self, args, name):
        log = open(self.base / f"{name}.log", "a")
        proc = subprocess.Popen(args, env=self.c.env, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        return proc

    def stop(self):
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()

    def query(self, expr):
        url = self.prom_url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        answer = json.loads(http_get(url))
        assert answer["status"] == "success", answer
        return answer["data"]["result"]

    def value(self, expr):
        """The single value of `expr` now, or None when Prometheus has no series for it."""
        result = self.query(expr)
        assert len(result) <= 1, f"{expr}: more than one series: {result}"
        return float(result[0]["value"][1]) if result else None

    def metrics_text(self):
        return http_get(self.exporter_url + "/metrics")

    def since(self):
        """When the exporter started counting (its state file's `since`)."""
        text = (self.state_dir / "counters.state").read_text()
        return int(re.search(r"^since\t(\d+)$", text, re.M).group(1))


@pytest.fixture(scope="module")
def monitoring(cluster):
    base = cluster.dir / "monitoring"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    m = Monitoring(cluster, base)
    try:
        m.start()
        yield m
    finally:
        m.stop()


@pytest.fixture
def shares(clean_queue):
    c = clean_queue
    path = c.dir / "etc" / "shareq.conf"
    original = path.read_text()
    yield c
    run_each(c.cancel_all, lambda: c.install_shareq_conf(original))


def equal_soon(what, expected, actual, timeout=SCRAPE_WAIT):
    """Polls until actual() == expected() (both read again each time): the same instant, up to
    one round of the exporter and one scrape."""
    def same():
        e, a = expected(), actual()
        return e == a and (e, a)
    return wait_until(what, same, timeout)


def squeue_count(c, state, account, partition="p4"):
    out = c.run(["squeue", "-h", "-t", state, "-A", account, "-p", partition, "-o", "%i"])
    return len(out.stdout.split())


def sacct_runs(c, since):
    """Every run (sacct -D) of a p4 or p5 job that started at or after `since`:
    (job, account, partition, start, state)."""
    out = c.run(["sacct", "-a", "-n", "-P", "-D", "-X", "-S", time.strftime(
        "%Y-%m-%dT%H:%M:%S", time.localtime(since - 60)), "-o",
        "JobID,Account,Partition,Start,State"], env={"SLURM_TIME_FORMAT": "%s"})
    assert out.returncode == 0, out.stderr
    runs = []
    for line in out.stdout.splitlines():
        job, account, partition, start, state = line.split("|")
        if start.isdigit() and int(start) >= since and partition in ("p4", "p5"):
            runs.append((job, account, partition, int(start), state))
    return runs


def test_gauges_and_one_preemption_match_status_squeue_and_sacct(monitoring, shares):
    m, c = monitoring, shares
    c.install_shareq_conf(conf())
    owner_first = node_job(c, "bob", "prodexp2")
    c.wait_state(owner_first, "RUNNING")
    borrowers = [node_job(c, "alice", "prodexp1") for _ in range(3)]
    for job in borrowers:
        c.wait_state(job, "RUNNING")
    # Borrowing: prodexp1 holds 3 on a quota of 2.
    for share in ("prodexp1", "prodexp2"):
        for field in ("usage", "borrowed"):
            equal_soon(f"{share} {field} in Prometheus and shareq status",
                       lambda: c.shareq_status("p4")["by_share"][share][field],
                       lambda: m.value(f'shareq_share_{field}{{family="p4",share="{share}"}}'))
    assert m.value('shareq_share_borrowed{family="p4",share="prodexp1"}') == 1

    owner_second = node_job(c, "bob", "prodexp2")  # reclaims the youngest borrower
    c.wait_state(owner_second, "RUNNING")
    victim = wait_until("a borrower to be requeued",
                        lambda: [j for j in borrowers if restarts(c, j) >= 1])
    assert len(victim) == 1
    for share in ("prodexp1", "prodexp2"):
        for field in ("usage", "borrowed"):
            equal_soon(f"{share} {field} after the reclaim",
                       lambda: c.shareq_status("p4")["by_share"][share][field],
                       lambda: m.value(f'shareq_share_{field}{{family="p4",share="{share}"}}'))
        equal_soon(f"{share} running jobs: Prometheus and squeue",
                   lambda: squeue_count(c, "RUNNING", share),
                   lambda: m.value(f'shareq_running_jobs{{family="p4",share="{share}"}}') or 0)
    # The victim waits again, as a borrower: pending in Prometheus, shareq status and squeue.
    equal_soon("prodexp1's pending jobs: Prometheus and squeue",
               lambda: squeue_count(c, "PENDING", "prodexp1"),
               lambda: m.value('sum(shareq_pending_jobs{family="p4",share="prodexp1"})') or 0)
    equal_soon("prodexp1's pending jobs: Prometheus and shareq status",
               lambda: c.shareq_status("p4")["by_share"]["prodexp1"]["pending_jobs"],
               lambda: m.value('sum(shareq_pending_jobs{family="p4",share="prodexp1"})') or 0)
    assert m.value('shareq_pending_jobs{family="p4",share="prodexp1",tier="borrow"}') == 1

    # One preemption, counted once, as sacct -D shows one PREEMPTED run.
    preempted = f'shareq_preemptions_total{{family="p4",share="prodexp1",reason="reclaim"}}'
    wait_until("the preemption to be counted", lambda: m.value(preempted) == 1, SCRAPE_WAIT)
    history = c.run(["sacct", "-n", "-P", "-D", "-X", "-j", str(victim[0]), "-o", "State"])
    assert history.stdout.split().count("PREEMPTED") == 1, history.stdout
    rounds_later = time.monotonic() + 5  # five more rounds of the exporter: still one
    wait_until("five more rounds", lambda: time.monotonic() > rounds_later, 10)
    assert m.value(preempted) == 1
    assert m.value('sum(shareq_preemptions_total{reason="in_share"})') in (None, 0)

    # Waits: one observation per run that started since the exporter began counting.
    since = m.since()
    equal_soon("runs started: Prometheus's wait histogram and sacct -D",
               lambda: len(sacct_runs(c, since)),
               lambda: m.value("sum(shareq_job_wait_seconds_count)") or 0)


def test_a_warm_start_is_counted_once(monitoring, shares):
    m, c = monitoring, shares
    end_pools(c)
    warm = 'shareq_warm_starts_total{family="p4",result="warm"}'
    cold = 'shareq_warm_starts_total{family="p4",result="cold"}'
    warm_before, cold_before = m.value(warm) or 0, m.value(cold) or 0
    publish(c, "mon-a")
    make_pool(c, "alice", "mon-a")  # starts cold, leaves its node warm
    second = sbatch_out(c, "alice", "mon-a-second.out", "-p", "p4", "-N1", "--exclusive",
                        "--image=mon-a", "--keep-alive=60", script="true")
    info = c.wait_state(second, "COMPLETED")
    assert "warm start on wp-" in info["SystemComment"]
    wait_until("the warm start to be counted",
               lambda: m.value(warm) == warm_before + 1, SCRAPE_WAIT)
    wait_until("the cold start to be counted",
               lambda: m.value(cold) == cold_before + 1, SCRAPE_WAIT)
    assert "shareq-start:warm,at:" in c.sacct(second, ["AdminComment"])[-1]["AdminComment"]
    later = time.monotonic() + 5
    wait_until("five more rounds", lambda: time.monotonic() > later, 10)
    assert m.value(warm) == warm_before + 1
    end_pools(c)


def test_promtool_check_metrics_finds_nothing(monitoring):
    out = subprocess.run(["promtool", "check", "metrics"], input=monitoring.metrics_text(),
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stdout.strip() == "" and out.stderr.strip() == "", out


COUNTERS = ("shareq_preemptions_total", "shareq_job_wait_seconds_", "shareq_job_failures_total",
            "shareq_warm_starts_total", "shareq_fallbacks_total")


def runs_counted(m):
    """Runs the exporter's wait histogram has counted, from its own output (saved with it)."""
    return sum(float(line.split()[-1]) for line in m.metrics_text().splitlines()
               if line.startswith("shareq_job_wait_seconds_count"))


def test_counters_survive_an_exporter_restart(monitoring, shares):
    m, c = monitoring, shares
    # A run of its own, so that some counter exists even when this test runs alone.
    job = node_job(c, "alice", "prodexp1", script="true")
    c.wait_state(job, "COMPLETED", timeout=60)
    # Nothing may be left to count when the exporter stops, or a run it had not yet read would
    # be counted after the restart: the queue is empty (clean_queue), slurmdbd has this job's end
    # (slurmctld sends its records in order, so every earlier one's too), and the exporter has
    # counted every run that sacct -D shows, this job's included (a query that ends "now" leaves
    # out a run that started in the same second, the exporter's as sacct's).
    c.wait_sacct(job, "State", "COMPLETED", timeout=SCRAPE_WAIT)
    since = m.since()

    def all_counted():
        runs = sacct_runs(c, since)
        return str(job) in [run[0] for run in runs] and len(runs) == runs_counted(m)
    wait_until("the exporter to count every run sacct -D shows", all_counted, SCRAPE_WAIT)
    before = m.metrics_text()
    counters = [l for l in before.splitlines() if l.startswith(COUNTERS)]
    assert any(l.startswith("shareq_job_wait_seconds_count") for l in counters), before
    m.exporter.terminate()
    m.exporter.wait(timeout=30)
    m.start_exporter()
    after = m.metrics_text()
    for line in counters:
        assert line in after, f"{line!r} went missing or changed after a restart:\n{after}"


def test_up_0_and_the_error_while_slurmctld_is_down(monitoring, cluster):
    m, c = monitoring, cluster
    pid = int((c.dir / "run" / "slurmctld.pid").read_text())
    os.kill(pid, 15)
    try:
        wait_until("the exporter to say shareq_up 0",
                   lambda: "\nshareq_up 0\n" in m.metrics_text(), SCRAPE_WAIT)
        text = m.metrics_text()
        assert re.search(r'^shareq_last_error_info\{error=".*slurmctld.*"\} 1$', text, re.M), text
        assert "shareq_share_usage{" not in text  # no stale gauges
        wait_until("Prometheus to see shareq_up 0", lambda: m.value("shareq_up") == 0,
                   SCRAPE_WAIT)
        assert m.value('up{job="shareq"}') == 1  # the exporter itself still answers
    finally:
        c.restart_slurmctld()
    wait_until("the exporter to say shareq_up 1",
               lambda: "\nshareq_up 1\n" in m.metrics_text(), SCRAPE_WAIT)


def panel_exprs(dashboard):
    """Every panel target's expr, rows' panels included."""
    exprs = []
    panels = list(dashboard.get("panels", []))
    while panels:
        panel = panels.pop()
        panels.extend(panel.get("panels", []))
        for target in panel.get("targets", []):
            if target.get("expr"):
                exprs.append((panel.get("title", "?"), target["expr"]))
    return exprs


def grafana_to_promql(expr):
    """Grafana's variables, as a dashboard at its defaults would fill them."""
    expr = re.sub(r"\$__(rate_)?interval|\$\{__(rate_)?interval\}", "1m", expr)
    expr = expr.replace("$__range", "5m")
    return re.sub(r'=~?\s*"\$\{?\w+\}?"', '=~".+"', expr)


def test_every_dashboard_panel_has_data(monitoring, shares):
    m, c = monitoring, shares
    dashboards = sorted((REPO / "packaging" / "grafana").glob("*.json"))
    assert dashboards, "no packaging/grafana/*.json"
    # Something for every panel: a warm pool that stays, a failed job, a pending one.
    end_pools(c)
    publish(c, "mon-b")
    make_pool(c, "alice", "mon-b", keep_alive=300)
    failed = c.sbatch("alice", "-p", "p4", "-N1", "--share=prodexp1", script="false")
    c.wait_state(failed, "FAILED")
    later = c.sbatch("alice", "-p", "p4", "-N1", "--share=prodexp1", "--begin=now+600")
    c.wait_state(later, "PENDING")
    wait_until("the failure to be counted",
               lambda: m.value('sum(shareq_job_failures_total{cause="failed"})'), SCRAPE_WAIT)
    # The node side's image-cache metrics (ImageCacheMetricsFile): what a node wrote for the
    # pool's --image job, served by the node exporter's textfile collector.
    node_files = sorted(c.dir.glob("nodes/*/shareq.prom"), key=lambda p: p.stat().st_mtime)
    assert node_files, "no node wrote its image-cache metrics file (ImageCacheMetricsFile)"
    shutil.copy(node_files[-1], m.textfile_dir / "shareq.prom")
    missing = []
    deadline = time.monotonic() + SCRAPE_WAIT  # a rate() needs two scrapes of a new series
    for path in dashboards:
        exprs = panel_exprs(json.loads(path.read_text()))
        assert exprs, f"{path}: no panel target with an expr"
        for title, expr in exprs:
            promql = grafana_to_promql(expr)
            while not m.query(promql) and time.monotonic() < deadline:
                time.sleep(0.5)
            if m.query(promql):
                continue
            missing.append(f"{path.name}: {title!r}: {promql}")
    assert not missing, "panels without data:\n" + "\n".join(missing)
    end_pools(c)
