#!/usr/bin/env bash
# Builds the shareq Debian package against the installed Slurm: prepares a configured Slurm source
# tree (scripts/fetch-slurm-src.sh), copies the tree with packaging/debian as debian/, and runs
# dpkg-buildpackage. The .deb lands in build/deb/.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$repo/build/deb
if ! command -v dh >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debhelper
fi
slurm_src=$("$repo/scripts/fetch-slurm-src.sh" "$repo/.cache/slurm-src")
rm -rf "$out" && mkdir -p "$out/src"
git -C "$repo" ls-files -z | (cd "$repo" && xargs -0 cp --parents -t "$out/src")
cp -r "$repo/packaging/debian" "$out/src/debian"
(cd "$out/src" && SLURM_SRC_DIR=$slurm_src dpkg-buildpackage -b -uc -us)
ls "$out"/*.deb
