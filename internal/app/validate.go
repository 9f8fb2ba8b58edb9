package app

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/model"
)

func parseReasoningEffort(v string) (string, error) {
	names := model.ReasoningEfforts()
	if slices.Contains(names, v) {
		return v, nil
	}
	return "", fmt.Errorf("%q is not a reasoning effort: use %s", v, strings.Join(names, ", "))
}

func parseMaxRequests(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q: give a whole number of at least 1", v)
	}
	return n, nil
}

func parseWireAPI(v string) (string, error) {
	switch w := strings.ToLower(v); w {
	case model.WireResponses, model.WireChat:
		return w, nil
	}
	return "", fmt.Errorf("%q is not a model API: use %s or %s", v, model.WireResponses, model.WireChat)
}

// parseEnvIdleTimeout reads AGENT_LS_STREAM_IDLE_TIMEOUT_MS: a
// duration ("90s") or, as the variable's name says, milliseconds.
func parseEnvIdleTimeout(v string) (time.Duration, error) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		if ms <= 0 {
			return 0, fmt.Errorf("%q: the timeout must be positive", v)
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	return parseDuration(v, false)
}

// usageError reports a usage error: the problem, the command's usage
// line and where its help is; the exit status is 2.
func usageError(stderr io.Writer, usage string, err error) int {
	line, _, _ := strings.Cut(usage, "\n")
	cmd := usageCommand(line)
	fmt.Fprintf(stderr, "agent-ls %s: %v\n%s\nRun 'agent-ls help %s' for its flags.\n", cmd, err, line, cmd)
	return 2
}

// usageCommand is the command a usage line is of: "exec" of
// "Usage: agent-ls exec [flags] PROMPT", "serve" of "agent-ls [serve]",
// "mcp" of "agent-ls mcp list".
func usageCommand(line string) string {
	f := strings.Fields(line)
	if len(f) < 3 {
		return "serve"
	}
	return strings.Trim(f[2], "[]")
}

// waitingNotice is shown when agent-ls serves a terminal: someone ran it
// by hand, not an editor.
const waitingNotice = `agent-ls is a language server: it is now waiting for LSP messages on stdin,
as an editor sends them. To try it from a terminal instead:
  agent-ls demo            an offline, scripted session end to end
  agent-ls exec "PROMPT"   one turn in the current directory
Press Ctrl-D to quit.
`

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
