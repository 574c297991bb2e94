#!/usr/bin/env bash
# Runs a chosen subset of Slurm's own regression suite (testsuite/expect of the installed Slurm's
# source) against the local test cluster (tests/cluster/cluster) twice: once with shareq's plugins
# and once with Slurm's stock plugins (SHAREQ_STOCK=1), and prints the tests whose outcome differs.
# docs/compatibility.md says which tests and why, and the last result. Needs root (the cluster,
# and the tests create accounts with sacctmgr); installs `expect` with apt-get when missing.
# It is not part of scripts/test.sh: the default subset takes about 70 minutes (35 with the two
# modes on two clusters at once, see --report).
#
# Usage: scripts/slurm-testsuite.sh [--modes shareq,stock] [--timeout SECONDS] [TEST...]
#        scripts/slurm-testsuite.sh --list | --report [--modes ...]
#   TEST...          tests to run, e.g. test12.3 test6.7 (default: the subset below)
#   --modes M[,M]    which runs, in that order: shareq, stock (default: shareq,stock)
#   --timeout S      per-test limit in seconds (default 300); a test past it counts as timeout
#   --list           print the default subset and exit
#   --report         run nothing: print the table and the differences of the last runs' results
#                    (SHAREQ_TS_OUT/MODE/times.tsv), e.g. after the two modes ran at once as two
#                    commands with --modes shareq and --modes stock, each on its own cluster
#                    (SHAREQ_CLUSTER_DIR, SHAREQ_PORT_BASE) and the same SHAREQ_TS_OUT
#
# Environment:
#   SHAREQ_BUILD_DIR    build tree with shareq's plugins (default <repo>/build), as for the cluster
#   SHAREQ_CLUSTER_DIR  the cluster's private directory (default <repo>/build/cluster); a cluster
#                       running there is stopped first and every mode starts a fresh one
#   SHAREQ_PORT_BASE    the cluster's first TCP port (default 16800; it takes 32)
#   SHAREQ_TS_TESTS     tests to run, space-separated, when none are given as arguments
#   SHAREQ_TS_MODES     like --modes; SHAREQ_TS_TIMEOUT like --timeout
#   SHAREQ_TS_ACCOUNT   root's default account in both modes (default prodexp2, the share of
#                       slurm-conf/shareq.conf in both partitions): the tests run as root and
#                       submit without --account; under root's own account (no share) their
#                       jobs would only borrow idle capacity (UnlistedAccounts=borrow)
#   SHAREQ_TS_OUT       where results go (default <SHAREQ_BUILD_DIR>/slurm-testsuite):
#                       results.tsv (test, one outcome per mode, differs), MODE/TEST.log per test,
#                       MODE/slurmctld.log, MODE/times.tsv
#   SLURM_SRC_DIR       Slurm's source tree (default: the one the build configured, from
#                       CMakeCache.txt, else scripts/fetch-slurm-src.sh <repo>/.cache/slurm-src)
#
# Outcomes: pass (exit 0), skip (exit 255: the suite's skip, -1, e.g. a feature the cluster lacks),
# fail (any other exit), timeout (past --timeout), missing (no such test in this Slurm).
# Exit status: 0 when every mode ran (differences are printed, not failures), 1 when something
# could not run (a cluster did not start, no source tree), 2 for a usage error.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cluster=$repo/tests/cluster/cluster

