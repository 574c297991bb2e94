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
as() { local user=$1; shift; printf '%s$ %s\n' "$user" "$*"; (cd "$SHAREQ_CLUSTER_DIR/jobs" && runuser -u "$user" -- "$@") || true; }

say "Installing packages and building shareq"
scripts/install-deps.sh
cmake -S . -B build -DSHAREQ_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)"

say "Starting a local Slurm cluster with shareq (munge, MariaDB, slurmdbd, slurmctld, 8 x slurmd)"
tests/cluster/cluster down >/dev/null 2>&1 || true
eval "$(SHAREQ_BUILD_DIR="$repo/build" tests/cluster/cluster up)"
show sinfo
show grep -E '^(SelectType|JobSubmitPlugins|PlugStackConfig)' "$SLURM_CONF"

say "The shares and quotas slurmctld enforces (shareq check-config)"
show build/tools/shareq check-config "$SHAREQ_CLUSTER_DIR/etc/shareq.conf"

say "Users submit with sbatch flags; shareq's flags are in --help"
as alice sbatch --help | grep -F '[shareq]'

say "Good jobs: a share, a priority inside it, GPUs, several nodes"
as alice sbatch --share=ProdExp1 --share-priority=80 -p p4 -N 2 --wrap='sleep 5'
as alice sbatch --share=ProdExp2 -p p5 -N 2 --gres=gpu:8 --image=llama-train --keep-alive=900 --wrap='srun hostname'
as bob   sbatch --share=Research --share-priority=30 -p p5 --gpus=12 --wrap='sleep 3'
as bob   env SHAREQ_SHARE=prodexp2 SHAREQ_SHARE_PRIORITY=10 sbatch -p p4 --wrap='sleep 2'

say "Bad input is refused with the field and what is allowed"
as alice sbatch --share-priority=150 -p p4 --wrap=true
as alice sbatch --image=../../etc/shadow -p p4 --wrap=true
as alice sbatch --share=Research -p p4 --wrap=true
as alice sbatch --share=Research -p p5 --gres=gpu:1 --wrap=true
as alice sbatch --keep-alive=7200 -p p4 --wrap=true

say "squeue: each job's account is its share"
show squeue -o '%.6i %.4P %.10a %.6u %.9T %.3D %b'

say "Waiting for the jobs to finish (at most 60 s)"
for _ in $(seq 1 120); do
  [ -z "$(squeue -h -o %i)" ] && break
  sleep 0.5
done
show sacct -a -X -o JobID,User,Account,Partition,AllocTRES%40,State,AdminComment%70

say "Done. The cluster is still up:"
echo "  eval \"\$(tests/cluster/cluster env)\"   # point sbatch/squeue/sacct at it"
echo "  tests/cluster/cluster down             # stop it"
