package app

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/hooks"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// Settings are what agent-ls runs with: the configuration resolved from
// its layers (internal/config: defaults < user file < project file <
// profile < environment < editor settings < flags and -c), the API key
// its provider names (read where the model client is made), and what
// only the command line sets.
type Settings struct {
	*config.Resolved
	MaxRequests int
	LogFile     string
	LogLevel    string
}

// resolver resolves the settings of a command, for its workspace and,
// in serve, the editor's settings, as often as they change.
type resolver struct {
	loader   config.Loader
	userFile string
	env      *config.Layer
	flags    *cmdFlags
}

// resolve works out the settings for the workspace at projectRoot ("" for
// none) under the editor's settings (nil for none). The problems are for
// the user; the settings are usable whatever they say.
func (r *resolver) resolve(projectRoot string, editor *config.Layer) (Settings, []config.Problem) {
	res, probs := r.loader.Load(config.Inputs{UserFile: r.userFile, ProjectRoot: projectRoot, Env: r.env, Editor: editor, Flags: &r.flags.layer})
	return Settings{Resolved: res, MaxRequests: r.flags.maxRequests, LogFile: r.flags.logFile, LogLevel: r.flags.logLevel}, probs
}

// logger opens the log the flags name, known before any config file is
// read (see Settings.logger).
func (r *resolver) logger(stderr io.Writer) (*slog.Logger, func(), error) {
	s := Settings{LogFile: r.flags.logFile, LogLevel: r.flags.logLevel}
	return s.logger(stderr)
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
		// Logs hold prompts, paths, commands and what servers said: the
		// file is the user's alone. One that exists with wider
		// permissions is narrowed too (a regular file only: a terminal or
		// a pipe given as the log is left as it is).
		f, err := os.OpenFile(s.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
			if err := f.Chmod(fi.Mode().Perm() &^ 0o077); err != nil {
				f.Close()
				return nil, nil, fmt.Errorf("--log-file: %s is readable by others and cannot be made private: %w", s.LogFile, err)
			}
		}
		w, closeFn = f, func() { f.Close() }
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closeFn, nil
}

// modelConfig is the model client's configuration for the provider in use.
func (s *Settings) modelConfig() model.Config { return s.modelConfigFor(s.ModelProvider) }

// modelConfigFor is the model client's configuration for provider id, one
// of the configured providers.
func (s *Settings) modelConfigFor(id string) model.Config {
	p := s.ModelProviders[id]
	c := model.Config{
		Provider:       id,
		WireAPI:        p.WireAPI,
		BaseURL:        p.BaseURL,
		EnvKey:         p.EnvKey,
		Headers:        p.HTTPHeaders,
		EnvHTTPHeaders: p.EnvHTTPHeaders,
		QueryParams:    p.QueryParams,
		UserAgent:      "agent-ls/" + version,
	}
	if p.EnvKey != "" {
		c.APIKey = strings.TrimSpace(os.Getenv(p.EnvKey))
	}
	if id == config.ProviderOpenAI {
		// The built-in provider pointed elsewhere (OPENAI_BASE_URL at a
		// local server) needs no key; the client still requires one for
		// OpenAI's own endpoint, and says how to set it.
		c.EnvKey = ""
	}
	if p.StreamIdleTimeoutMs != nil {
		c.IdleTimeout = msDuration(*p.StreamIdleTimeoutMs)
	}
	// The config's 0 is "no retries"; the client's 0 is its default.
	if n := p.RequestMaxRetries; n != nil {
		c.RequestMaxRetries = retries(*n)
	}
	if n := p.StreamMaxRetries; n != nil {
		c.StreamMaxRetries = retries(*n)
	}
	return c
}

func retries(n int64) int {
	if n == 0 {
		return -1
	}
	return int(n)
}

// agentDefaults are the settings every new session starts with.
func (s *Settings) agentDefaults() agent.Defaults {
	var off []string
	if !s.Tools.ViewImage {
		off = append(off, "view_image")
	}
	if !s.Tools.UpdatePlan {
		off = append(off, "update_plan")
	}
	return agent.Defaults{
		ModelName:        s.Model,
		Provider:         s.ModelProvider,
		ApprovalPolicy:   s.ApprovalPolicy,
		SandboxMode:      s.SandboxMode,
		ReasoningEffort:  s.ModelReasoningEffort,
		ReasoningSummary: s.ModelReasoningSummary,
		Verbosity:        s.ModelVerbosity,
		WebSearch:        s.Tools.WebSearch,
		UnifiedExec:      s.UseUnifiedExec,
		DisabledTools:    off,
		MaxRequests:      s.MaxRequests,

		ContextWindow:         s.ModelContextWindow,
		AutoCompactTokenLimit: s.ModelAutoCompactTokenLimit,
		NetworkAccess:         s.SandboxWorkspaceWrite.NetworkMode() == policy.NetworkOn,
		NetworkMode:           s.SandboxWorkspaceWrite.NetworkMode(),
		AllowedDomains:        s.SandboxWorkspaceWrite.AllowedDomains,
		DeniedDomains:         s.SandboxWorkspaceWrite.DeniedDomains,
		WritableRoots:         s.SandboxWorkspaceWrite.WritableRoots,

		ExcludeTmpdirEnvVar:     s.SandboxWorkspaceWrite.ExcludeTmpdirEnvVar,
		ExcludeSlashTmp:         s.SandboxWorkspaceWrite.ExcludeSlashTmp,
		CacheRoot:               s.SandboxWorkspaceWrite.CacheRoot,
		AllowProjectSockets:     s.SandboxWorkspaceWrite.AllowProjectSockets,
		AllowHomeWorkspace:      s.AllowHomeWorkspace,
		ContextWarningPercent:   s.ContextWarningPercent,
		RateLimitWarningPercent: s.RateLimitWarningPercent,
		// The config's default is 10000; 0 (no config at all) is the
		// agent's default, the same.
		LanguageQueryTimeout: msDuration(s.LanguageQueryTimeoutMs),
		OwnFiles:             s.ownFiles(),
		// The zero policy is the default: everything but what looks
		// like a secret.
		ShellEnvironmentPolicy: s.ShellEnvironmentPolicy.Policy(),
	}
}

// hookRunner runs the user's [[hooks]].
func (s *Settings) hookRunner() (*hooks.Runner, error) {
	hs := make([]hooks.Hook, len(s.Hooks))
	for i, h := range s.Hooks {
		hs[i] = hooks.Hook{Event: hooks.Event(h.Event), Tools: h.Tools, Command: h.Command, Timeout: msDuration(h.TimeoutMs)}
	}
	return hooks.New(hs)
}

// projectDocBudget is the agent's AGENTS.md budget: the config's 0 turns
// AGENTS.md off, which the agent spells as negative.
func (s *Settings) projectDocBudget() int {
	if s.ProjectDocMaxBytes <= 0 {
		return -1
	}
	return int(s.ProjectDocMaxBytes)
}
