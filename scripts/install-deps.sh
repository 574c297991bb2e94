#!/usr/bin/env bash
# Installs everything shareq needs on a Debian 12 machine: Slurm 22.05 daemons and client,
# munge, MariaDB, the build toolchain and test libraries, hwloc (the node hardware check; its
# lstopo writes the tests' topology of this machine), git (the package build copies the
# tracked files), libmicrohttpd (shareq-exporter's HTTP), Prometheus (promtool checks and tests
# the alerting rules; the monitoring cluster test) and its node exporter. Idempotent; needs root.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: run as root (it calls apt-get)" >&2
  exit 1
fi

packages=(
  slurmctld slurmd slurm-client slurmdbd munge mariadb-server libslurm-dev
  build-essential cmake pkg-config clang clang-format clang-tidy
  googletest libgtest-dev libbenchmark-dev libcmocka-dev
  libcurl4-openssl-dev libssl-dev nlohmann-json3-dev libhwloc-dev hwloc
  libmunge-dev dpkg-dev git python3 python3-pytest procps sudo
  libmicrohttpd-dev prometheus prometheus-node-exporter
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Debian starts daemons on install when it can; shareq's cluster runs its own, privately.
for svc in munge mariadb slurmctld slurmd slurmdbd prometheus prometheus-node-exporter; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
    systemctl stop "$svc" || true
  fi
done
echo "install-deps: all packages present"
