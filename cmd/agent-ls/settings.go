package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// Settings are what agent-ls runs with. They are resolved from layers,
// each overriding the ones before it:
//
//	defaults < config file (to come) < environment < flags
//
// and, for an editor's connection, its initializationOptions over those.
// An empty field means agent-ls's own default, which the package owning
// the setting fills in (the agent for the model name and the policies,
// the model client for the wire API and the base URL).
type Settings struct {
	Model           string
	WireAPI         string
	BaseURL         string
	APIKey          string
	IdleTimeout     time.Duration
	ApprovalPolicy  policy.ApprovalPolicy
	SandboxMode     policy.SandboxMode
	ReasoningEffort string
	MaxRequests     int
	Network         bool
	WritableRoots   []string
	LogFile         string
	LogLevel        string
}

// layer is one source of settings; a nil field is one the source leaves
// alone. A config file decodes into one (its pointers tell a key set to
// its zero value from a key not given) and slots in between the defaults
// and the environment.
type layer struct {
	Model           *string
	WireAPI         *string
	BaseURL         *string
	APIKey          *string
	IdleTimeout     *time.Duration
	ApprovalPolicy  *policy.ApprovalPolicy
	SandboxMode     *policy.SandboxMode
	ReasoningEffort *string
	MaxRequests     *int
	Network         *bool
	WritableRoots   []string // nil: not set
	LogFile         *string
	LogLevel        *string
}

// resolveSettings applies layers in order, later ones winning.
func resolveSettings(layers ...*layer) Settings {
	var s Settings
	for _, l := range layers {
		l.apply(&s)
	}
	return s
}

func (l *layer) apply(s *Settings) {
	set(&s.Model, l.Model)
	set(&s.WireAPI, l.WireAPI)
	set(&s.BaseURL, l.BaseURL)
	set(&s.APIKey, l.APIKey)
	set(&s.IdleTimeout, l.IdleTimeout)
	set(&s.ApprovalPolicy, l.ApprovalPolicy)
	set(&s.SandboxMode, l.SandboxMode)
	set(&s.ReasoningEffort, l.ReasoningEffort)
	set(&s.MaxRequests, l.MaxRequests)
	set(&s.Network, l.Network)
	if l.WritableRoots != nil {
		s.WritableRoots = l.WritableRoots
	}
	set(&s.LogFile, l.LogFile)
	set(&s.LogLevel, l.LogLevel)
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// ptr is v as a set layer field.
func ptr[T any](v T) *T { return &v }

// defaultLogLevel keeps logs to warnings and errors: editors show every
// stderr line as an error.
const defaultLogLevel = "warn"

// defaultsLayer is what no source has to say: the settings whose default
// belongs to the command rather than to a package.
func defaultsLayer() *layer {
	return &layer{LogLevel: ptr(defaultLogLevel), MaxRequests: ptr(agent.DefaultMaxRequests)}
}

// agent-ls's own environment variables; the model package names those of
// the model server's connection. envStreamIdleTimeout is in milliseconds.
const (
	envModel             = "AGENT_LS_MODEL"
	envStreamIdleTimeout = "AGENT_LS_STREAM_IDLE_TIMEOUT_MS"
)

// envLayer reads agent-ls's environment variables, the one place they
// are read. A value is checked only when flags, which override it, leave
// it in force: a bad variable the user overrides on the command line is
// no error.
func envLayer(flags *layer) (*layer, error) {
	var l layer
	cfg := model.ConfigFromEnv()
	l.APIKey = nonEmpty(cfg.APIKey)
	l.BaseURL = nonEmpty(cfg.BaseURL)
	l.Model = nonEmpty(os.Getenv(envModel))
	if cfg.WireAPI != "" && flags.WireAPI == nil {
		w, err := parseWireAPI(cfg.WireAPI)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", model.EnvWireAPI, err)
		}
		l.WireAPI = &w
	}
	if v := os.Getenv(envStreamIdleTimeout); v != "" && flags.IdleTimeout == nil {
		d, err := parseIdleTimeout(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", envStreamIdleTimeout, err)
		}
		l.IdleTimeout = &d
	}
	return &l, nil
}

