#!/usr/bin/env bash
# Installs the Debian packages agent-ls needs to build and test, when they
# are missing. As root it runs apt-get; otherwise it prints the command.
set -euo pipefail

packages=(
  pkg-config libseccomp-dev   # the sandbox helper links libseccomp (cgo)
  git                         # tests create repositories
  emacs-nox elpa-eglot        # the editor tests drive Emacs with eglot in batch mode
  neovim                      # and bare Neovim, headless
  util-linux                  # setpriv: sandbox tests run again as nobody
  make tar sqlite3            # everyday work the sandbox tests run inside it
  python3 python3-venv python3-pytest
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
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
