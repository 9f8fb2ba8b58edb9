package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/shared"

	"github.com/agent-ls/agent-ls/internal/model"
)

// The values the model API takes for reasoning effort (openai-go's
// shared.ReasoningEffort).
var reasoningEfforts = []shared.ReasoningEffort{
	shared.ReasoningEffortNone, shared.ReasoningEffortMinimal, shared.ReasoningEffortLow,
	shared.ReasoningEffortMedium, shared.ReasoningEffortHigh, shared.ReasoningEffortXhigh,
	shared.ReasoningEffortMax,
}

// envStreamIdleTimeout sets the stream idle timeout in milliseconds.
const envStreamIdleTimeout = "AGENT_LS_STREAM_IDLE_TIMEOUT_MS"

func parseReasoningEffort(v string) (string, error) {
	names := make([]string, len(reasoningEfforts))
	for i, e := range reasoningEfforts {
		if string(e) == v {
			return v, nil
		}
		names[i] = string(e)
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

// registerChecked adds the flags whose values are checked as they are
// parsed, and reads their environment variables.
func (s *settings) registerChecked(fs *flag.FlagSet) {
	fs.Func("reasoning-effort", "reasoning effort for reasoning models: none, minimal, low, medium (default), high, xhigh or max", func(v string) error {
		e, err := parseReasoningEffort(v)
		s.reasoningEffort = e
		return err
	})
	fs.Func("max-requests", fmt.Sprintf("most model requests in one turn, at least 1 (default %d)", s.maxRequests), func(v string) error {
		n, err := parseMaxRequests(v)
		s.maxRequests = n
		return err
	})
	fs.Func("stream-idle-timeout", "abandon and retry a model stream silent this long, e.g. 90s (env "+envStreamIdleTimeout+" in milliseconds; default 300s)", func(v string) error {
		d, err := parseIdleTimeout(v)
		s.idleTimeout = d
		return err
	})
}

// checkEnv checks the settings that came from the environment, which no
// flag overrode.
func (s *settings) checkEnv(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if s.wireAPI != "" {
		w, err := parseWireAPI(s.wireAPI)
		if err != nil {
			if set["wire-api"] {
				return fmt.Errorf("--wire-api: %w", err)
			}
			return fmt.Errorf("%s: %w", model.EnvWireAPI, err)
		}
		s.wireAPI = w
	}
	if v := os.Getenv(envStreamIdleTimeout); v != "" && !set["stream-idle-timeout"] {
		d, err := parseIdleTimeout(v)
		if err != nil {
			return fmt.Errorf("%s: %w", envStreamIdleTimeout, err)
		}
		s.idleTimeout = d
	}
	return nil
}

// usageError reports a usage error the way flag does: the problem, then
// the command's usage line; the exit status is 2.
func usageError(stderr io.Writer, usage string, err error) int {
	line, _, _ := strings.Cut(usage, "\n")
	fmt.Fprintf(stderr, "agent-ls: %v\n%s\nRun 'agent-ls help' for more.\n", err, line)
	return 2
}

// parseFlags parses args, checks the settings and reports a usage error
// (exit status 2) as flag does. done is true when the caller must return
// code at once.
func (s *settings) parseFlags(fs *flag.FlagSet, args []string, usage string, stderr io.Writer) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		return 2, true
	}
	if err := s.checkEnv(fs); err != nil {
		return usageError(stderr, usage, err), true
	}
	return 0, false
}

// waitingNotice is shown when agent-ls serves a terminal: someone ran it
// by hand, not an editor.
const waitingNotice = `agent-ls is a language server: it is now waiting for LSP messages on stdin,
as an editor sends them. To try it from a terminal instead:
  agent-ls demo            an offline, scripted session end to end
  agent-ls exec "PROMPT"   one turn in the current directory
Press Ctrl-D to quit.
`
