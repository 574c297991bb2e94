#!/bin/bash
# CPU per main scheduler pass against sdiag's wall time per pass, for one mode of
# sched_cycles.py (stock or shareq), with perf.
#
# Runs sched_cycles.py --modes MODE --seconds 150 on the bench cluster. Once the 5,000 jobs are
# pending, it takes sdiag before and after 60 s of `perf record -F 15000` on slurmctld. Prints the
# passes in that window, their wall time (sdiag) and CPU time (perf samples of the main scheduler
# thread, sched_agent), and the functions it spent most samples in.
#
# Usage: bench/cluster/main_pass_profile.sh stock|shareq [OUT_DIR]   (as root, build/ built)
set -euo pipefail
mode=${1:?usage: main_pass_profile.sh stock|shareq [OUT_DIR]}
case "$mode" in stock | shareq) ;; *) echo "mode: stock or shareq, not '$mode'" >&2; exit 2 ;; esac
out=${2:-$(mktemp -d)}
mkdir -p "$out"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
# shellcheck source=bench/cluster/pending_bench.sh
source bench/cluster/pending_bench.sh
start_pending_bench "$mode" 150 "$out"

# "cycles mean" of the main scheduler
main_stats() { sdiag | awk '/Main schedule statistics/{m=1} m&&/Total cycles:/{c=$3} m&&/Mean cycle:/{print c, $3; exit}'; }
read -r c0 m0 < <(main_stats)
perf record -F 15000 -g -p "$ctld_pid" -o "$out/cpu.data" -- sleep 60 >"$out/record.log" 2>&1
read -r c1 m1 < <(main_stats)
wait "$bench"

passes=$((c1 - c0))
wall_us=$((c1 * m1 - c0 * m0))
samples=$(perf script -i "$out/cpu.data" --comm sched_agent -F ip 2>/dev/null | awk 'BEGIN{RS=""} END{print NR}')
echo "$mode: $passes main passes in 60 s"
awk -v p="$passes" -v w="$wall_us" -v s="$samples" 'BEGIN{
  printf "  wall per pass (sdiag): %.2f ms\n  CPU per pass (perf, sched_agent): %.2f ms\n", w/p/1000, s/15000*1000/p}'
echo "  samples per pass by function (15 kHz; 15 samples = 1 ms):"
perf script -i "$out/cpu.data" --comm sched_agent -F ip,sym 2>/dev/null |
  awk 'BEGIN{RS=""} {print $2}' | sort | uniq -c | sort -rn | head -12 |
  awk -v p="$passes" '{printf "    %7.1f  %s\n", $1/p, $2}'
echo "(perf data and the benchmark's own table in $out)"
