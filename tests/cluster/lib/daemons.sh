# Starting, waiting for and stopping the test cluster's daemons. Sourced by tests/cluster/cluster.
# Every wait is bounded by $WAIT seconds; a daemon that does not come up fails with its log's tail.

die() {
  echo "cluster: $*" >&2
  exit 1
}

pid_alive() {
  local pidfile=$1
  [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

any_daemon_running() {
  local f
  for f in "$D"/run/*.pid; do
    [ -e "$f" ] && pid_alive "$f" && return 0
  done
  return 1
}

# wait_for DESCRIPTION COMMAND...: runs COMMAND every 0.2 s until it succeeds or $WAIT s pass.
wait_for() {
  local what=$1
  shift
  local deadline=$((SECONDS + WAIT)) output
  until output=$("$@" 2>&1); do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "cluster: timed out after ${WAIT}s waiting for $what; '$*' last said:" >&2
      printf '%s\n' "$output" | tail -n 5 >&2
      return 1
    fi
    sleep 0.2
  done
}

# fail_with_log NAME LOGFILE: the daemon did not start; show why and stop.
fail_with_log() {
  echo "cluster: $1 did not start; last lines of $2:" >&2
  tail -n 30 "$2" >&2 2>/dev/null || true
  exit 1
}

# await_exit NAME PID DEADLINE: waits until PID has exited, SIGKILL at DEADLINE (in SECONDS).
await_exit() {
  local name=$1 pid=$2 deadline=$3
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "cluster: $name (pid $pid) ignored SIGTERM for ${WAIT}s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
}

stop_pidfile() {
  local pidfile=$1 name=$2 pid
  pid_alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  await_exit "$name" "$pid" $((SECONDS + WAIT))
  rm -f "$pidfile"
}

start_munge() {
  local key=$D/munge/munge.key
  dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
  chmod 0400 "$key"
  run_munged
}

# munged with the cluster's key (start_munge made it); also to start it again after a stop.
run_munged() {
  local key=$D/munge/munge.key
  /usr/sbin/munged --key-file="$key" --socket="$D/munge/run/munge.socket.2" \
    --pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" \
    --seed-file="$D/munge/munged.seed" --force >/dev/null 2>&1 ||
    fail_with_log munged "$D/log/munged.log"
  wait_for "munged" munge --socket="$D/munge/run/munge.socket.2" -n ||
    fail_with_log munged "$D/log/munged.log"
}

mariadb_client() {
  mariadb --no-defaults --socket="$D/mysql/mysqld.sock" -u root "$@"
}

# Each cluster's MariaDB keeps its temporary files in a directory of its own ($D/mysql/tmp, made
# with the cluster's other directories by tests/cluster/cluster), not in the shared /tmp: a
# starting mariadbd (mariadb-install-db's bootstrap too) removes the "#sql*" files it finds in
# its tmpdir, so with clusters started side by side (utilisation.py --parallel, the benchmark's
# slots) one instance's start deleted another's temporary tables and its bootstrap failed
# ("Could not remove temporary table: '/tmp/#sql-temptable-...'"; 5 of 24 bootstraps, 8 at a
# time, and 7 of 238 cluster starts of a benchmark campaign; none of 32 with their own tmpdir).
start_mariadb() {
  mariadb-install-db --no-defaults --datadir="$D/mysql/data" --tmpdir="$D/mysql/tmp" --user=root \
    --auth-root-authentication-method=socket --skip-test-db >"$D/log/mariadb-install.log" 2>&1 ||
    fail_with_log mariadb-install-db "$D/log/mariadb-install.log"
  run_mariadb
  # The database exists before slurmdbd's first connection: when it does not, slurmdbd's first
  # mysql_real_connect fails (unknown database), it creates it and connects again on the same
  # handle, and with MariaDB Connector/C 3.4 (Debian 13) every query with a result then fails
  # ("5027 Number of columns in result (=1) ... exceeds maximum allowed number of columns (=0)"),
  # so Slurm 24.11's slurmdbd stops at _check_mysql_concat_is_sane.
  mariadb_client -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
    CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'shareq-test';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;"
}

# mariadbd on the installed data directory; also to start it again after a stop.
run_mariadb() {
  setsid /usr/sbin/mariadbd --no-defaults --datadir="$D/mysql/data" --tmpdir="$D/mysql/tmp" \
    --user=root --socket="$D/mysql/mysqld.sock" --port="$DB_PORT" --bind-address=127.0.0.1 \
    --pid-file="$D/run/mariadb.pid" --log-error="$D/log/mariadb.log" \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M --skip-name-resolve \
    </dev/null >/dev/null 2>&1 &
  wait_for "mariadb" mariadb_client -e "SELECT 1" || fail_with_log mariadb "$D/log/mariadb.log"
}

start_slurmdbd() {
  /usr/sbin/slurmdbd >/dev/null 2>&1 || fail_with_log slurmdbd "$D/log/slurmdbd.log"
  wait_for "slurmdbd" sacctmgr -n list cluster || fail_with_log slurmdbd "$D/log/slurmdbd.log"
}

start_slurmctld() {
  /usr/sbin/slurmctld >/dev/null 2>&1 || fail_with_log slurmctld "$D/log/slurmctld.log"
  wait_for "slurmctld" scontrol ping || fail_with_log slurmctld "$D/log/slurmctld.log"
}

# Two controllers (tests/cluster/test_backup_controller.py): slurm.conf names the primary
# $(hostname -s) at 127.0.0.1 and the backup $BACKUP_CTLD_NAME at 127.0.0.2, with
# CommunicationParameters=NoCtldInAddrAny, so that each binds SlurmctldPort on its own address.
# Slurm finds which controller it is by its host name and binds the address that name resolves
# to, so each runs in namespaces of its own: a UTS namespace with its name and a mount namespace
# whose /etc/hosts names only the controllers. The backup's pid file and log are its own (its
# $D/run is $D/run-backup, its log slurmctld-backup.log): a slurmctld kills the one its pid file
# names when it starts.
BACKUP_CTLD_NAME=shareq-backup
BACKUP_CTLD_ADDR=127.0.0.2

ctld_pidfile() {
  case "$1" in
    primary) echo "$D/run/slurmctld.pid" ;;
    backup) echo "$D/run-backup/slurmctld.pid" ;;
    *) die "no controller '$1'; allowed: primary, backup" ;;
  esac
}

# start_controller primary|backup: slurmctld in its own namespaces (above), waited for until its
# pid file names a live process.
start_controller() {
  local role=$1 name addr log=$D/log/slurmctld.log binds=""
  case "$role" in
    primary) name=$(hostname -s) addr=127.0.0.1 ;;
    backup)
      name=$BACKUP_CTLD_NAME addr=$BACKUP_CTLD_ADDR
      mkdir -p "$D/run-backup"
      touch "$D/log/slurmctld-backup.log" "$log"
      log=$D/log/slurmctld-backup.log
      binds="mount --bind '$D/run-backup' '$D/run' && mount --bind '$log' '$D/log/slurmctld.log' &&"
      ;;
    *) die "no controller '$role'; allowed: primary, backup" ;;
  esac
  printf '127.0.0.1 localhost\n%s %s\n' "$addr" "$name" >"$D/etc/hosts-$role"
  rm -f "$(ctld_pidfile "$role")"
  # The bind mounts must not reach this mount namespace. unshare makes the new namespace's
  # mounts private; in another release's root (scripts/slurm-root.sh: a chroot, in a private
  # namespace already) / is no mount point and that fails, so there they stay as they are.
  local propagation=private
  unshare --mount --propagation private true 2>/dev/null || propagation=unchanged
  unshare --uts --mount --propagation "$propagation" -- sh -c \
    "mount --bind '$D/etc/hosts-$role' /etc/hosts && $binds hostname '$name' &&
     exec /usr/sbin/slurmctld" >/dev/null 2>&1 || fail_with_log "slurmctld ($role)" "$log"
  wait_for "slurmctld ($role) to run" pid_alive "$(ctld_pidfile "$role")" ||
    fail_with_log "slurmctld ($role)" "$log"
}

# One slurmd per node. Beyond 8 nodes (SHAREQ_NODES) they start in batches of 16 (on a 2-core
# machine hundreds at once starve slurmctld while they register): each batch is waited for,
# bounded, until every slurmd of it runs with its pid file, before the next starts.
start_slurmds() {
  local n i batch=()
  for i in "${!NODES[@]}"; do
    n=${NODES[$i]}
    /usr/sbin/slurmd -N "$n" >/dev/null 2>&1 || fail_with_log "slurmd $n" "$D/log/slurmd-$n.log"
    batch+=("$n")
    if [ "${#batch[@]}" -ge 16 ] || [ "$i" -eq $((${#NODES[@]} - 1)) ]; then
      if [ "${#NODES[@]}" -gt 8 ]; then
        wait_for "slurmd ${batch[0]} .. ${batch[-1]} to start" slurmds_alive "${batch[@]}" ||
          fail_with_log "slurmd ${batch[0]}" "$D/log/slurmd-${batch[0]}.log"
      fi
      batch=()
    fi
  done
}

slurmds_alive() {
  local n
  for n in "$@"; do pid_alive "$D/run/slurmd-$n.pid" || return 1; done
}

# Stops every slurmd this cluster directory holds a pid file for (whatever SHAREQ_NODES says
# now): SIGTERM to all, then a bounded wait for all, SIGKILL to those left.
stop_slurmds() {
  local f pids=() deadline pid
  for f in "$D"/run/slurmd-*.pid; do
    [ -e "$f" ] || continue
    if pid_alive "$f"; then
      pids+=("$(cat "$f")")
      kill -TERM "${pids[-1]}" 2>/dev/null || true
    fi
  done
  deadline=$((SECONDS + WAIT))
  for pid in "${pids[@]}"; do await_exit slurmd "$pid" "$deadline"; done
  rm -f "$D"/run/slurmd-*.pid
}

# Job steps of this cluster that outlived their slurmd (slurmd could not reach them, e.g. with
# munged down): each slurmstepd listens on a UNIX socket in its node's spool directory under $D
# (/proc/net/unix gives the socket's inode); the processes holding those sockets are killed.
# Nothing outside $D is matched.
stop_stray_steps() {
  local inodes pid fd link
  inodes=$(awk -v dir="$D/spool/" 'index($8, dir) == 1 { print "socket:[" $7 "]" }' /proc/net/unix)
  [ -n "$inodes" ] || return 0
  for pid in $(pgrep -x slurmstepd); do
    for fd in /proc/"$pid"/fd/*; do
      link=$(readlink "$fd" 2>/dev/null) || continue
      if grep -qxF -- "$link" <<<"$inodes"; then
        echo "cluster: killing slurmstepd $pid, left over from a node of $D" >&2
        kill -KILL "$pid" 2>/dev/null || true
        break
      fi
    done
  done
}

# Job scripts whose slurmstepd is gone (killed above, or by a test) are orphans that nothing else
# ends: each is known by its environment (SLURM_JOB_ID, and this cluster's SLURM_CONF, which the
# submitting command passed on). Left running, they hold users' processes and confuse the next
# cluster's checks.
stop_orphaned_job_scripts() {
  local env vars pid conf="SLURM_CONF=$D/etc/slurm.conf"
  for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}
    pid=${pid%/environ}
    [ "$pid" != $$ ] || continue
    vars=$(tr '\0' '\n' 2>/dev/null <"$env") || continue
    if grep -q '^SLURM_JOB_ID=' <<<"$vars" && grep -qxF -- "$conf" <<<"$vars"; then
      echo "cluster: killing $(tr '\0' ' ' 2>/dev/null </proc/"$pid"/cmdline)(pid $pid), a job script left over from $D" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

all_nodes_idle() {
  local states
  states=$(sinfo -h -N -o '%T' | sort -u | tr '\n' ' ')
  [ "$states" = "idle " ]
}

wait_nodes_idle() {
  if ! wait_for "all nodes to be idle" all_nodes_idle; then
    sinfo -N >&2 || true
    local n
    for n in "${NODES[@]}"; do pid_alive "$D/run/slurmd-$n.pid" || fail_with_log "slurmd $n" "$D/log/slurmd-$n.log"; done
    fail_with_log slurmctld "$D/log/slurmctld.log"
  fi
}

no_jobs_left() {
  [ -z "$(squeue -h -o %i 2>/dev/null)" ]
}

cancel_all_jobs() {
  pid_alive "$D/run/slurmctld.pid" || return 0
  scancel --full --quiet --user=root 2>/dev/null || true
  local ids
  ids=$(squeue -h -o %i 2>/dev/null || true)
  [ -z "$ids" ] || scancel --quiet $ids 2>/dev/null || true
  wait_for "jobs to end" no_jobs_left || squeue >&2 || true
}

create_users() {
  local u
  for u in alice bob; do
    id "$u" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$u"
  done
}

# Jobs of the test users (alice, bob) run in $D/jobs: every directory above it must let them
# through. A clone inside `mktemp -d` (mode 0700) does not, and every sbatch of theirs would fail.
check_users_reach() {
  local dir=$1 u
  for u in alice bob; do
    runuser -u "$u" -- test -w "$dir" -a -x "$dir" ||
      die "user $u cannot reach $dir: every directory above it needs search permission for" \
        "others (chmod o+x); a directory made by mktemp -d (mode 0700) has none"
  done
}

create_accounts() {
  local c=shareq
  sacctmgr -i add cluster "$c" >/dev/null
  sacctmgr -i add qos low >/dev/null
  sacctmgr -i add qos high Preempt=low PreemptMode=requeue >/dev/null
  sacctmgr -i add account prodexp1,prodexp2,research Cluster="$c" \
    Description=shareq-share Organization=shareq >/dev/null
  sacctmgr -i add user alice Account=prodexp1,prodexp2 DefaultAccount=prodexp1 >/dev/null
  sacctmgr -i add user bob Account=prodexp2,research DefaultAccount=prodexp2 >/dev/null
  # root may submit to every share (benchmarks submit thousands of jobs as root).
  sacctmgr -i add user root Account=prodexp1,prodexp2,research >/dev/null
  sacctmgr -i modify user alice,bob,root set QOS=normal,low,high >/dev/null
}
