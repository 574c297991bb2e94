#!/usr/bin/env bash
# Runs every shareq test on a Debian 12 machine, installing what it needs:
#   1. unit and shim tests (GoogleTest, CMocka) in the main build;
#   2. the same unit tests, and the fuzzers for a bounded number of runs, under ASan/UBSan (clang);
#   3. cluster tests against a real Slurm cluster (munge, MariaDB, slurmdbd, slurmctld, 8 slurmd).
# Needs root (apt-get, daemons, test users). Environment:
#   SHAREQ_TEST_STAGES   which stages to run (default "unit sanitize cluster")
#   SHAREQ_CLUSTER_RUNS  how many times to run the cluster tests in a row (default 1)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
stages=${SHAREQ_TEST_STAGES:-unit sanitize cluster}
runs=${SHAREQ_CLUSTER_RUNS:-1}
jobs=$(nproc)

step() { printf '\n=== %s\n' "$*"; }

step "installing dependencies"
scripts/install-deps.sh

if [[ " $stages " == *" unit "* || " $stages " == *" cluster "* ]]; then
  step "building (build/)"
  cmake -S . -B build -DSHAREQ_TESTS=ON -DSHAREQ_PLUGINS=ON >/dev/null
  cmake --build build -j"$jobs"
fi

if [[ " $stages " == *" unit "* ]]; then
  step "unit and shim tests"
  ctest --test-dir build --output-on-failure -j"$jobs"
fi

if [[ " $stages " == *" sanitize "* ]]; then
  step "ASan/UBSan unit tests and fuzzers (build-sanitize/, clang)"
  CC=clang CXX=clang++ cmake -S . -B build-sanitize -DSHAREQ_SANITIZE=ON -DSHAREQ_FUZZ=ON \
    -DSHAREQ_TESTS=ON -DSHAREQ_PLUGINS=ON >/dev/null
  cmake --build build-sanitize -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
fi

if [[ " $stages " == *" cluster "* ]]; then
  export SHAREQ_BUILD_DIR=$repo/build
  export SHAREQ_CLUSTER_DIR=${SHAREQ_CLUSTER_DIR:-$repo/build/cluster}
  tests/cluster/cluster down >/dev/null 2>&1 || true
  trap 'tests/cluster/cluster down >/dev/null 2>&1 || true' EXIT
  for run in $(seq 1 "$runs"); do
    step "cluster tests (run $run of $runs)"
    tests/cluster/cluster up >/dev/null
    /usr/bin/python3 -m pytest -p no:cacheprovider -v tests/cluster
    tests/cluster/cluster down
  done
fi
step "all tests passed"
