#!/usr/bin/env bash
# Unpacks the Linux kernel source from Debian's linux-source package into a
# cache outside the repository, as the large tree of the benchmarks, and
# prints its path. The package's top-level .gitignore ignores the whole tree
# (its last lines are `/*` and `!/debian/`): those two lines are dropped and
# the tree is made a git repository, so that agent-ls, rg and fd all see the
# kernel's own ignore rules. Run again, it only prints the path.
#
#   scripts/bench-tree.sh          # make bench-deps runs it
#   LARGE_REPO=DIR scripts/bench-tree.sh   # another tree: printed as is
set -euo pipefail

if [ -n "${LARGE_REPO:-}" ]; then
  echo "$LARGE_REPO"
  exit 0
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/agent-ls-bench"
dest="$cache/linux"
if [ -f "$dest/.agent-ls-ready" ]; then
  echo "$dest"
  exit 0
fi
tarball="$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1)"
if [ -z "$tarball" ]; then
  echo "agent-ls: no /usr/src/linux-source-*.tar.xz: install Debian's linux-source (make bench-deps)" >&2
  exit 1
fi
echo "agent-ls: unpacking $tarball into $dest" >&2
rm -rf "$dest" "$dest.tmp"
mkdir -p "$dest.tmp"
tar -xf "$tarball" -C "$dest.tmp" --strip-components=1
sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$dest.tmp/.gitignore"
git -C "$dest.tmp" init -q
touch "$dest.tmp/.agent-ls-ready"
mv "$dest.tmp" "$dest"
echo "$dest"
