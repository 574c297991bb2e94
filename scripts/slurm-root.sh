#!/usr/bin/env bash
# A Debian root per Slurm release, outside the work tree and reused: Debian 13 (trixie) for Slurm
# 24.11, Debian unstable (sid) for 26.05. Each holds that release's slurm-wlm packages as Debian
# ships them, shareq's build dependencies (scripts/install-deps.sh, run inside the root) and the
# release's Debian source, patched and configured by scripts/fetch-slurm-src.sh, for the plugins'
# internal headers. 22.05 is this Debian 12 machine itself and has no root.
#
# Usage: slurm-root.sh RELEASE [setup]          create or update the root; prints its path
#        slurm-root.sh RELEASE path             print the root's path (no changes)
#        slurm-root.sh RELEASE src              print the configured source tree's path in the root
#        slurm-root.sh RELEASE build [BUILD_DIR] build this repository in the root against the
#                                               release's configured source, then run ctest
#                                               (BUILD_DIR default: build-RELEASE, in the repo)
#        slurm-root.sh RELEASE run [--bind DIR]... [--] CMD [ARG]...
#                                               run CMD in the root (as root), with /proc, /sys,
#                                               /dev and each DIR (default: this repository)
#                                               mounted at the same path in a private mount
#                                               namespace, so nothing stays mounted afterwards
# RELEASE: 24.11 | 26.05 (or the suite name, trixie | sid).
# Environment: SHAREQ_ROOTS (default /var/cache/shareq-roots), SHAREQ_DEBIAN_MIRROR (default: the
# first URIs of /etc/apt/sources.list.d/debian.sources, else http://deb.debian.org/debian).
#
# Every step is idempotent and skipped when its marker under ROOT/.shareq/ says it is done for
# the same inputs; each step prints how long it took. Needs root (debootstrap, chroot, mount).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
prog=slurm-root

die() {
  echo "$prog: $*" >&2
  exit 1
}

release=${1:-}
action=${2:-setup}
case "$release" in
  24.11 | trixie) suite=trixie release=24.11 ;;
  26.05 | sid) suite=sid release=26.05 ;;
  22.05 | bookworm) die "22.05 is this machine's own Slurm (Debian 12): it needs no root" ;;
  *) die "usage: $prog 24.11|26.05 [setup|path|src|build [DIR]|run [--bind DIR]... [--] CMD...]" ;;
