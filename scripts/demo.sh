#!/usr/bin/env bash
# The shareq demonstration on a fresh Debian 12 machine: installs what it needs, builds shareq,
# starts a local 8-node Slurm cluster (partitions p4 and p5, 8 GPUs a node) with shareq's
# plugins, submits jobs as users alice and bob, and shows what happened with Slurm's own tools.
# The cluster stays up afterwards; stop it with `tests/cluster/cluster down`. Needs root.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@" || true; }
# as USER COMMAND...: runs COMMAND as USER and shows it, whatever it returns;
# as_ok: the same, and the demonstration stops when COMMAND fails.
as_ok() { local user=$1; shift; printf '%s$ %s\n' "$user" "$*"; (cd "$SHAREQ_CLUSTER_DIR/jobs" && runuser -u "$user" -- "$@"); }
as() { as_ok "$@" || true; }
# as_refused USER COMMAND...: shows COMMAND's refusal; the demonstration stops when it is accepted.
as_refused() {
  if as_ok "$@"; then
    echo "demo: that should have been refused" >&2
    exit 1
  fi
}

# until_ok SECONDS CONDITION...: polls CONDITION every half second for at most SECONDS; a
# demonstration that did not happen stops here, saying what it waited for.
until_ok() {
  local limit=$1
  shift
  for _ in $(seq 1 $((limit * 2))); do "$@" && return 0; sleep 0.5; done
  echo "demo: gave up after ${limit}s waiting for: $*" >&2
  return 1
}
no_jobs() { [ -z "$(squeue -h -o %i)" ]; }

say "Installing packages and building shareq"
scripts/install-deps.sh
# The configuration of the test command (scripts/test.sh): one build serves both. Only what the
# cluster runs is built here (plugins, the tool, the cluster's helpers); the test command builds
# the rest.
cmake -S . -B build -DSHAREQ_TESTS=ON -DSHAREQ_PLUGINS=ON >/dev/null
cmake --build build -j"$(nproc)" --target cluster_parts

say "Starting a local Slurm cluster with shareq (munge, MariaDB, slurmdbd, slurmctld, 8 x slurmd)"
tests/cluster/cluster down >/dev/null 2>&1 || true
demo_conf=$(mktemp --suffix=.conf)
sed 's/^ReclaimMinRuntime=.*/ReclaimMinRuntime=15/' slurm-conf/shareq.conf >"$demo_conf"
# Assigned first: `set -e` stops the demonstration here when the cluster does not come up.
cluster_env=$(SHAREQ_BUILD_DIR="$repo/build" SHAREQ_CONF="$demo_conf" tests/cluster/cluster up)
eval "$cluster_env"
rm -f "$demo_conf"
show sinfo
show grep -E '^(SelectType|JobSubmitPlugins|PlugStackConfig)' "$SLURM_CONF"

say "The shares and quotas slurmctld enforces (shareq check-config)"
show build/tools/shareq check-config "$SHAREQ_CLUSTER_DIR/etc/shareq.conf"

say "Users submit with sbatch flags; shareq's flags are in --help"
as alice sbatch --help | grep -F '[shareq]'

say "Good jobs: a share, a priority inside it, GPUs, several nodes"
as_ok alice sbatch --share=ProdExp1 --share-priority=80 -p p4 -N 2 --wrap='sleep 5'
as_ok alice sbatch --share=ProdExp2 -p p5 -N 2 --gres=gpu:8 --image=llama-train --keep-alive=900 --wrap='srun hostname'
as_ok bob sbatch --share=Research --share-priority=30 -p p5 --gpus=12 --wrap='sleep 3'
as_ok bob env SHAREQ_SHARE=prodexp2 SHAREQ_SHARE_PRIORITY=10 sbatch -p p4 --wrap='sleep 2'

