#!/bin/sh
# What the sandbox costs per command: `true` plainly, through the agent-ls
# sandbox helper (as the runner starts it, and as typed on the command line)
# and through bubblewrap, then the helper's cost phase by phase. Run from
# the repository root:
#
#   bench/sandbox.sh [runs]
#
# Needs cgo (gcc, pkg-config, libseccomp-dev); uses hyperfine if present for
# the command-line comparison.
set -eu
runs=${1:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The release recipe: a static binary, as agent-ls ships. Fall back to a
# dynamic one where the static libraries are missing.
if ! CGO_ENABLED=1 go build -tags netgo,osusergo \
	-ldflags '-linkmode external -extldflags "-static"' \
	-o "$tmp/sb" ./bench/sandboxbench 2>"$tmp/build.log"; then
	echo "static build failed, using a dynamic one:" >&2
	cat "$tmp/build.log" >&2
	CGO_ENABLED=1 go build -o "$tmp/sb" ./bench/sandboxbench
fi

echo "== through the runner (what the agent does), median of $runs runs each"
"$tmp/sb" -n "$runs"
echo
echo "== the same from a parent holding 512 MiB of heap"
"$tmp/sb" -n "$runs" -heap 512

if command -v hyperfine >/dev/null 2>&1; then
	echo
	echo "== as commands (hyperfine)"
	mkdir "$tmp/ws"
	cd "$tmp/ws"
	set -- "true" \
		"$tmp/sb sandbox -- true" \
		"$tmp/sb sandbox --no-namespace -- true"
	if command -v bwrap >/dev/null 2>&1; then
		set -- "$@" "bwrap --ro-bind / / --dev /dev --bind $tmp/ws $tmp/ws --unshare-net true"
	fi
	hyperfine -N --warmup 20 --runs "$runs" "$@"
fi
