#!/usr/bin/env bash
# Unpacks Debian's arm64 libseccomp (libseccomp-dev and libseccomp2) into
# DIR, for linking the linux/arm64 release with its sandbox, and prints
# the pkg-config folder that finds it. Nothing is installed on the
# system: the packages come through an apt state of its own under DIR,
# as scripts/neovim.sh fetches Neovim. Kept when already unpacked.
#
# The C cross compiler is the system's: Debian's gcc-aarch64-linux-gnu
# and libc6-dev-arm64-cross (scripts/deps.sh installs them for make
# release).
set -euo pipefail

dir="${1:?usage: scripts/arm64-seccomp.sh DIR}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
root="$dir/root"
pc="$root/usr/lib/aarch64-linux-gnu/pkgconfig"

if [ ! -f "$pc/libseccomp.pc" ]; then
  suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
  mirror=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | grep -v -- '-security' | head -n 1 || true)
  mirror="${mirror:-http://deb.debian.org/debian/}"
  state="$dir/apt"
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
  echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$state/sources.list"
  opts=(-o "Dir::Etc::sourcelist=$state/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1
    -o APT::Architecture=arm64 -o APT::Architectures=arm64)
  if [ "$(id -u)" = 0 ]; then
    opts+=(-o APT::Sandbox::User=root) # _apt cannot write to DIR
  fi
  apt-get -qq "${opts[@]}" update >&2
  rm -rf "$dir/debs" && mkdir -p "$dir/debs"
  (cd "$dir/debs" && apt-get -qq "${opts[@]}" download libseccomp-dev:arm64 libseccomp2:arm64 >&2)
  rm -rf "$root.tmp"
  for d in "$dir"/debs/*.deb; do
    dpkg-deb -x "$d" "$root.tmp"
  done
  rm -rf "$dir/debs" "$root" && mv "$root.tmp" "$root"
fi
echo "$pc"
