#!/usr/bin/env bash
# The long fuzzing run (not CI): builds the libFuzzer targets in build-fuzz/, runs each for N
# executions (default 10,000,000) from its committed corpus, merges what it found into
# tests/fuzz/corpus/NAME (-merge=1: only inputs that add coverage are kept), and prints per
# fuzzer: executions, exec/s, coverage (cov/ft of libFuzzer's last line), corpus files, crashes.
# The fuzzers run under `nice -n 19`. Crash, leak and timeout inputs land in
# build-fuzz/fuzz-long/NAME/; the run fails when there is any. docs/reliability.md has the figures.
#
#   scripts/fuzz-long.sh [--runs N] [--jobs J] [--max-time SECONDS] [--only NAME[,NAME...]]
#
# --jobs: fuzzers run at once (default: the number of CPUs). --max-time: stop each fuzzer after
# this many seconds even short of N runs (0, the default: no limit). --only: these fuzzers, in
# this order (names without fuzz_, e.g. http_response). The summary is also written, as a
# Markdown table, to build-fuzz/fuzz-long/summary.md.
set -euo pipefail

runs=10000000
jobs=$(nproc)
max_time=0
only=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --max-time) max_time="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz-long.sh: unknown argument \"$1\"; allowed: --runs N, --jobs J, --max-time SECONDS, --only NAMES" >&2
       exit 2 ;;
  esac
done
for value in "$runs" "$jobs" "$max_time"; do
  if ! [[ "$value" =~ ^[0-9]+$ ]]; then
    echo "fuzz-long.sh: \"$value\" is not a whole number (--runs, --jobs and --max-time take one)" >&2
    exit 2
  fi
done
if [[ "$jobs" -lt 1 ]]; then echo "fuzz-long.sh: --jobs must be at least 1" >&2; exit 2; fi

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
work="$build/fuzz-long"
cd "$root"

if [[ -f /etc/profile.d/ccache-shareq.sh ]]; then . /etc/profile.d/ccache-shareq.sh; fi
export CCACHE_BASEDIR="$root"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  launcher=()
  if command -v ccache > /dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  CC=clang CXX=clang++ cmake -S . -B "$build" -DSHAREQ_SANITIZE=ON -DSHAREQ_FUZZ=ON \
    -DSHAREQ_TESTS=ON "${launcher[@]}" > /dev/null
fi

all_names=()
for source in tests/fuzz/fuzz_*.cpp; do
  name=$(basename "$source" .cpp)
  all_names+=("${name#fuzz_}")
done
names=("${all_names[@]}")
if [[ -n "$only" ]]; then
  # In the order given: slow fuzzers last lets the fast ones finish first.
  IFS=, read -r -a names <<< "$only"
  for name in "${names[@]}"; do
    if [[ " ${all_names[*]} " != *" $name "* ]]; then
      echo "fuzz-long.sh: --only: no fuzzer \"$name\"; allowed: ${all_names[*]}" >&2
      exit 2
    fi
  done
fi
cmake --build "$build" -j"$(nproc)" --target "${names[@]/#/fuzz_}"

# run_one NAME (called through xargs, hence exported): N executions (or --max-time) into $work/NAME/found, then the merge.
# shellcheck disable=SC2317
run_one() {
  local name="$1" dir="$work/$1"
  local fuzzer="$build/tests/fuzz/fuzz_$name" seeds="$root/tests/fuzz/corpus/$name"
  rm -rf "$dir"
  mkdir -p "$dir/found" "$seeds"
  local status=0
  nice -n 19 "$fuzzer" -runs="$runs" -max_total_time="$max_time" -max_len=4096 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$dir/" "$dir/found" "$seeds" > "$dir/log" 2>&1 ||
    status=$?
  echo "$status" > "$dir/status"
  # Keep the committed inputs (some are hand-written examples) and add each found input that
  # adds coverage; -merge=1 drops the rest.
  nice -n 19 "$fuzzer" -merge=1 -max_len=4096 -timeout=10 "$seeds" "$dir/found" \
    > "$dir/merge.log" 2>&1 || echo "merge failed: see $dir/merge.log" >> "$dir/log"
}
export -f run_one
export runs max_time build work root

mkdir -p "$work"
printf '%s\n' "${names[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'

# summary_row NAME: one Markdown row from the fuzzer's log.
summary_row() {
  local name="$1" dir="$work/$1" log="$work/$1/log"
  local execs rate last cov ft files crashes
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  files=$(find "$root/tests/fuzz/corpus/$name" -type f | wc -l)
  crashes=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  echo "| $name | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | $files | $crashes |"
}

{
  echo "| fuzzer | executions | exec/s | cov | ft | corpus files | crashes |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for name in "${names[@]}"; do summary_row "$name"; done
} > "$work/summary.md"
cat "$work/summary.md"

failed=0
for name in "${names[@]}"; do
  if [[ "$(cat "$work/$name/status")" != 0 ]]; then
    echo "fuzz_$name failed (exit $(cat "$work/$name/status")): see $work/$name/log and its crash-*/leak-*/timeout-* inputs" >&2
    failed=1
  fi
done
exit "$failed"
