#!/usr/bin/env bash
# Installs code-server (VS Code in the browser) for the VS Code extension's
# tests into a cache folder, once: a later run finds it there. The versions
# come from the lockfile in editors/vscode/test/code-server (code-server
# 4.100.3 = VS Code 1.100.3, the newest release that runs on Node 20).
#
#   scripts/code-server.sh DIR     -> DIR/node_modules/.bin/code-server
#
# Its install scripts would download ripgrep from GitHub; the download
# cache they look in first is filled with Debian's rg instead. Its native
# modules build with node-gyp against the local Node headers.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/editors/vscode/test/code-server"
dir="${1:?usage: code-server.sh DIR}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
bin="$dir/node_modules/.bin/code-server"
stamp="$dir/.installed-$(sha256sum "$src/package-lock.json" | cut -c1-16)"
if [ -x "$bin" ] && [ -f "$stamp" ]; then
  exit 0
fi
rg="$(command -v rg || true)"
if [ -z "$rg" ]; then
  echo "code-server.sh: rg (Debian package ripgrep) is needed" >&2
  exit 1
fi
tmp="$dir/tmp"
mkdir -p "$tmp/vscode-ripgrep-cache-1.15.11" "$dir/home"
cp "$rg" "$tmp/rg"
tar -C "$tmp" -czf "$tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
rm "$tmp/rg"
cp "$src/package.json" "$src/package-lock.json" "$dir/"
rm -f "$dir"/.installed-*
echo "code-server.sh: installing code-server into $dir (about a minute)" >&2
# unsafe_perm: its postinstall refuses to run as root without it; yes:
# node-pty's postinstall calls npx.
if ! (cd "$dir" && TMPDIR="$tmp" npm_config_yes=true npm_config_unsafe_perm=true \
  npm ci --no-audit --no-fund --foreground-scripts >install.log 2>&1); then
  tail -40 "$dir/install.log" >&2
  exit 1
fi
HOME="$dir/home" "$bin" --version >&2
touch "$stamp"
