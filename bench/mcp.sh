#!/usr/bin/env bash
# MCP start-up: `agent-ls mcp list` with one stdio server (spawn, the MCP
# handshake, tools/list), this build next to the last build whose MCP client
# was agent-ls's own (before the official Go SDK), built the same way from
# the git history into .cache. Also spawn → initialize for both.
# Usage: bench/mcp.sh [path/to/agent-ls]   (make bench builds it first)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/agent-ls}")
# The last commit with agent-ls's own MCP client.
own=94bf8cc^
mkdir -p .cache
go build -o .cache/mcpbench-server ./bench/mcpbench/server
if [ ! -x .cache/agent-ls-ownmcp ]; then
	if git rev-parse --verify -q "$own^{commit}" >/dev/null; then
		rm -rf .cache/ownmcp-src
		git worktree add -q --detach .cache/ownmcp-src "$own"
		(cd .cache/ownmcp-src && make -s build BIN=../agent-ls-ownmcp >/dev/null) || true
		git worktree remove --force .cache/ownmcp-src
	fi
fi
bins=("$bin")
if [ -x .cache/agent-ls-ownmcp ]; then
	bins+=(.cache/agent-ls-ownmcp)
else
	echo "   (the build with agent-ls's own MCP client is not available: no git history)"
fi
echo "-- spawn → \`mcp list\` answered, one stdio server of 20 tools (.cache/agent-ls-ownmcp: agent-ls's own client)"
go run ./bench/mcpbench -runs 30 -server .cache/mcpbench-server "${bins[@]}"
if [ ${#bins[@]} -gt 1 ]; then
	echo "-- spawn → initialize result, no MCP server configured"
	go run ./bench/inittime -runs 30 "$bin" -- "$(realpath .cache/agent-ls-ownmcp)"
fi