# The default subset, by area (docs/compatibility.md says why each).
SUBSET=(
  # submission: sbatch
  test17.5 test17.6 test17.8 test17.13 test17.18 test17.19 test17.21 test17.23 test17.38
  test17.42 test17.44
  # submission: salloc
  test15.4 test15.5 test15.10 test15.11 test15.14 test15.22 test15.25
  # submission: srun
  test1.2 test1.7 test1.27 test1.33 test1.35 test1.40 test1.43 test1.58 test1.62 test1.82
  # srun steps
  test1.12 test1.14 test1.61 test2.13
  # job arrays
  test28.1 test28.2 test28.3 test28.5 test28.7 test28.9 test28.10 test28.13
  # requeue
  test2.21 test2.22 test2.23 test3.8
  # preemption
  test34.1 test34.2
  # reservations
  test3.11 test3.14
  # accounting: sacct, sshare, sprio, sacctmgr
  test12.2 test12.3 test12.4 test12.7 test12.9 test12.10 test24.2 test24.5 test21.10 test21.15
  test21.20 test21.21 test21.30
  # scontrol reconfigure
  test3.1
  # squeue
  test5.4 test5.6 test5.9 test5.10
  # scancel
  test6.4 test6.7 test6.8 test6.9 test6.10 test6.14 test6.16
  # scontrol update and show
  test3.4 test3.13 test2.8 test2.26
  # gres/gpu
  test39.1
)

die() {
  echo "slurm-testsuite: $*" >&2
  exit 1
}
usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

modes=${SHAREQ_TS_MODES:-shareq,stock}
timeout_s=${SHAREQ_TS_TIMEOUT:-300}
account=${SHAREQ_TS_ACCOUNT:-prodexp2}
tests=()
report_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --modes)
      [ $# -ge 2 ] || usage
      modes=$2
      shift 2
      ;;
    --timeout)
      [ $# -ge 2 ] || usage
      timeout_s=$2
      shift 2
      ;;
    --report)
      report_only=1
      shift
      ;;
    --list)
      printf '%s\n' "${SUBSET[@]}"
      exit 0
      ;;
    -h | --help) usage ;;
    -*)
      echo "slurm-testsuite: unknown option $1" >&2
      usage
      ;;
    *)
      tests+=("$1")
      shift
      ;;
  esac
