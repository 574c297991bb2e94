#!/usr/bin/env bash
# Runs every shareq test on a Debian 12 machine, installing what it needs:
#   1. unit and shim tests (GoogleTest, CMocka) in the main build;
#   2. the same unit tests, and the fuzzers for a bounded number of runs, under ASan/UBSan (clang);
#   3. the Debian package builds and holds the plugins, the tool and the man pages;
#   4. the utilisation benchmark's shortest form (one run, stock and shareq side by side), whose
#      figures it prints (not asserts): a change that puts shareq behind stock shows the day it
#      lands (docs/benchmarks.md has the full comparison); and the same run replayed in
#      `shareq sim` (bench/cluster/sim_crosscheck.py), its figures beside the cluster's; and the
#      benchmark's job lists replayed in `shareq sim` alone, shareq against its model of the
#      stock plugins, 200 runs at time scales 1, 3 and 5, as configured and with production's
#      BorrowWeight=10, and with that, ReclaimAfter=64 and BorrowOrder=largest (seconds, no
#      machine noise);
#   5. cluster tests against a real Slurm cluster (munge, MariaDB, slurmdbd, slurmctld, 8 slurmd);
#   5b. fault injection (tests/faults, stage "faults"): a short seeded run on a fresh cluster (one
#      round of each fault; its seed printed, SHAREQ_FAULT_SEED repeats it; docs/reliability.md);
#   6. the other Slurm releases (SHAREQ_RELEASES), each in its Debian root (scripts/slurm-root.sh):
#      shareq built against that release's source and its unit tests, then the cluster tests
#      marked every_release against that release's daemons;
#   7. style: clang-format and clang-tidy over the sources (scripts/check-style.sh); a file that is
#      not formatted, or a clang-tidy finding not in scripts/clang-tidy-baseline.txt, fails it;
#   8. the demonstration (scripts/demo.sh, the README's other command) on the same build, after
#      the fault run: it fails when what it shows (borrowing, reclaim, a warm start) does not
#      happen.
# With stage 5, the sanitized build and its tests (2), the other releases' roots and builds (6)
# and the style check (7) run beside the 22.05 cluster tests at nice 19 (their output in
# build/sanitize.log, build/releases-build.log and build/style.log, printed when they are waited
# for, after the fault run): the cluster tests mostly wait on daemons.
# Needs root (apt-get, daemons, test users, debootstrap). Environment:
#   SHAREQ_TEST_STAGES    which stages to run (default "unit sanitize package bench cluster
#                         faults demo releases style")
#   SHAREQ_FAULT_SEED     the fault-injection run's seed (default 21, so that CI is repeatable;
#                         any other seed explores other fault moments)
#   SHAREQ_FAULT_ROUNDS   rounds of each fault in that run (default 1)
#   SHAREQ_FAULT_DB_DOWN_S  how long slurmdbd and MariaDB stay down in that run (default 30; the
#                         suite's own default, for the soak, is 60)
#   SHAREQ_CLUSTER_RUNS   how many times to run the cluster tests in a row (default 1)
#   SHAREQ_SLURM_VERSION  22.05 (default: this Debian 12 machine's Slurm), 24.11 or 26.05. Another
#                         release than 22.05 is tested alone, in its Debian root: its build, unit
#                         tests and the whole cluster suite against its daemons.
#   SHAREQ_RELEASES       the other releases a 22.05 run tests in stage "releases" (default 24.11)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
stages=${SHAREQ_TEST_STAGES:-unit sanitize package bench cluster faults demo releases style}
runs=${SHAREQ_CLUSTER_RUNS:-1}
release=${SHAREQ_SLURM_VERSION:-22.05}
jobs=$(nproc)

step() { printf '\n=== %s\n' "$*"; }

case "$release" in
  22.05 | 24.11 | 26.05) ;;
  *)
    echo "test.sh: SHAREQ_SLURM_VERSION=$release is not a supported release; allowed: 22.05, 24.11, 26.05" >&2
    exit 2
    ;;
esac

# prepare_release RELEASE: RELEASE's Debian root (made or reused) and shareq built there against
# the release's source, with its unit tests (build-RELEASE/).
prepare_release() {
  local v=$1
  command -v debootstrap >/dev/null || apt-get install -y -q debootstrap >/dev/null
  step "Slurm $v: its Debian root (scripts/slurm-root.sh $v)"
  scripts/slurm-root.sh "$v" setup >/dev/null
  step "Slurm $v: build and unit tests (build-$v/)"
  SHAREQ_JOBS=$jobs scripts/slurm-root.sh "$v" build "build-$v"
}

