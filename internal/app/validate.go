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

// parseIdleTimeout reads a duration ("90s", "5m") or, without a unit,
// milliseconds.
func parseIdleTimeout(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		ms, merr := strconv.ParseInt(v, 10, 64)
		if merr != nil {
			return 0, fmt.Errorf("%q: give a duration such as 90s or 5m, or milliseconds", v)
		}
		d = time.Duration(ms) * time.Millisecond
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: the timeout must be positive", v)
	}
	return d, nil
}

// usageError reports a usage error the way flag does: the problem, then
// the command's usage line; the exit status is 2.
func usageError(stderr io.Writer, usage string, err error) int {
	line, _, _ := strings.Cut(usage, "\n")
	fmt.Fprintf(stderr, "agent-ls: %v\n%s\nRun 'agent-ls help' for more.\n", err, line)
	return 2
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
