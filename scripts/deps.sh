#!/usr/bin/env bash
# Checks that Go is recent enough for go.mod, and installs the Debian
# packages agent-ls needs to build and test, when they are missing. As root
# it runs apt-get; otherwise it prints the command. Extra package names may
# be given as arguments (`make bench-deps` does).
#
# It needs neither make nor Go modules: on a bare machine, run it directly
# (as root, or with sudo) to get make and the rest.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
go="${GO:-go}"

# version_lt A B: whether Go version A (1.25.3, 1.26rc1) is older than B.
# A pre-release (rc, beta) is older than the release of its number.
version_lt() {
  local a="$1" b="$2"
  local an="${a%%[!0-9.]*}" bn="${b%%[!0-9.]*}"
  # Compare the numbers part by part (a missing part counts as 0).
  local IFS=.
  local -a ap=($an) bp=($bn)
  local i x y
  for i in 0 1 2; do
    x="${ap[i]:-0}" y="${bp[i]:-0}"
    if ((10#$x != 10#$y)); then
      ((10#$x < 10#$y))
      return
    fi
  done
  # Same number: only a pre-release of it is older than the release.
  [ "$a" != "$an" ] && [ "$b" = "$bn" ]
}

need_go="$(sed -n 's/^go[[:space:]]\{1,\}\([0-9][0-9.a-z]*\)[[:space:]]*$/\1/p' "$root/go.mod")"
if [ -z "$need_go" ]; then
  echo "agent-ls: no go line in $root/go.mod" >&2
  exit 1
fi
if ! command -v "$go" >/dev/null 2>&1; then
  echo "agent-ls: Go $need_go or newer is needed to build agent-ls, and there is no '$go' on PATH; get it from https://go.dev/dl/" >&2
  exit 1
fi
# Asked from the module's directory, go reports the toolchain it would
# really build with (GOTOOLCHAIN may switch to a newer one), or fails when
# it may not switch.
if ! version_out="$(cd "$root" && "$go" version 2>&1)"; then
  echo "agent-ls: '$go version' failed in $root:" >&2
  echo "$version_out" >&2
  echo "agent-ls: Go $need_go or newer is needed to build agent-ls; get it from https://go.dev/dl/" >&2
  exit 1
fi
have_go="$(sed -n 's/^go version \(devel \)\{0,1\}go\([0-9][0-9.a-z]*\).*/\2/p' <<<"$version_out")"
case "$version_out" in
  "go version devel "*) ;; # a development toolchain: newer than any release it could be compared with
  *)
    if [ -z "$have_go" ]; then
      echo "agent-ls: cannot read the Go version from: $version_out" >&2
      exit 1
    fi
    if version_lt "$have_go" "$need_go"; then
      echo "agent-ls: Go $have_go is too old: go.mod asks for Go $need_go or newer; get it from https://go.dev/dl/" >&2
      exit 1
    fi
    ;;
esac

packages=(
  pkg-config libseccomp-dev   # the sandbox helper links libseccomp (cgo)
  git                         # tests create repositories
  emacs-nox elpa-eglot        # the editor tests drive Emacs with eglot in batch mode
  neovim                      # and bare Neovim, headless
  util-linux                  # setpriv: sandbox tests run again as nobody
  tar sqlite3                 # everyday work the sandbox tests run inside it
  python3 python3-venv python3-pytest
  python3-pyte                # a terminal emulator: exec's tests check what the screen shows
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Programs that often come from elsewhere than a Debian package (a
# toolchain, nvm's Node): their package is asked for only when the program
# is not on PATH. gcc is cgo's compiler; make runs the build (and the
# sandbox tests run it inside the sandbox, as they run node and npm).
for pair in gcc:gcc make:make node:nodejs npm:npm; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -ne 0 ]; then
  echo "agent-ls: missing Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get update && sudo ${cmd[*]}" >&2
  exit 1
fi
echo "agent-ls: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
"${cmd[@]}"