# release_cluster_tests RELEASE [PYTEST_ARGS...]: the cluster tests against the release's
# daemons, started in its root, on their own folder and ports.
release_cluster_tests() {
  local v=$1
  shift
  step "Slurm $v: cluster tests $*"
  scripts/slurm-root.sh "$v" run -- bash -c "cd '$repo' && export SHAREQ_BUILD_DIR='$repo/build-$v' \
    SHAREQ_CLUSTER_DIR=/var/tmp/shareq-cluster-$v SHAREQ_PORT_BASE=17800 && \
    tests/cluster/cluster down >/dev/null 2>&1; \
    python3 -m pytest -p no:cacheprovider -v $* tests/cluster"
}

test_release() {
  prepare_release "$1"
  release_cluster_tests "$@"
}

# Work that needs no cluster runs beside the 22.05 cluster tests, at the lowest CPU priority: the
# tests mostly wait on daemons, and nice 19 leaves the daemons the CPU whenever they want it.
# background NAME COMMAND...: starts COMMAND (a function too), its output in build/NAME.log;
# finish NAME: waits for it, prints its output, and fails as it failed.
declare -A background_pids=()
background() {
  local name=$1
  shift
  mkdir -p build
  (
    renice -n 19 "$BASHPID" >/dev/null
    "$@"
  ) >"build/$name.log" 2>&1 &
  background_pids[$name]=$!
}
finish() {
  local name=$1 rc=0
  [ -n "${background_pids[$name]:-}" ] || return 1
  wait "${background_pids[$name]}" || rc=$?
  unset "background_pids[$name]"
  cat "build/$name.log"
  return "$rc"
}
kill_tree() {
  local child
  for child in $(pgrep -P "$1"); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
stop_background() {
  local pid
  for pid in "${background_pids[@]}"; do kill_tree "$pid"; done
}
prepare_releases() {
  local v
  for v in ${SHAREQ_RELEASES-24.11}; do prepare_release "$v"; done
}

if [ "$release" != 22.05 ]; then
  test_release "$release"
  step "all tests passed (Slurm $release)"
  exit 0
fi

step "installing dependencies"
scripts/install-deps.sh

if [[ " $stages " == *" unit "* || " $stages " == *" cluster "* || " $stages " == *" bench "* ||
  " $stages " == *" faults "* || " $stages " == *" demo "* ]]; then
  step "building (build/)"
  cmake -S . -B build -DSHAREQ_TESTS=ON -DSHAREQ_PLUGINS=ON >/dev/null
  cmake --build build -j"$jobs"
fi

if [[ " $stages " == *" unit "* ]]; then
  step "unit and shim tests"
  ctest --test-dir build --output-on-failure -j"$jobs"
fi

sanitize() {
  step "ASan/UBSan unit tests and fuzzers (build-sanitize/, clang)"
  CC=clang CXX=clang++ cmake -S . -B build-sanitize -DSHAREQ_SANITIZE=ON -DSHAREQ_FUZZ=ON \
    -DSHAREQ_TESTS=ON -DSHAREQ_PLUGINS=ON >/dev/null
  cmake --build build-sanitize -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
}
# With the cluster stage, the sanitized build runs beside the cluster tests (below).
if [[ " $stages " == *" sanitize "* && " $stages " != *" cluster "* ]]; then
  sanitize
fi

if [[ " $stages " == *" package "* ]]; then
  step "Debian package (build/deb/)"
  mkdir -p build && packaging/build-deb.sh >build/deb.log 2>&1 || { tail -40 build/deb.log; exit 1; }
  contents=$(dpkg-deb -c build/deb/shareq_*_amd64.deb)
  for f in usr/bin/shareq usr/share/man/man5/shareq.conf.5.gz \
    usr/lib/x86_64-linux-gnu/slurm-wlm/select_shareq_cons_tres.so \
    usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_shareq.so \
    usr/lib/x86_64-linux-gnu/slurm-wlm/spank_shareq.so \
    usr/lib/x86_64-linux-gnu/slurm-wlm/shareq_node.so \
    usr/lib/x86_64-linux-gnu/slurm-wlm/priority_shareq.so \
    usr/lib/x86_64-linux-gnu/slurm-wlm/preempt_shareq.so \
    usr/lib/x86_64-linux-gnu/slurm-wlm/libshareq_ctld.so \
    usr/share/shareq/prometheus/shareq-rules.yml usr/share/shareq/grafana/shareq-dashboard.json; do
    grep -q "\./$f\$" <<<"$contents" || { echo "package lacks $f"; exit 1; }
  done
  echo "package: $(ls build/deb/shareq_*_amd64.deb) holds the plugins, the tool, the man pages, the alerting rules and the dashboard"
fi

if [[ " $stages " == *" bench "* ]]; then
  step "utilisation benchmark, shortest form: stock and shareq at once (figures, not assertions)"
  rm -rf build/bench-dump
  bench/cluster/utilisation.py --runs 1 --parallel --dump-dir build/bench-dump
  step "the same run replayed in shareq sim, beside the cluster's figures (not assertions)"
  bench/cluster/sim_crosscheck.py build/bench-dump --tool build/tools/shareq
  step "the benchmark's job lists in shareq sim, shareq against the stock model: 200 runs at each time scale (figures, not assertions)"
  for time_scale in 1 3 5; do
    bench/cluster/utilisation.py --simulate --time-scale "$time_scale"
  done
  step "the same with production's overflow first (BorrowWeight=10, docs/benchmarks.md; figures, not assertions)"
  for time_scale in 1 3 5; do
    bench/cluster/utilisation.py --simulate --time-scale "$time_scale" --borrow-weights production=10
  done
  step "the same with ReclaimAfter=64 and the largest borrowers first (BorrowOrder=largest, docs/benchmarks.md; figures, not assertions)"
  for time_scale in 1 3 5; do
    bench/cluster/utilisation.py --simulate --time-scale "$time_scale" --borrow-weights production=10 \
      --reclaim-after 64 --conf-line BorrowOrder=largest
  done
fi

in_background=0
if [[ " $stages " == *" cluster "* ]]; then
  in_background=1
  trap 'stop_background; tests/cluster/cluster down >/dev/null 2>&1 || true' EXIT
  if [[ " $stages " == *" releases "* ]]; then
    background releases-build prepare_releases
    echo "(the other releases' roots and builds run beside the cluster tests: build/releases-build.log)"
  fi
  if [[ " $stages " == *" style "* ]]; then
    background style scripts/check-style.sh
    echo "(style runs beside the cluster tests: build/style.log)"
  fi
  if [[ " $stages " == *" sanitize "* ]]; then
    background sanitize sanitize
    echo "(the ASan/UBSan build and its tests run beside the cluster tests: build/sanitize.log)"
  fi

  export SHAREQ_BUILD_DIR=$repo/build
  export SHAREQ_CLUSTER_DIR=${SHAREQ_CLUSTER_DIR:-$repo/build/cluster}
  tests/cluster/cluster down >/dev/null 2>&1 || true
  for run in $(seq 1 "$runs"); do
    step "cluster tests (run $run of $runs)"
    tests/cluster/cluster up >/dev/null
    /usr/bin/python3 -m pytest -p no:cacheprovider -v tests/cluster
    tests/cluster/cluster down
  done
fi

if [[ " $stages " == *" faults "* ]]; then
  trap 'stop_background; tests/cluster/cluster down >/dev/null 2>&1 || true' EXIT
  export SHAREQ_BUILD_DIR=$repo/build
  export SHAREQ_CLUSTER_DIR=${SHAREQ_CLUSTER_DIR:-$repo/build/cluster}
  fault_seed=${SHAREQ_FAULT_SEED:-21}
  step "fault injection, short run (seed $fault_seed: SHAREQ_FAULT_SEED=$fault_seed repeats it)"
  tests/cluster/cluster down >/dev/null 2>&1 || true
  tests/cluster/cluster up >/dev/null
  SHAREQ_FAULT_SEED=$fault_seed SHAREQ_FAULT_ROUNDS=${SHAREQ_FAULT_ROUNDS:-1} \
    SHAREQ_FAULT_DB_DOWN_S=${SHAREQ_FAULT_DB_DOWN_S:-30} \
    /usr/bin/python3 -m pytest -p no:cacheprovider -v -s tests/faults
  tests/cluster/cluster down
fi

if [[ " $stages " == *" demo "* ]]; then
  trap 'stop_background; tests/cluster/cluster down >/dev/null 2>&1 || true' EXIT
  step "the demonstration (scripts/demo.sh) on the same build"
  tests/cluster/cluster down >/dev/null 2>&1 || true
  scripts/demo.sh
  tests/cluster/cluster down
fi

if [[ " $stages " == *" releases "* ]]; then
  if [ "$in_background" = 1 ]; then
    finish releases-build
    for other in ${SHAREQ_RELEASES-24.11}; do
      release_cluster_tests "$other" -m every_release
    done
  else
    for other in ${SHAREQ_RELEASES-24.11}; do
      test_release "$other" -m every_release
    done
  fi
fi

if [[ " $stages " == *" sanitize "* && "$in_background" = 1 ]]; then
  step "ASan/UBSan unit tests and fuzzers (ran beside the cluster tests)"
  finish sanitize
fi

if [[ " $stages " == *" style "* ]]; then
  step "style: clang-format and clang-tidy (build-style/, configured only)"
  if [ "$in_background" = 1 ]; then finish style; else scripts/check-style.sh; fi
fi
step "all tests passed"
