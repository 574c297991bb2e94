#!/usr/bin/env bash
# Builds the shareq Debian package against the installed Slurm: prepares a configured Slurm source
# tree (scripts/fetch-slurm-src.sh), copies the tree with packaging/debian as debian/, and runs
# dpkg-buildpackage. The package depends on exactly the Slurm it was built against.
# Environment: SHAREQ_DEB_OUT, where the .deb lands (default build/deb/); SLURM_SRC_DIR, a
# configured source tree of the installed Slurm to use instead of fetching one. For another
# release, in its Debian root (scripts/slurm-root.sh):
#   scripts/slurm-root.sh 24.11 run -- env SHAREQ_DEB_OUT=$PWD/build-24.11/deb \
#     SLURM_SRC_DIR=$(scripts/slurm-root.sh 24.11 src) $PWD/packaging/build-deb.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${SHAREQ_DEB_OUT:-$repo/build/deb}
if ! command -v dh >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debhelper
fi
slurm_src=${SLURM_SRC_DIR:-$("$repo/scripts/fetch-slurm-src.sh" "$repo/.cache/slurm-src")}
rm -rf "$out" && mkdir -p "$out/src"
git -C "$repo" ls-files -z | (cd "$repo" && xargs -0 cp --parents -t "$out/src")
cp -r "$repo/packaging/debian" "$out/src/debian"
(cd "$out/src" && SLURM_SRC_DIR=$slurm_src dpkg-buildpackage -b -uc -us)
ls "$out"/*.deb
