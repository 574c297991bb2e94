# The test cluster's configuration files. Sourced by tests/cluster/cluster.

# libshareq_ctld.so is the controller plugins' shared state; they find it beside them ($ORIGIN).
# shareq_node.so is spank_shareq.so's node side, which it dlopen()s from its own directory.
SHAREQ_PLUGIN_FILES=(libshareq_ctld.so select_shareq_cons_tres.so job_submit_shareq.so
  priority_shareq.so preempt_shareq.so spank_shareq.so shareq_node.so)

# set_nodes COUNT: the cluster's nodes (NODES), partitions (PARTITIONS, the node list of each in
# PARTITION_NODES) and the first slurmd port (NODE_PORT_BASE), from SHAREQ_NODES. 8 (the
# default): p4n[1-4] and p5n[1-4], ports +4 .. +11. 16 to 1024 in steps of 16: four partitions
# p4-p7 of COUNT/4 nodes each, ports +32 .. +32+COUNT-1 (beyond the srun range +16 .. +31).
set_nodes() {
  local count=$1 per p i
  if ! [[ "$count" =~ ^[0-9]+$ ]] || { [ "$count" -ne 8 ] &&
    { [ "$count" -lt 16 ] || [ "$count" -gt 1024 ] || [ $((count % 16)) -ne 0 ]; }; }; then
    die "SHAREQ_NODES=$count is not a node count this cluster can start; allowed: 8 (the default)," \
      "or 16 to 1024 in steps of 16 (four partitions of SHAREQ_NODES/4 nodes)"
  fi
  NODES=()
  PARTITION_NODES=()
  if [ "$count" -eq 8 ]; then
    NODES=(p4n1 p4n2 p4n3 p4n4 p5n1 p5n2 p5n3 p5n4)
    PARTITIONS=(p4 p5)
    PARTITION_NODES=("p4n[1-4]" "p5n[1-4]")
    NODE_PORT_BASE=$((PORT_BASE + 4)) # 8 nodes: +4 .. +11
    return 0
  fi
  [ -z "${SHAREQ_CONF:-}" ] ||
    die "SHAREQ_NODES=$count generates shareq.conf's families and shares for its four partitions;" \
      "it cannot be combined with SHAREQ_CONF (unset one of them)"
  per=$((count / 4))
  PARTITIONS=(p4 p5 p6 p7)
  for p in "${PARTITIONS[@]}"; do
    for i in $(seq 1 "$per"); do NODES+=("${p}n$i"); done
    PARTITION_NODES+=("${p}n[1-$per]")
  done
  NODE_PORT_BASE=$((PORT_BASE + 32))
}

