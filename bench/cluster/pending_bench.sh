# Sourced by the bench scripts that look inside slurmctld while sched_cycles.py runs
# (main_pass_profile.sh, sort_comparisons.sh).

# start_pending_bench MODE SECONDS OUT_DIR: starts `sched_cycles.py --modes MODE --seconds
# SECONDS` in the background (its table in OUT_DIR/bench.txt) and returns once its 5,000 jobs are
# pending and its `sdiag -r` is past. Sets bench (the benchmark's pid), ctld_pid (slurmctld's)
# and exports SLURM_CONF for the bench cluster. Run from the repository root.
start_pending_bench() {
  local mode=$1 seconds=$2 out=$3 pending=0
  bench/cluster/sched_cycles.py --modes "$mode" --seconds "$seconds" >"$out/bench.txt" 2>&1 &
  bench=$!
  export SLURM_CONF=$PWD/build/bench-cluster/etc/slurm.conf
  for _ in $(seq 1 400); do
    pending=$( (squeue -h -t PD -o %i 2>/dev/null || true) | wc -l)
    [ "$pending" -ge 5000 ] && break
    sleep 1
  done
  [ "$pending" -ge 5000 ] || { echo "the 5,000 jobs never became pending" >&2; return 1; }
  sleep 10 # past sched_cycles.py's `sdiag -r`
  ctld_pid=$(pgrep -o -x slurmctld || pgrep -o slurmctld)
}