say "Bad input is refused with the field and what is allowed"
as_refused alice sbatch --share-priority=150 -p p4 --wrap=true
as_refused alice sbatch --image=../../etc/shadow -p p4 --wrap=true
as_refused alice sbatch --share=Research -p p4 --wrap=true
as_refused alice sbatch --share=Research -p p5 --gres=gpu:1 --wrap=true
as_refused alice sbatch --keep-alive=7200 -p p4 --wrap=true

say "squeue: each job's account is its share"
show squeue -o '%.6i %.4P %.10a %.6u %.9T %.3D %b'

say "Waiting for the jobs to finish (at most 60 s)"
until_ok 60 no_jobs
show sacct -a -X -o JobID,User,Account,Partition,AllocTRES%40,State,AdminComment%70

running_in() { [ "$(squeue -h -t RUNNING -A "$1" -p p4 -o %i | wc -l)" -eq "$2" ]; }

say "Borrowing: p4 has 4 nodes; prodexp1 and prodexp2 have a quota of 2 each"
for _ in 1 2 3 4; do
  as_ok alice sbatch --share=prodexp1 -p p4 -N 1 --exclusive --requeue --wrap='sleep 120'
done
until_ok 30 running_in prodexp1 4
echo "prodexp2 is idle, so prodexp1 runs 4 nodes: 2 on its quota, 2 borrowed"
show squeue -p p4 -o '%.6i %.10a %.8T %Q %r'

say "Reclaim: prodexp2 asks for its quota back"
for _ in 1 2; do
  as_ok bob sbatch --share=prodexp2 -p p4 -N 1 --exclusive --wrap='sleep 20'
done
sleep 2
show squeue -p p4 -t PENDING -o '%.6i %.10a %.8T %r'
echo "(borrowed jobs are reclaimed once they ran ReclaimMinRuntime=15 s)"
until_ok 60 running_in prodexp2 2
show squeue -p p4 -o '%.6i %.10a %.8T %r'
victim=$(squeue -h -p p4 -t PENDING -A prodexp1 -o %i | head -1)
[ -n "$victim" ] && show scontrol show job "$victim" | grep -E 'JobState|SystemComment|Restarts'
echo "prodexp1 is back at exactly its quota of 2; its requeued jobs run when prodexp2 is done"

say "Warm pools: a job leaves its node warm; a matching job reuses it"
# submit USER ARGS...: shows the command, submits it, and leaves the job id in $job.
submit() {
  local user=$1
  shift
  printf '%s$ sbatch %s\n' "$user" "$*"
  job=$(cd "$SHAREQ_CLUSTER_DIR/jobs" && runuser -u "$user" -- sbatch --parsable "$@")
  echo "Submitted batch job $job"
}
gone() { [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; }
submit alice --share=prodexp2 -p p5 --gres=gpu:8 --image=llama-train --keep-alive=300 \
  --wrap='echo epoch-1 >"$SHAREQ_WARM_DIR/checkpoint"; ls -l "$SHAREQ_IMAGE_PATH"'
until_ok 60 gone "$job"
submit alice --share=prodexp2 -p p5 --gres=gpu:8 --image=llama-train --keep-alive=300 \
  -o "$SHAREQ_CLUSTER_DIR/jobs/warm-demo.out" --wrap='cat "$SHAREQ_WARM_DIR/checkpoint"'
second=$job
until_ok 60 gone "$second"
show scontrol show job "$second" | grep -E 'NodeList=|SystemComment'
show cat "$SHAREQ_CLUSTER_DIR/jobs/warm-demo.out"
grep -qx epoch-1 "$SHAREQ_CLUSTER_DIR/jobs/warm-demo.out" || {
  echo "demo: job $second did not start warm: it did not find the first job's checkpoint" >&2
  exit 1
}
echo "Warm nodes (scontrol show node: Extra):"
scontrol show node -o | sed -n 's/^NodeName=\([^ ]*\) .*Extra=\(shareq[^ ]*\).*/  \1  \2/p'

say "Done. The cluster is still up:"
echo "  eval \"\$(tests/cluster/cluster env)\"   # point sbatch/squeue/sacct at it"
echo "  tests/cluster/cluster down             # stop it"