esac
if [ $# -ge 2 ]; then shift 2; else shift 1; fi

roots=${SHAREQ_ROOTS:-/var/cache/shareq-roots}
root=$roots/$suite
state=$root/.shareq
# The configured source tree lives in the root, so it is built against the root's own compilers
# and libraries; fetch-slurm-src.sh names it slurm-wlm-UPSTREAM below this folder.
src_parent=/usr/src/shareq-slurm

mirror() {
  if [ -n "${SHAREQ_DEBIAN_MIRROR:-}" ]; then
    echo "$SHAREQ_DEBIAN_MIRROR"
    return
  fi
  local uri
  uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# Runs "$@" in the root with the kernel file systems and the bind mounts, in a private mount
# namespace: the mounts end with the command, whatever way it ends.
in_root() {
  local binds=("$@")
  local sep
  for sep in "${!binds[@]}"; do [ "${binds[$sep]}" = -- ] && break; done
  local dirs=("${binds[@]:0:$sep}") cmd=("${binds[@]:$((sep + 1))}")
  # shellcheck disable=SC2016 # expanded by the inner bash, with its own arguments
  local script='set -e; r=$1; shift
    mount -t proc proc "$r/proc"; mount --rbind /sys "$r/sys"; mount --rbind /dev "$r/dev"
    n=$1; shift
    while [ "$n" -gt 0 ]; do mkdir -p "$r$1"; mount --rbind "$1" "$r$1"; shift; n=$((n - 1)); done
    exec chroot "$r" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"'
  unshare --mount --propagation private bash -c "$script" in_root "$root" "${#dirs[@]}" "${dirs[@]}" \
    "${cmd[@]}"
}

timed() {
  local what=$1
  shift
  local t0=$SECONDS
  echo "$prog: $suite: $what ..." >&2
  "$@"
  echo "$prog: $suite: $what took $((SECONDS - t0)) s" >&2
}

step_debootstrap() {
  if [ -f "$state/debootstrap" ]; then
    return
  fi
  if [ -e "$root" ]; then
    echo "$prog: $root exists but its debootstrap never finished; removing it" >&2
    rm -rf --one-file-system "$root"
  fi
  command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
  local m
  m=$(mirror)
  mkdir -p "$roots"
  debootstrap --variant=minbase "$suite" "$root" "$m" >"$roots/$suite.debootstrap.log" 2>&1 ||
    {
      tail -20 "$roots/$suite.debootstrap.log" >&2
      die "debootstrap $suite from $m failed (log: $roots/$suite.debootstrap.log)"
    }
  mkdir -p "$state"
  echo "$m" >"$state/debootstrap"
}

step_apt_config() {
  local m
  m=$(cat "$state/debootstrap")
  # deb and deb-src from the same archive: the source package must be the binaries' version.
  cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb deb-src
URIs: $m
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -f "$root/etc/apt/sources.list"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  # The archive this machine reaches holds a frozen sid whose Release file is past Valid-Until.
  if [ "$suite" = sid ]; then
    echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99shareq-valid-until"
  fi
  # Packages must not start daemons in the root: the cluster tests start their own.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/99shareq-no-recommends"
}

step_packages() {
  # Reinstalls when install-deps.sh's package list changed since the last run.
  local sum
  sum=$(sha256sum "$here/install-deps.sh" | cut -d' ' -f1)
  if [ -f "$state/packages" ] && [ "$(cat "$state/packages")" = "$sum" ]; then
    return
  fi
  install -m 755 "$here/install-deps.sh" "$root/usr/local/sbin/shareq-install-deps"
  # ccache: the root's builds share the machine's cache (a different compiler, so other entries).
  in_root -- sh -c 'apt-get update -q && apt-get install -y -q ccache && shareq-install-deps' \
    >"$roots/$suite.apt.log" 2>&1 ||
    {
      tail -30 "$roots/$suite.apt.log" >&2
      die "installing packages in $root failed (log: $roots/$suite.apt.log)"
    }
  echo "$sum" >"$state/packages"
}

step_source() {
  install -m 755 "$here/fetch-slurm-src.sh" "$root/usr/local/sbin/shareq-fetch-slurm-src"
  in_root -- shareq-fetch-slurm-src "$src_parent" >"$state/src" 2>"$roots/$suite.src.log" ||
    {
      tail -30 "$roots/$suite.src.log" >&2
      die "fetching or configuring Slurm's source in $root failed (log: $roots/$suite.src.log)"
    }
}

require_root() {
  [ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mount)"
}

case "$action" in
  path)
    echo "$root"
    ;;
  src)
    [ -s "$state/src" ] || die "$root has no configured source yet: run $prog $release setup"
    cat "$state/src"
    ;;
  setup)
    require_root
    mkdir -p "$roots"
    exec 9>"$roots/.$suite.lock"
    flock 9
    timed debootstrap step_debootstrap
    step_apt_config
    timed "apt-get install (slurm-wlm and build dependencies)" step_packages
    timed "Slurm source fetch and configure" step_source
    # shellcheck disable=SC2016 # dpkg-query's own ${Version}
    echo "$prog: $suite: slurm-wlm $(chroot "$root" dpkg-query -W -f='${Version}' slurmctld)," \
      "source $(cat "$state/src")" >&2
    echo "$root"
    ;;
  build)
    require_root
    [ -s "$state/src" ] || die "$root has no configured source yet: run $prog $release setup"
    build_dir=${1:-build-$release}
    case "$build_dir" in /*) ;; *) build_dir=$repo/$build_dir ;; esac
    case "$build_dir" in "$repo"/*) ;; *) die "BUILD_DIR must be inside $repo (bound into the root)" ;; esac
    jobs=${SHAREQ_JOBS:-2}
    ccache_dir=${CCACHE_DIR:-/var/cache/shareq-ccache}
    mkdir -p "$ccache_dir"
    # The root's compiler and Slurm; the machine's ccache folder (its entries are per compiler).
    build_script="set -e
      export CCACHE_DIR=$ccache_dir CCACHE_BASEDIR=$repo CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=10G
      cmake -S $repo -B $build_dir -DSHAREQ_TESTS=ON -DSHAREQ_PLUGINS=ON \
        -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DSLURM_SRC_DIR=$(cat "$state/src") >/dev/null
      nice -n 10 cmake --build $build_dir -j$jobs
      nice -n 10 ctest --test-dir $build_dir -j$jobs --output-on-failure"
    timed "build and ctest in $build_dir" in_root "$repo" "$ccache_dir" -- bash -c "$build_script"
    ;;
  run)
    require_root
    [ -f "$state/packages" ] || die "$root is not set up: run $prog $release setup"
    binds=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --bind)
          binds+=("$(cd "${2:?--bind needs a folder}" && pwd)")
          shift 2
          ;;
        --)
          shift
          break
          ;;
        *) break ;;
      esac
    done
    [ $# -gt 0 ] || die "run: no command"
    [ ${#binds[@]} -gt 0 ] || binds=("$repo")
    in_root "${binds[@]}" -- "$@"
    ;;
  *) die "unknown action '$action' (setup, path, src, build, run)" ;;
esac
