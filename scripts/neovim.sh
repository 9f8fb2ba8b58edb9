#!/usr/bin/env bash
# Unpacks the later Neovim releases the plugin is tested in (besides
# Debian 12's 0.7.2, which scripts/deps.sh installs) from Debian's own
# packages: 0.10.4 from trixie and 0.12.4 from sid, with the libraries
# they need, into DIR/0.10.4 and DIR/0.12.4. Nothing is installed on the
# system: each gets an apt state of its own under DIR, and runs through
# the glibc loader that came with it (DIR/<version>/nvim is the wrapper).
#
# A version already unpacked is kept. A version Debian no longer serves
# is reported and left out; the tests then run the others.
set -euo pipefail

dir="${1:?usage: scripts/neovim.sh DIR}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

# The machine's own Debian mirror, as its apt sources name it.
mirror=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | grep -v -- '-security' | head -n 1 || true)
mirror="${mirror:-http://deb.debian.org/debian/}"

# fetch VERSION SUITE PACKAGE_VERSION LIBRARIES...
fetch() {
  local version="$1" suite="$2" pkg="$3"
  shift 3
  local out="$dir/$version"
  if [ -x "$out/nvim" ]; then
    return 0
  fi
  local state="$dir/apt-$suite"
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$state/sources.list"
  local -a opts=(-o "Dir::Etc::sourcelist=$state/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1)
  echo "neovim $version: from Debian $suite"
  if [ "$(id -u)" = 0 ]; then
    opts+=(-o APT::Sandbox::User=root) # _apt cannot write to DIR
  fi
  if ! apt-get -qq "${opts[@]}" update; then
    echo "neovim $version: Debian $suite is unreachable; the tests leave Neovim $version out" >&2
    return 0
  fi
  rm -rf "$out.tmp" && mkdir -p "$out.tmp/debs"
  if ! (cd "$out.tmp/debs" && apt-get -qq "${opts[@]}" download "neovim=$pkg" "neovim-runtime=$pkg" "$@"); then
    echo "neovim $version: Debian $suite does not have neovim $pkg any more; the tests leave Neovim $version out" >&2
    rm -rf "$out.tmp"
    return 0
  fi
  for d in "$out.tmp"/debs/*.deb; do
    dpkg-deb -x "$d" "$out.tmp/root"
  done
  # Run through the loader, nvim looks for its bundled parsers next to
  # it (usr/lib/lib/nvim); the packages put them in usr/lib/nvim.
  mkdir -p "$out.tmp/root/usr/lib/lib"
  ln -sfn ../nvim "$out.tmp/root/usr/lib/lib/nvim"
  cat >"$out.tmp/nvim" <<'EOF'
#!/bin/sh
R=$(dirname "$(readlink -f "$0")")/root
export VIMRUNTIME="$R/usr/share/nvim/runtime"
exec "$R/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path "$R/usr/lib/x86_64-linux-gnu" "$R/usr/bin/nvim" "$@"
EOF
  chmod +x "$out.tmp/nvim"
  rm -rf "$out.tmp/debs"
  "$out.tmp/nvim" --version | head -n 1
  rm -rf "$out" && mv "$out.tmp" "$out"
}

if [ "$(uname -m)" != x86_64 ] || ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
  echo "neovim: later releases are unpacked only on x86-64 Debian; the tests run the system's Neovim" >&2
  exit 0
fi

fetch 0.10.4 trixie 0.10.4-8+deb13u1 libc6 libluajit-5.1-2 libluajit-5.1-common libmsgpack-c2 \
  libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv libutf8proc3
fetch 0.12.4 sid 0.12.4-1 libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common libtree-sitter0.26 \
  libunibilium4 libuv1t64 lua-lpeg lua-luv libutf8proc3