done
if [ ${#tests[@]} -eq 0 ]; then
  if [ -n "${SHAREQ_TS_TESTS:-}" ]; then
    read -r -a tests <<<"$SHAREQ_TS_TESTS"
  else
    tests=("${SUBSET[@]}")
  fi
fi
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || { echo "slurm-testsuite: --timeout $timeout_s is not a number of seconds" >&2; exit 2; }
IFS=, read -r -a mode_list <<<"$modes"
[ ${#mode_list[@]} -gt 0 ] || { echo "slurm-testsuite: --modes is empty" >&2; exit 2; }
for m in "${mode_list[@]}"; do
  case "$m" in
    shareq | stock) ;;
    *) echo "slurm-testsuite: mode '$m' is not shareq or stock" >&2; exit 2 ;;
  esac
done
for t in "${tests[@]}"; do
  [[ "$t" =~ ^test[0-9]+\.[0-9]+$ ]] || { echo "slurm-testsuite: '$t' is not a test name like test12.3" >&2; exit 2; }
done

export SHAREQ_BUILD_DIR=${SHAREQ_BUILD_DIR:-$repo/build}
out=${SHAREQ_TS_OUT:-$SHAREQ_BUILD_DIR/slurm-testsuite}
if [ "$report_only" = 1 ]; then
  for m in "${mode_list[@]}"; do
    [ -s "$out/$m/times.tsv" ] || die "--report: no results of mode $m in $out/$m/times.tsv"
  done
  mapfile -t tests < <(cut -f1 "$out/${mode_list[0]}/times.tsv")
fi

[ "$report_only" = 1 ] || [ "$(id -u)" -eq 0 ] || die "must run as root (the cluster starts daemons; the tests run sacctmgr as an administrator)"

export SHAREQ_CLUSTER_DIR=${SHAREQ_CLUSTER_DIR:-$repo/build/cluster}
export SHAREQ_PORT_BASE=${SHAREQ_PORT_BASE:-16800}

# What the tests need, and the tree they come from.
prepare() {
  # expect (Tcl), and a few commands some tests call.
  local missing_pkgs=() installed
  command -v expect >/dev/null || missing_pkgs+=(expect)
  command -v bc >/dev/null || missing_pkgs+=(bc)
  command -v timeout >/dev/null || missing_pkgs+=(coreutils)
  if [ ${#missing_pkgs[@]} -gt 0 ]; then
    echo "slurm-testsuite: installing ${missing_pkgs[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing_pkgs[@]}" >&2 ||
      die "apt-get install ${missing_pkgs[*]} failed"
  fi

  # Slurm's source tree, for its testsuite/expect.
  src=${SLURM_SRC_DIR:-}
  if [ -z "$src" ] && [ -f "$SHAREQ_BUILD_DIR/CMakeCache.txt" ]; then
    src=$(sed -n 's/^SLURM_SRC_DIR:PATH=//p' "$SHAREQ_BUILD_DIR/CMakeCache.txt")
  fi
  if [ -z "$src" ]; then
    src=$("$repo/scripts/fetch-slurm-src.sh" "$repo/.cache/slurm-src") ||
      die "cannot fetch Slurm's source (scripts/fetch-slurm-src.sh); set SLURM_SRC_DIR"
  fi
  [ -f "$src/testsuite/expect/globals" ] ||
    die "SLURM_SRC_DIR=$src has no testsuite/expect/globals (is it Slurm's source tree?)"
  installed=$(/usr/sbin/slurmctld -V 2>/dev/null | awk '{print $2}')
  grep -q "\"${installed:-?}\"" "$src/config.h" 2>/dev/null ||
    echo "slurm-testsuite: warning: $src may not be the source of the installed Slurm ${installed:-?}" >&2
  mkdir -p "$out"
}

src=""
cluster_up=0
cleanup() {
  if [ "$cluster_up" = 1 ]; then
    "$cluster" down >/dev/null 2>&1 || echo "slurm-testsuite: 'cluster down' failed; run it by hand" >&2
  fi
}
trap cleanup EXIT

# Cancels what a failed or timed-out test left behind, so that the next test gets the nodes.
tidy_cluster() {
  scancel --user=root >/dev/null 2>&1 || true
  local r
  for r in $(scontrol -o show reservation 2>/dev/null | sed -n 's/^ReservationName=\([^ ]*\).*/\1/p'); do
    scontrol delete reservation="$r" >/dev/null 2>&1 || true
  done
  local i=0
  while [ -n "$(squeue -h -u root -o %i 2>/dev/null)" ] && [ $i -lt 30 ]; do
    sleep 1
    i=$((i + 1))
  done
}

# Waits (at most 60 s, then cancels what is left and waits 30 s more) until no job is left and
# no node is allocated or completing: a test that starts while the last one's nodes are still
# completing skips at once ("requires there to be at least one idle node").
wait_cluster_idle() {
  local i
  for i in $(seq 90); do
    if [ -z "$(squeue -h -o %i 2>/dev/null)" ] &&
      ! sinfo -h -N -o %t 2>/dev/null | grep -qE '^(alloc|mix|comp)'; then
      return 0
    fi
    [ "$i" = 60 ] && tidy_cluster
    sleep 1
  done
  echo "slurm-testsuite: warning: the cluster is still busy before the next test:" >&2
  sinfo -N >&2 || true
}

run_mode() {
  local mode=$1 stock=0
  [ "$mode" = stock ] && stock=1
  local dir=$out/$mode work=$out/$mode/work
  rm -rf "$dir"
  mkdir -p "$dir"
  "$cluster" down >/dev/null 2>&1 || true
  echo "slurm-testsuite: [$mode] starting the cluster in $SHAREQ_CLUSTER_DIR (port base $SHAREQ_PORT_BASE)" >&2
  local env_lines
  cluster_up=1
  if ! env_lines=$(SHAREQ_STOCK=$stock "$cluster" up 2>"$dir/cluster-up.log"); then
    tail -20 "$dir/cluster-up.log" >&2
    die "[$mode] the cluster did not start (log: $dir/cluster-up.log)"
  fi
  eval "$env_lines"
  sacctmgr -i modify user root set DefaultAccount="$account" >/dev/null ||
    die "[$mode] cannot make $account root's default account (sacctmgr modify user root)"

  # A private copy of testsuite/expect: the tests write their scratch files beside themselves.
  cp -a "$src/testsuite/expect" "$work"
  cat >"$work/testsuite.conf" <<EOF
SlurmSourceDir=$src
SlurmBuildDir=$src
SlurmInstallDir=/usr
SlurmConfigDir=$(dirname "$SLURM_CONF")
EOF
  cat >"$work/globals.local" <<EOF
# Written by scripts/slurm-testsuite.sh for the cluster in $SHAREQ_CLUSTER_DIR ($mode).
set slurm_dir "/usr"
set bin_dir "/usr/bin"
set sbin_dir "/usr/sbin"
set testsuite_cleanup_on_failure true
EOF
  export SLURM_TESTSUITE_CONF=$work/testsuite.conf SLURM_LOCAL_GLOBALS_FILE=$work/globals.local

  local t rc outcome start secs n=0
  : >"$dir/times.tsv"
  for t in "${tests[@]}"; do
    n=$((n + 1))
    if [ ! -f "$work/$t" ]; then
      outcome=missing
      secs=0
    else
      wait_cluster_idle
      start=$(date +%s)
      set +e
      (cd "$work" && timeout -k 15 "$timeout_s" expect -f "./$t" </dev/null >"$dir/$t.log" 2>&1)
      rc=$?
      set -e
      secs=$(($(date +%s) - start))
      case $rc in
        0) outcome=pass ;;
        255) outcome=skip ;;
        124 | 137) outcome=timeout ;;
        *) outcome=fail ;;
      esac
      [ "$outcome" = pass ] || [ "$outcome" = skip ] || tidy_cluster
    fi
    printf '%s\t%s\t%s\n' "$t" "$outcome" "$secs" >>"$dir/times.tsv"
    printf 'slurm-testsuite: [%s] %d/%d %-10s %-7s %4ds\n' "$mode" "$n" "${#tests[@]}" "$t" "$outcome" "$secs" >&2
  done
  cp "$SHAREQ_CLUSTER_DIR/log/slurmctld.log" "$dir/slurmctld.log" 2>/dev/null || true
  "$cluster" down >/dev/null 2>&1 || echo "slurm-testsuite: [$mode] 'cluster down' failed" >&2
  cluster_up=0
}


