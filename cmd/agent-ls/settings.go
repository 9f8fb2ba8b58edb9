package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// settings are the flags shared by serve and exec.
type settings struct {
	model           string
	wireAPI         string
	baseURL         string
	approvalPolicy  policy.ApprovalPolicy
	sandboxMode     policy.SandboxMode
	reasoningEffort string
	maxRequests     int
	network         bool
	writableRoots   []string
	logFile         string
	logLevel        string
	idleTimeout     time.Duration
}

func (s *settings) register(fs *flag.FlagSet, defaultLogLevel string) {
	fs.StringVar(&s.model, "model", os.Getenv("AGENT_LS_MODEL"), "model name (env AGENT_LS_MODEL; default gpt-5-codex)")
	fs.StringVar(&s.wireAPI, "wire-api", os.Getenv("AGENT_LS_WIRE_API"), "model API: responses or chat (env AGENT_LS_WIRE_API; default responses)")
	fs.StringVar(&s.baseURL, "base-url", "", "model server base URL, e.g. http://127.0.0.1:11434/v1 (default $OPENAI_BASE_URL or OpenAI)")
	fs.Func("approval-policy", "untrusted, on-failure, on-request (default) or never", func(v string) error {
		p, err := policy.ParseApprovalPolicy(v)
		s.approvalPolicy = p
		return err
	})
	fs.Func("sandbox", "read-only, workspace-write (default) or danger-full-access", func(v string) error {
		m, err := policy.ParseSandboxMode(v)
		s.sandboxMode = m
		return err
	})
	s.maxRequests = agent.DefaultMaxRequests
	s.registerChecked(fs)
	fs.BoolVar(&s.network, "network", false, "let sandboxed commands use the network")
	fs.Func("writable-root", "a folder sandboxed commands may write besides the workspace (repeatable)", func(v string) error {
		abs, err := filepath.Abs(v)
		if err != nil {
			return err
		}
		s.writableRoots = append(s.writableRoots, abs)
		return nil
	})
	fs.StringVar(&s.logFile, "log-file", "", "write logs to this file (default stderr)")
	fs.StringVar(&s.logLevel, "log-level", defaultLogLevel, "debug, info, warn or error")
}

// logger opens the log destination. Logs never go to stdout: in serve
// mode stdout carries the protocol.
func (s *settings) logger(stderr io.Writer) (*slog.Logger, func(), error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(s.logLevel)); err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", s.logLevel)
	}
	w, closeFn := stderr, func() {}
	if s.logFile != "" {
		f, err := os.OpenFile(s.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		w, closeFn = f, func() { f.Close() }
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closeFn, nil
}

// modelClient builds the model client from the flags and the environment.
func (s *settings) modelClient() (model.Client, error) {
	cfg := model.ConfigFromEnv()
	if s.baseURL != "" {
		cfg.BaseURL = s.baseURL
	}
	if s.wireAPI != "" {
		cfg.WireAPI = strings.ToLower(s.wireAPI)
	}
	if s.idleTimeout > 0 {
		cfg.IdleTimeout = s.idleTimeout
	}
	return model.New(cfg)
}

// agentOptions are the manager options the flags determine.
func (s *settings) agentOptions(client model.Client, fe agent.Frontend, files agent.FileReader, log *slog.Logger) (agent.Options, error) {
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		return agent.Options{}, err
	}
	wire := s.wireAPI
	if wire == "" {
		wire = model.ConfigFromEnv().WireAPI
	}
	return agent.Options{
		Model:           client,
		Frontend:        fe,
		Tools:           reg,
		Files:           files,
		ModelName:       s.model,
		WireAPI:         wire,
		ApprovalPolicy:  s.approvalPolicy,
		SandboxMode:     s.sandboxMode,
		ReasoningEffort: s.reasoningEffort,
		MaxRequests:     s.maxRequests,
		NetworkAccess:   s.network,
		WritableRoots:   s.writableRoots,
		Logger:          log,
		SandboxSummary:  func() string { return sandbox.Probe().Summary() },
		HelperPath:      sandboxHelper(),
		// Where no sandbox confines commands, every one needs approval.
		SandboxUnavailable: func() string { return sandbox.Probe().Unavailable() },
	}, nil
}

// removeStaleMarkers deletes the placeholders a crashed agent-ls may have
// left over missing protected paths (.git, .agents, .agent-ls) in the
// workspace; they would otherwise stop `git init` there.
func removeStaleMarkers(cwd string, log *slog.Logger) {
	if cwd == "" {
		return
	}
	if err := sandbox.RemovePlaceholders(sandbox.Policy{Cwd: cwd}); err != nil {
		log.Warn("could not remove stale sandbox placeholders", "cwd", cwd, "err", err)
	}
}

// stopCommands ends the commands still running and everything they
// started, and removes the placeholders they relied on; serve and exec
// call it on every way out.
func stopCommands() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sandbox.Shutdown(ctx)
}

// sandboxHelper is the small agent-ls-sandbox binary next to this one, if
// it was installed: it starts in about a millisecond less than agent-ls
// itself, which every sandboxed command pays. Empty means agent-ls runs
// its own `sandbox` subcommand.
func sandboxHelper() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	helper := filepath.Join(filepath.Dir(self), "agent-ls-sandbox")
	if st, err := os.Stat(helper); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return ""
	}
	return helper
}
