#!/bin/sh
# Times grep_files against ripgrep over $(go env GOROOT)/src (or DIR),
# warm cache, in the same run, and prints the ratios. grep_files is called
# in-process through bench/grepbench, so the agent-ls binary ($1) is not
# needed; it is accepted for symmetry with the other bench scripts.
#
#   bench/grep.sh [agent-ls-binary] [DIR]
set -eu
cd "$(dirname "$0")/.."
dir=${2:-$(go env GOROOT)/src}
command -v rg >/dev/null || echo "rg not found: install ripgrep to get the comparison" >&2
exec go run ./bench/grepbench -dir "$dir" -n 5
