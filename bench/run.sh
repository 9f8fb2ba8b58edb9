#!/usr/bin/env bash
# Prints agent-ls's benchmarks next to its peers where they are installed.
# Usage: bench/run.sh [path/to/agent-ls]   (make bench builds it first)
# Numbers are printed, never asserted. The programs that measure a row of
# the closing summary also append it to $AGENT_LS_BENCH_ROWS (see
# bench/benchrow); bench/benchtable prints them as one table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-bin/agent-ls}")
AGENT_LS_BENCH_ROWS=$(mktemp "${TMPDIR:-/tmp}/agent-ls-bench-rows.XXXXXX")
export AGENT_LS_BENCH_ROWS
trap 'rm -f "$AGENT_LS_BENCH_ROWS"' EXIT
large_tree=$(scripts/bench-tree.sh)

echo "== spawn → initialize result, RSS after initialize"
servers=("$bin")
command -v gopls >/dev/null && servers+=(-- gopls)
command -v copilot-language-server >/dev/null && servers+=(-- copilot-language-server --stdio)
go run ./bench/inittime -runs 30 "${servers[@]}"
echo "   (RSS counts the binary's clean file pages the kernel maps; private memory is RssAnon, see /proc/PID/status)"

echo
echo "== model delta → agent/event, end to end through the server; the first delta of a turn; a fast stream into a slow editor"
go run ./bench/eventbench -bin "$bin"

echo
echo "== context assembly: agent/startTurn → the first model request, in an empty folder, Go's src and the large tree"
go run ./bench/contextbench -bin "$bin" -large "$large_tree" -n 10

echo
echo "== kept sessions: resuming 1,000 and 10,000 turns over LSP (agent/resumeSession) and ACP (session/load), recording a turn"
go run ./bench/sessionbench -bin "$bin"

echo
echo "== rewind checkpoints: cost per turn and disk in a 10,000-file workspace"
go run ./bench/checkpointbench

echo
echo "== sandbox: cost per command next to bubblewrap"
bench/sandbox.sh

echo
echo "== commands: the classic shell tool next to exec_command's round trip (start, yield, poll), through the real tools and sandbox"
go run ./bench/execbench -bin "$bin"

echo
echo "== @-mentions of 100,000 files: the first answer (MentionFirst, from the partial listing after 60 ms), the whole first listing (MentionWalk), each later keystroke (AGENT_LS_MENTION_TREE=DIR for a real tree)"
go test -run '^$' -bench 'Mention' -benchtime 5x ./internal/search/ | grep '^Benchmark'

echo
echo "== grep_files next to ripgrep"
bench/grep.sh "$bin"

echo
echo "== search and listing on the large tree (make bench-deps) next to rg, fd and find"
go run ./bench/treebench -dir "$large_tree" -n 10

echo
echo "== network proxy (network = \"ask\"): one 1 GiB CONNECT tunnel, and 100 parallel connections of 16 MiB each; peak heap"
go test -run '^$' -bench 'Tunnel' -benchtime 1x ./internal/netproxy/ | grep '^Benchmark'

echo
echo "== server memory while a command writes 1 GB to a slow editor and to one that reads nothing"
bench/output.sh

echo
echo "== server memory: a code action over a 50 MB document and its didClose, 300 × 2 MiB didChange, 50 MB of diagnostics, 1,000 open documents of 20 KB (PASS/FAIL against the ceilings)"
go run ./bench/bigmsgbench -bin "$bin"

echo
echo "== ACP: agent-ls acp next to Codex's adapter (npm @zed-industries/codex-acp) on the same fake model"
codex_acp=""
if command -v npm >/dev/null; then
	if [ ! -x .cache/codex-acp/node_modules/.bin/codex-acp-linux-x64 ]; then
		npm install --prefix .cache/codex-acp --no-audit --no-fund --no-save @zed-industries/codex-acp@0.16.0 >/dev/null 2>&1 || true
	fi
	[ -x .cache/codex-acp/node_modules/.bin/codex-acp-linux-x64 ] && codex_acp=$(realpath .cache/codex-acp/node_modules/.bin/codex-acp-linux-x64)
fi
[ -z "$codex_acp" ] && echo "   (Codex's adapter did not install: agent-ls alone)"
go build -o .cache/acpbench-nullagent ./bench/acpbench/nullagent
go run ./bench/acpbench -bin "$bin" ${codex_acp:+-codex-acp "$codex_acp"} -codex-home .cache/codex-home -floor .cache/acpbench-nullagent
echo "   (do-nothing: bench/acpbench/nullagent, a small Go program that answers and makes the one model request: the floor of this harness)"

echo
echo "== MCP: start-up with the official Go SDK's client next to agent-ls's own former client"
bench/mcp.sh "$bin"

echo
echo "== summary: agent-ls beside the best tool for each job, the ratio, the goal, and the load average (1 minute) when the row was measured"
go run ./bench/benchtable "$AGENT_LS_BENCH_ROWS"
