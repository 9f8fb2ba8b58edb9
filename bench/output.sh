#!/usr/bin/env bash
# Peak memory of the server while a command writes 1 GB, toward a slow
# editor and one that reads nothing, for this tree and (when a git ref is
# given) for that ref, built side by side and measured in the same run.
# Usage: bench/output.sh [BASE_REF] [BYTES]
# Numbers are printed, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-}
bytes=${2:-1000000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agent-ls" ./cmd/agent-ls
bins=(-bin "$tmp/agent-ls")
if [ -n "$base" ]; then
  mkdir -p "$tmp/base"
  git archive "$base" | tar -x -C "$tmp/base"
  (cd "$tmp/base" && go build -o "$tmp/agent-ls-base" ./cmd/agent-ls)
  bins+=(-bin "$tmp/agent-ls-base")
fi
go run ./bench/outputbench -bytes "$bytes" "${bins[@]}"