func nonEmpty(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

// register adds the flags shared by serve and exec; each is checked as it
// is parsed and sets its field of l.
func (l *layer) register(fs *flag.FlagSet) {
	fs.Func("model", "model `name` (env "+envModel+"; default gpt-5-codex)", func(v string) error { l.Model = &v; return nil })
	fs.Func("wire-api", "model `API`: responses or chat (env "+model.EnvWireAPI+"; default responses)", func(v string) error {
		w, err := parseWireAPI(v)
		l.WireAPI = &w
		return err
	})
	fs.Func("base-url", "model server base `URL`, e.g. http://127.0.0.1:11434/v1 (default $"+model.EnvBaseURL+" or OpenAI)", func(v string) error {
		l.BaseURL = nonEmpty(v) // empty: the environment's or OpenAI's
		return nil
	})
	fs.Func("approval-policy", "approval `policy`: untrusted, on-failure, on-request (default) or never", func(v string) error {
		p, err := policy.ParseApprovalPolicy(v)
		l.ApprovalPolicy = &p
		return err
	})
	fs.Func("sandbox", "sandbox `mode`: read-only, workspace-write (default) or danger-full-access", func(v string) error {
		m, err := policy.ParseSandboxMode(v)
		l.SandboxMode = &m
		return err
	})
	fs.Func("reasoning-effort", "reasoning `effort` for reasoning models: none, minimal, low, medium (default), high, xhigh or max", func(v string) error {
		e, err := parseReasoningEffort(v)
		l.ReasoningEffort = &e
		return err
	})
	fs.Func("max-requests", fmt.Sprintf("the most model requests in one turn, a `number` of at least 1 (default %d)", agent.DefaultMaxRequests), func(v string) error {
		n, err := parseMaxRequests(v)
		l.MaxRequests = &n
		return err
	})
	fs.Func("stream-idle-timeout", "abandon and retry a model stream silent for this `duration`, e.g. 90s (env "+envStreamIdleTimeout+" in milliseconds; default 300s)", func(v string) error {
		d, err := parseIdleTimeout(v)
		l.IdleTimeout = &d
		return err
	})
	fs.BoolFunc("network", "let sandboxed commands use the network", func(v string) error {
		b, err := strconv.ParseBool(v)
		l.Network = &b
		return err
	})
	fs.Func("writable-root", "a `folder` sandboxed commands may write besides the workspace (repeatable)", func(v string) error {
		abs, err := filepath.Abs(v)
		if err != nil {
			return err
		}
		l.WritableRoots = append(l.WritableRoots, abs)
		return nil
	})
	fs.Func("log-file", "write logs to this `file` (default stderr)", func(v string) error { l.LogFile = &v; return nil })
	fs.Func("log-level", "log `level`: debug, info, warn or error (default "+defaultLogLevel+")", func(v string) error { l.LogLevel = &v; return nil })
}

// parseSettings parses args into the flags registered on fs (with
// flags.register and the command's own), reads the environment and
// resolves the settings. done is true when the caller must return code at
// once: help was asked for, or a flag or variable is bad (reported with
// the usage line, status 2, as flag does).
func parseSettings(fs *flag.FlagSet, flags *layer, args []string, usage string, stderr io.Writer) (s Settings, code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return s, 0, true
		}
		return s, 2, true
	}
	env, err := envLayer(flags)
	if err != nil {
		return s, usageError(stderr, usage, err), true
	}
	// A config file layer goes between the defaults and the environment.
	return resolveSettings(defaultsLayer(), env, flags), 0, false
}

// logger opens the log destination. Logs never go to stdout: in serve
// mode stdout carries the protocol.
func (s *Settings) logger(stderr io.Writer) (*slog.Logger, func(), error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(s.LogLevel)); err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", s.LogLevel)
	}
	w, closeFn := stderr, func() {}
	if s.LogFile != "" {
		f, err := os.OpenFile(s.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		w, closeFn = f, func() { f.Close() }
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closeFn, nil
}

// modelConfig is the model client's configuration.
func (s *Settings) modelConfig() model.Config {
	return model.Config{WireAPI: s.WireAPI, BaseURL: s.BaseURL, APIKey: s.APIKey, IdleTimeout: s.IdleTimeout}
}
