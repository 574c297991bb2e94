#!/usr/bin/env python3
"""Checks shareq's Grafana dashboard without Grafana (ctest grafana_dashboard): the JSON parses;
it has the datasource and family template variables and a row repeated per family; every panel
has at least one target, on the datasource variable; every metric an expression names is one
shareq-exporter exports or a node image-cache metric (shareq_image_cache_*); and
panel_queries.py leaves no variable unreplaced. Prints each problem; exits 1 on any.

    check_dashboard.py DASHBOARD.json PANEL_QUERIES.py
"""
import importlib.util
import json
import re
import sys

# What shareq-exporter exports (issue 16), histograms with their series.
EXPORTER_METRICS = {
    "shareq_up",
    "shareq_family_capacity",
    "shareq_share_quota",
    "shareq_share_borrow_limit",
    "shareq_share_lend_limit",
    "shareq_share_borrow_weight",
    "shareq_share_usage",
    "shareq_share_borrowed",
    "shareq_pending_jobs",
    "shareq_running_jobs",
    "shareq_oldest_pending_seconds",
    "shareq_preemptions_total",
    "shareq_job_wait_seconds_bucket",
    "shareq_job_wait_seconds_sum",
    "shareq_job_wait_seconds_count",
    "shareq_job_failures_total",
    "shareq_warm_pools",
    "shareq_warm_pool_nodes",
    "shareq_warm_starts_total",
}
NODE_PREFIX = "shareq_image_cache_"

# PromQL words that are neither metrics nor functions called with "(".
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "bool", "offset", "inf", "nan"}


def metric_names(expr):
    """The metric names an expression selects: identifiers that are not functions, aggregation
    keywords, label names (inside {...} or a by/on list), strings or durations."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)           # strings
    text = re.sub(r"\{[^}]*\}", "", text)                       # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)                      # ranges
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        word = match.group(0)
        following = text[match.end():].lstrip()
        if following.startswith("(") or word.lower() in KEYWORDS:
            continue
        if re.fullmatch(r"\d", text[match.start() - 1:match.start()] or "x"):
            continue  # a unit of a number (1e3) or duration
        names.add(word)
    return names


def all_panels(dashboard):
    for panel in dashboard.get("panels", []):
        yield panel
        yield from panel.get("panels", [])


def check(dashboard, panel_queries):
    problems = []
    variables = {v.get("name"): v for v in dashboard.get("templating", {}).get("list", [])}
    if variables.get("datasource", {}).get("type") != "datasource":
        problems.append("no template variable \"datasource\" of type datasource")
    family = variables.get("family", {})
    query = family.get("query", {})
    query = query.get("query", "") if isinstance(query, dict) else query
    if query.replace(" ", "") != "label_values(shareq_family_capacity,family)":
        problems.append("template variable \"family\" is not label_values(shareq_family_capacity, family)")
    if not 36 <= dashboard.get("schemaVersion", 0) <= 39:
        problems.append(f"schemaVersion {dashboard.get('schemaVersion')} is not Grafana 9/10's (36..39)")
    rows = [p for p in all_panels(dashboard) if p.get("type") == "row"]
    if not any(r.get("repeat") == "family" for r in rows):
        problems.append("no row repeated per family (\"repeat\": \"family\")")
    ids = [p.get("id") for p in all_panels(dashboard)]
    if len(ids) != len(set(ids)):
        problems.append("panel ids are not unique")
    for panel in all_panels(dashboard):
        if panel.get("type") == "row":
            continue
        title = panel.get("title", "(untitled)")
        targets = panel.get("targets", [])
        if not targets:
            problems.append(f'panel "{title}" has no target')
        for target in targets:
            expr = target.get("expr", "")
            if not expr.strip():
                problems.append(f'panel "{title}" target {target.get("refId")} has no expr')
            if target.get("datasource", panel.get("datasource", {})).get("uid") != "${datasource}":
                problems.append(f'panel "{title}" target {target.get("refId")} is not on ${{datasource}}')
            for name in sorted(metric_names(expr)):
                if name not in EXPORTER_METRICS and not name.startswith(NODE_PREFIX):
                    problems.append(f'panel "{title}": {name} is neither an exporter metric nor {NODE_PREFIX}*')
    try:
        if not panel_queries.queries(dashboard, ["p4", "p5"], "1m"):
            problems.append("panel_queries.py prints no query")
    except ValueError as error:
        problems.append(f"panel_queries.py: {error}")
    return problems


def self_test():
    """The metric-name extraction on the shapes the dashboard uses."""
    cases = {
        'histogram_quantile(0.9, sum by (share, le) (rate(shareq_job_wait_seconds_bucket{family="p4"}[5m])))':
            {"shareq_job_wait_seconds_bucket"},
        'sum by (family) (shareq_share_usage) / on (family) sum by (family) (shareq_family_capacity) < 0.5':
            {"shareq_share_usage", "shareq_family_capacity"},
        'min(shareq_up) or vector(0)': {"shareq_up"},
        'rate(foo_total{a="b{c}"}[1m]) * 1e3': {"foo_total"},
    }
    for expr, expected in cases.items():
        got = metric_names(expr)
        if got != expected:
            raise AssertionError(f"metric_names({expr!r}) = {got}, expected {expected}")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    self_test()
    with open(argv[0], encoding="utf-8") as f:
        dashboard = json.load(f)
    spec = importlib.util.spec_from_file_location("panel_queries", argv[1])
    panel_queries = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(panel_queries)
    problems = check(dashboard, panel_queries)
    for problem in problems:
        print(f"check_dashboard: {argv[0]}: {problem}")
    if not problems:
        count = sum(len(p.get("targets", [])) for p in all_panels(dashboard))
        print(f"check_dashboard: {argv[0]}: {count} targets, every metric known")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
