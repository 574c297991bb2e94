#!/usr/bin/env bash
# Fetches the Debian source of the installed Slurm (slurm-wlm), applies Debian's patches and runs
# ./configure with Debian's flags, so shareq's controller plugins compile against the internal
# headers and config.h of the exact Slurm that will load them.
#
# Usage: fetch-slurm-src.sh DEST_DIR
# Prints the path of the configured tree. Reuses DEST_DIR when it is already configured for the
# installed version (the marker file .shareq-configured holds that version).
set -euo pipefail

dest=${1:?usage: fetch-slurm-src.sh DEST_DIR}
version=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
if [ -z "$version" ]; then
  echo "fetch-slurm-src: slurmctld is not installed; run scripts/install-deps.sh first" >&2
  exit 1
fi
upstream=${version%%-*}
tree="$dest/slurm-wlm-$upstream"
marker="$tree/.shareq-configured"

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$version" ]; then
  echo "$tree"
  exit 0
fi

if ! apt-get source --print-uris "slurm-wlm=$version" >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "fetch-slurm-src: no deb-src entry for slurm-wlm and not root to add one" >&2
    exit 1
  fi
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
    >/etc/apt/sources.list.d/shareq-deb-src.sources
  apt-get update -q >&2
fi

mkdir -p "$dest"
rm -rf "$tree"
if ! (cd "$dest" && apt-get source -q "slurm-wlm=$version" >&2); then
  # Some archives (the one these machines reach, for Debian 13 and unstable) serve the upstream
  # tarball of a source package but not its .dsc and Debian patches. Fall back to that tarball,
  # checked against the Sources index's SHA256, and say so: the headers are upstream's, unpatched.
  orig=$(apt-get source --print-uris -q "slurm-wlm=$version" 2>/dev/null | grep -E "\.orig\.tar\.[a-z0-9]+' " || true)
  [ -n "$orig" ] || { echo "fetch-slurm-src: no source for slurm-wlm=$version in the archive" >&2; exit 1; }
  read -r uri file _size hash <<<"$orig"
  uri=${uri//\'/}
  echo "fetch-slurm-src: WARNING: the archive has no .dsc/Debian patches for slurm-wlm=$version;" \
    "using the checked upstream tarball $file without Debian's patches" >&2
  /usr/lib/apt/apt-helper download-file "$uri" "$dest/$file" "$hash" >&2 ||
    { echo "fetch-slurm-src: cannot fetch $uri" >&2; exit 1; }
  mkdir -p "$tree"
  tar -xf "$dest/$file" -C "$tree" --strip-components=1
  echo "upstream $file, no Debian patches" >"$tree/.shareq-source"
fi
(
  cd "$tree"
  ./configure --prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu --sysconfdir=/etc/slurm \
    --with-munge --enable-multiple-slurmd --disable-debug --without-rpath >configure.shareq.log 2>&1 ||
    { tail -30 configure.shareq.log >&2; exit 1; }
)
echo "$version" >"$marker"
echo "$tree"
