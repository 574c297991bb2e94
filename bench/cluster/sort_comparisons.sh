#!/bin/bash
# How many comparisons Slurm's queue sort makes per main scheduler pass, for one mode of
# sched_cycles.py (stock or shareq), counted with uprobes on slurmctld.
#
# Every pass builds its queue from job_list (build_job_queue) and sorts it with glibc's merge sort
# (comparator sort_job_queue2), which needs about half the comparisons when the queue is already
# in order. Runs sched_cycles.py --modes MODE --seconds 100 on the bench cluster; once the 5,000
# jobs are pending, counts both functions' calls in the main scheduler thread (sched_agent) for
# 30 s. Prints the comparisons per pass and how many distinct priorities the pending jobs have.
#
# Usage: bench/cluster/sort_comparisons.sh stock|shareq [OUT_DIR]   (as root, build/ built;
#        perf with uprobe support)
set -euo pipefail
mode=${1:?usage: sort_comparisons.sh stock|shareq [OUT_DIR]}
case "$mode" in stock | shareq) ;; *) echo "mode: stock or shareq, not '$mode'" >&2; exit 2 ;; esac
out=${2:-$(mktemp -d)}
mkdir -p "$out"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
ctld=$(command -v slurmctld)
for fn in build_job_queue sort_job_queue2; do
  perf probe -q -d "probe_slurmctld:$fn" 2>/dev/null || true
  perf probe -q -x "$ctld" "$fn" || { echo "perf cannot place a uprobe on $fn in $ctld" >&2; exit 1; }
done
trap 'perf probe -q -d "probe_slurmctld:*" 2>/dev/null || true' EXIT
# shellcheck source=bench/cluster/pending_bench.sh
source bench/cluster/pending_bench.sh
start_pending_bench "$mode" 100 "$out"
perf record -q -e probe_slurmctld:build_job_queue -e probe_slurmctld:sort_job_queue2 \
  -p "$ctld_pid" -o "$out/probes.data" -- sleep 30 >"$out/record.log" 2>&1
priorities=$(squeue -h -t PD -o %Q | sort -u | wc -l)
wait "$bench"
perf script -i "$out/probes.data" --comm sched_agent -F event 2>/dev/null |
  awk -v m="$mode" -v p="$priorities" '
    /build_job_queue/ {passes++} /sort_job_queue2/ {cmp++}
    END {
      if (passes == 0) { print m ": no main pass in 30 s"; exit 1 }
      printf "%s: %d main passes in 30 s, %d comparisons per pass, %d distinct priorities among the pending jobs\n", m, passes, cmp / passes, p
    }'
echo "(perf data and the benchmark's own table in $out)"