# shareq.conf's Family= and Share= lines for the four partitions of a cluster of more than 8
# nodes: p4 and p6 like the 8-node cluster's p4 (counted in nodes), p5 and p7 like its p5 (in
# GPUs), each share's quota half of its family.
scaled_families() {
  local per=$((${#NODES[@]} / 4)) gpus p
  gpus=$((per * GPUS_PER_NODE))
  for p in p4 p6; do echo "Family=$p Partitions=$p Capacity=node=$per"; done
  for p in p5 p7; do echo "Family=$p Partitions=$p Capacity=gres/gpu=$gpus"; done
  for p in p4 p6; do
    echo "Share=ProdExp1 Family=$p Quota=node=$((per / 2)) BorrowLimit=UNLIMITED"
    echo "Share=ProdExp2 Family=$p Quota=node=$((per / 2)) BorrowLimit=node=$((per / 2)) LendLimit=100%"
  done
  for p in p5 p7; do
    echo "Share=ProdExp2 Family=$p Quota=gres/gpu=$((gpus / 2))"
    echo "Share=Research Family=$p Quota=gres/gpu=$((gpus / 2)) BorrowLimit=50%"
  done
}

check_plugins() {
  [ -r "$SHAREQ_CONF_FILE" ] || die "SHAREQ_CONF=$SHAREQ_CONF_FILE is not readable"
  [ "$STOCK" = 1 ] && return 0
  local f
  for f in "${SHAREQ_PLUGIN_FILES[@]}"; do
    [ -f "$BUILD/plugins/$f" ] ||
      die "$BUILD/plugins/$f is missing: build shareq first (cmake --build $BUILD), or set SHAREQ_BUILD_DIR"
  done
  [ -x "$BUILD/tests/cluster/topology_xml" ] ||
    die "$BUILD/tests/cluster/topology_xml is missing: build shareq first (cmake --build $BUILD)"
}

# Each node's hardware, as hwloc XML (the hardware check, issue 15): a two-socket node with 96
# cores and its GPUs, which p5's Hardware= expects; the SPANK prolog reads $D/topology/NODE.xml
# (plugstack.conf's hwloc_xml=). Tests rewrite a node's file to make its hardware differ.
write_topologies() {
  [ "$STOCK" = 1 ] && return 0
  mkdir -p "$D/topology"
  local n
  for n in "${NODES[@]}"; do
    "$BUILD/tests/cluster/topology_xml" "$GPUS_PER_NODE" >"$D/topology/$n.xml"
  done
}

# A fresh copy, so that rebuilding never rewrites a .so that a daemon has mapped.
install_plugins() {
  [ "$STOCK" = 1 ] && return 0
  local f
  for f in "${SHAREQ_PLUGIN_FILES[@]}"; do
    install -m 0755 "$BUILD/plugins/$f" "$D/plugins/$f"
  done
}

# The job epilog: while $D/etc/epilog-hold/JOBID exists (at most 120 s), it keeps the job's nodes
# COMPLETING, as a hung epilog on a real cluster would; otherwise it returns at once.
write_epilog() {
  mkdir -p "$D/etc/epilog-hold"
  cat >"$D/etc/epilog" <<'EOF'
#!/bin/sh
hold="$(dirname "$0")/epilog-hold/$SLURM_JOB_ID"
i=0
while [ -e "$hold" ] && [ "$i" -lt 120 ]; do
  sleep 1
  i=$((i + 1))
done
exit 0
EOF
  chmod 0755 "$D/etc/epilog"
}

# MailProg: records each mail Slurm sends (its arguments; the job id, mail type and shareq's warm
# pool variables from its environment; stdin) as one file in $D/mail, for the warm-pool notice
# test. Slurm runs it as `MailProg -s SUBJECT USER`; nothing is mailed.
write_mailprog() {
  mkdir -p "$D/mail"
  cat >"$D/etc/mailprog" <<'EOF'
#!/bin/sh
dir="$(dirname "$0")/../mail"
tmp="$dir/.$$.tmp"
{
  for arg in "$@"; do printf 'arg: %s\n' "$arg"; done
  env | grep -E '^(SLURM_JOB_ID|SLURM_JOB_MAIL_TYPE|SPANK_SHAREQ_WARM_[A-Z]+)=' | sort
  printf 'stdin: '
  timeout 2 cat 2>/dev/null
  printf '\n'
} >"$tmp"
mv "$tmp" "$dir/mail-$(date +%s%N)-$$"
exit 0
EOF
  chmod 0755 "$D/etc/mailprog"
}

write_configs() {
  local select_type=select/shareq_cons_tres job_submit="JobSubmitPlugins=shareq"
  local priority_type=priority/shareq preempt_type=preempt/shareq
  # What the README recommends with shareq: jobs that would borrow never hold back the jobs
  # behind them (bf_min_prio_reserve at the within-quota tier, 2^30), and the main scheduler
  # tests at most 16 jobs of a partition per pass (partition_job_depth; backfill goes deeper).
  local sched_params="${SHAREQ_SCHED_PARAMS:-bf_interval=5}"
  # nohold_on_prolog_fail: a job whose prolog failed is requeued (and may fall back), not held.
  # enable_user_top: users may `scontrol top` their own jobs (tested with shareq's order).
  sched_params+=",bf_min_prio_reserve=1073741824,partition_job_depth=16,nohold_on_prolog_fail"
  sched_params+=",enable_user_top"
  if [ "$STOCK" = 1 ]; then
    sched_params="${SHAREQ_SCHED_PARAMS:-bf_interval=5}"
    select_type=select/cons_tres
    job_submit="#JobSubmitPlugins="
    priority_type=priority/multifactor
    preempt_type=preempt/qos
  fi
  # Victims get their --signal during PreemptGraceTime: Slurm 22.05 reads that from
  # SchedulerParameters; from 23.02 it reads PreemptParameters=send_user_signal (or
  # SlurmctldParameters) and ignores it, silently, in SchedulerParameters.
  local send_user_signal="PreemptParameters=send_user_signal"
  case "$(/usr/sbin/slurmctld -V)" in
    *" 22.05."*)
      sched_params+=",preempt_send_user_signal"
      send_user_signal="#PreemptParameters=send_user_signal"
      ;;
  esac
  local host
  host=$(hostname -s)
  # SHAREQ_EPILOG=0 leaves the epilog out (benchmarks: what the epilog changes in Slurm).
  local epilog_line="Epilog=$D/etc/epilog"
  [ "${SHAREQ_EPILOG:-1}" = 0 ] && epilog_line="#Epilog="

  cat >"$D/etc/slurm.conf" <<EOF
# Generated by tests/cluster/cluster for a private test cluster in $D.
ClusterName=shareq
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/run/munge.socket.2,cred_expire=10
CredType=cred/munge
StateSaveLocation=$D/spool/ctld
SlurmdSpoolDir=$D/spool/d/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=${SHAREQ_SLURMD_DEBUG:-info}
PluginDir=$D/plugins:$SLURM_DEBIAN_PLUGINS
PlugStackConfig=$D/etc/plugstack.conf
SrunPortRange=$SRUN_PORTS
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MpiDefault=none
LaunchParameters=use_interactive_step
SlurmdParameters=config_overrides
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
MinJobAge=600
KillWait=5
Waittime=0
# Does nothing unless a test holds a job's nodes COMPLETING (write_epilog below).
${epilog_line}
# Records every mail in $D/mail instead of sending it (write_mailprog).
MailProg=$D/etc/mailprog
# The SPANK job prolog (image cache, warm directory) runs on every node at allocation.
PrologFlags=Alloc
SchedulerType=sched/backfill
SchedulerParameters=$sched_params
${send_user_signal}
SelectType=$select_type
SelectTypeParameters=CR_Core
GresTypes=gpu
PriorityType=$priority_type
PriorityDecayHalfLife=1-0
# The weights drive priority/multifactor (SHAREQ_STOCK=1); priority/shareq ignores them, but sprio
# shows a column only when its weight is set: SITE (within-quota tier), FAIRSHARE (share rank) and
# ASSOC (--share-priority) carry shareq's factors.
PriorityWeightFairshare=10000
PriorityWeightAge=1000
PriorityWeightAssoc=1
PreemptType=$preempt_type
PreemptMode=REQUEUE
$job_submit
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
AccountingStoragePass=socket=$D/munge/run/munge.socket.2
AccountingStorageEnforce=associations,limits,qos
AccountingStorageTRES=gres/gpu
AccountingStoreFlags=job_comment
JobCompType=jobcomp/none
EOF
  write_epilog
  write_mailprog
  write_topologies
  [ -z "${SHAREQ_MAX_JOB_COUNT:-}" ] || echo "MaxJobCount=$SHAREQ_MAX_JOB_COUNT" >>"$D/etc/slurm.conf"
  local i=0 n
  for n in "${NODES[@]}"; do
    echo "NodeName=$n NodeHostname=$host NodeAddr=127.0.0.1 Port=$((NODE_PORT_BASE + i)) CPUs=16 RealMemory=64000 Gres=gpu:$GPUS_PER_NODE State=UNKNOWN"
    i=$((i + 1))
  done >>"$D/etc/slurm.conf"
  local default=" Default=YES"
  for i in "${!PARTITIONS[@]}"; do
    echo "PartitionName=${PARTITIONS[$i]} Nodes=${PARTITION_NODES[$i]}$default MaxTime=INFINITE State=UP"
    default=""
  done >>"$D/etc/slurm.conf"

  local all_nodes
  all_nodes=$(
    IFS=,
    echo "${PARTITION_NODES[*]}"
  )
  cat >"$D/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=$all_nodes Name=gpu File=$D/dev/gpu[0-$((GPUS_PER_NODE - 1))]
EOF

  if [ "$STOCK" = 1 ]; then
    : >"$D/etc/plugstack.conf"
  else
    echo "required $D/plugins/spank_shareq.so hwloc_xml=$D/topology/%n.xml" >"$D/etc/plugstack.conf"
  fi

  # The image store and each node's image cache belong to this cluster: ImageStore is the
  # cluster's HTTP store, ImageCacheDir a directory per node (%n) under the cluster directory,
  # and so is ImageCacheMetricsFile.
  # More than 8 nodes: the families and shares of the four partitions (scaled_families).
  local conf_in=$SHAREQ_CONF_FILE
  if [ "${#NODES[@]}" -gt 8 ]; then
    conf_in=$D/etc/shareq.conf.in
    {
      grep -v -E '^(Family|Share)=' "$SHAREQ_CONF_FILE"
      scaled_families
    } >"$conf_in"
  fi
  sed -e "s|^ImageStore=.*|ImageStore=http://127.0.0.1:$STORE_PORT|" \
    -e "s|^ImageCacheDir=.*|ImageCacheDir=$D/nodes/%n/images|" \
    -e "/^Family=p[57] /{/Hardware=/!s|\$| Hardware=gpus=$GPUS_PER_NODE,numa=2,cores=96|}" \
    "$conf_in" >"$D/etc/shareq.conf"
  # Each node's image-cache metrics (the node exporter's textfile) beside its cache.
  grep -q '^ImageCacheMetricsFile=' "$D/etc/shareq.conf" ||
    echo "ImageCacheMetricsFile=$D/nodes/%n/shareq.prom" >>"$D/etc/shareq.conf"
  chmod 0644 "$D/etc/shareq.conf"

  cat >"$D/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$D/munge/run/munge.socket.2
DbdHost=localhost
DbdPort=$DBD_PORT
SlurmUser=root
LogFile=$D/log/slurmdbd.log
PidFile=$D/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=shareq-test
StorageLoc=slurm_acct_db
EOF
  chmod 0600 "$D/etc/slurmdbd.conf"
}
