#!/usr/bin/env python3
"""Prints the PromQL of every panel target of shareq's Grafana dashboard, with Grafana's
variables replaced by concrete values, so that a test (or an admin without Grafana) can evaluate
each against a real Prometheus.

    panel_queries.py [--dashboard PATH] [--family F]... [--rate-interval 1m] [--json]

Each target is printed once per family given (--family, default p4) when its expression uses
$family, once otherwise. Plain output: one expression per line. --json: a list of objects
{"panel": TITLE, "row": ROW TITLE, "ref": REFID, "family": F or null, "node": true for the node
image-cache panels, "expr": EXPR}. Exits 1 naming the panel when a variable is left unreplaced.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DASHBOARD = os.path.join(HERE, "shareq-dashboard.json")
# Grafana's interval variables; $__rate_interval is at least four scrape intervals.
INTERVAL_VARIABLES = ("__rate_interval", "__interval", "__range")


def targets(dashboard):
    """(row title, panel, target) for every target, rows included, in dashboard order."""
    row = ""
    for panel in dashboard.get("panels", []):
        if panel.get("type") == "row":
            row = panel.get("title", "")
            nested = panel.get("panels", [])
        else:
            nested = [panel]
        for inner in nested:
            for target in inner.get("targets", []):
                yield row, inner, target


def substitute(expr, family, rate_interval):
    for name in INTERVAL_VARIABLES:
        expr = expr.replace("${" + name + "}", rate_interval).replace("$" + name, rate_interval)
    if family is not None:
        expr = expr.replace("${family}", family).replace("$family", family)
    return expr


def queries(dashboard, families, rate_interval):
    out = []
    for row, panel, target in targets(dashboard):
        expr = target.get("expr", "")
        uses_family = "$family" in expr or "${family}" in expr
        for family in families if uses_family else [None]:
            concrete = substitute(expr, family, rate_interval)
            left = re.search(r"\$\{?\w+", concrete)
            if left:
                raise ValueError(f'panel "{panel.get("title")}": variable {left.group(0)} '
                                 f"is not replaced in {concrete}")
            out.append({
                "panel": panel.get("title", ""),
                "row": row,
                "ref": target.get("refId", ""),
                "family": family,
                "node": "shareq_image_cache_" in concrete,
                "expr": concrete,
            })
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dashboard", default=DEFAULT_DASHBOARD)
    parser.add_argument("--family", action="append", help="a family (repeatable; default p4)")
    parser.add_argument("--rate-interval", default="1m",
                        help="what $__rate_interval and $__interval become (default 1m)")
    parser.add_argument("--json", action="store_true", help="print a JSON list with panel titles")
    args = parser.parse_args(argv)
    with open(args.dashboard, encoding="utf-8") as f:
        dashboard = json.load(f)
    try:
        found = queries(dashboard, args.family or ["p4"], args.rate_interval)
    except ValueError as error:
        print(f"panel_queries: {error}", file=sys.stderr)
        return 1
    if args.json:
        json.dump(found, sys.stdout, indent=2)
        print()
    else:
        for query in found:
            print(query["expr"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