total_start=$(date +%s)
if [ "$report_only" = 0 ]; then
  prepare
  for m in "${mode_list[@]}"; do
    mode_start=$(date +%s)
    run_mode "$m"
    echo "slurm-testsuite: [$m] done in $(($(date +%s) - mode_start)) s" >&2
  done
fi

# The table: one row per test, one outcome column per mode, and whether they differ.
{
  printf 'test'
  printf '\t%s' "${mode_list[@]}"
  printf '\tdiffers\n'
  for t in "${tests[@]}"; do
    printf '%s' "$t"
    first="" differs=no
    for m in "${mode_list[@]}"; do
      o=$(awk -F'\t' -v t="$t" '$1 == t { print $2 }' "$out/$m/times.tsv")
      printf '\t%s' "$o"
      [ -z "$first" ] && first=$o
      [ "$o" = "$first" ] || differs=yes
    done
    printf '\t%s\n' "$differs"
  done
} >"$out/results.tsv"

echo
for m in "${mode_list[@]}"; do
  printf '%-7s' "$m:"
  for o in pass fail skip timeout missing; do
    printf ' %s %d' "$o" "$(awk -F'\t' -v o="$o" '$2 == o' "$out/$m/times.tsv" | wc -l)"
  done
  echo
done
[ "$report_only" = 1 ] || echo "total time: $(($(date +%s) - total_start)) s for ${#tests[@]} tests x ${#mode_list[@]} modes"
if [ ${#mode_list[@]} -gt 1 ]; then
  ndiff=$(awk -F'\t' 'NR > 1 && $NF == "yes"' "$out/results.tsv" | wc -l)
  echo "tests whose outcome differs ($ndiff):"
  awk -F'\t' 'NR == 1 || $NF == "yes"' "$out/results.tsv" | cut -f1-$((${#mode_list[@]} + 1)) | column -t
fi
echo "results: $out/results.tsv, logs: $out/MODE/TEST.log"
