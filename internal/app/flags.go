package app

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// cmdFlags are the flags serve and exec share: a config layer (named
// flags and -c) and the settings only the command line has.
type cmdFlags struct {
	layer       config.Layer
	maxRequests int
	logFile     string
	logLevel    string
}

// defaultLogLevel keeps logs to warnings and errors: editors show every
// stderr line as an error.
const defaultLogLevel = "warn"

// agent-ls's own environment variables; the model package names those of
// the model server's connection. envStreamIdleTimeout is in milliseconds.
const (
	envModel             = "AGENT_LS_MODEL"
	envProfile           = "AGENT_LS_PROFILE"
	envStreamIdleTimeout = "AGENT_LS_STREAM_IDLE_TIMEOUT_MS"
)

// envLayer reads agent-ls's environment variables, the one place they
// are read. A value is checked only when flags, which override it, leave
// it in force: a bad variable the user overrides on the command line is
// no error.
func envLayer(flags *config.Layer) (*config.Layer, error) {
	l := &config.Layer{Source: "environment"}
	cfg := model.ConfigFromEnv()
	if v := os.Getenv(envModel); v != "" {
		l.Set("model", v, envModel)
	}
	if v := strings.TrimSpace(os.Getenv(envProfile)); v != "" {
		l.Set("profile", v, envProfile)
	}
	if cfg.BaseURL != "" {
		l.Set("model_providers."+config.ProviderOpenAI+".base_url", cfg.BaseURL, model.EnvBaseURL)
	}
	if _, set := flags.Provider["wire_api"]; cfg.WireAPI != "" && !set {
		w, err := parseWireAPI(cfg.WireAPI)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", model.EnvWireAPI, err)
		}
		l.SetProvider("wire_api", w, model.EnvWireAPI)
	}
	if _, set := flags.Provider["stream_idle_timeout_ms"]; !set {
		if v := os.Getenv(envStreamIdleTimeout); v != "" {
			d, err := parseEnvIdleTimeout(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", envStreamIdleTimeout, err)
			}
			l.SetProvider("stream_idle_timeout_ms", d.Milliseconds(), envStreamIdleTimeout)
		}
	}
	return l, nil
}

// register adds the flags shared by serve and exec; each is checked as it
// is parsed. The short names are Codex's.
func (f *cmdFlags) register(fs *flag.FlagSet) {
	l := &f.layer
	l.Source = "flags"
	f.maxRequests, f.logLevel = agent.DefaultMaxRequests, defaultLogLevel
	str := func(name, short, key, usage string, check func(string) error) {
		set := func(v string) error {
			if check != nil {
				if err := check(v); err != nil {
					return err
				}
			}
			l.Set(key, v, "--"+name)
			return nil
		}
		fs.Func(name, usage, set)
		if short != "" {
			fs.Func(short, "short for --"+name, set)
		}
	}
	str("model", "m", "model", "the `MODEL` to use (env "+envModel+"; default gpt-5-codex)", nil)
	str("profile", "p", "profile", "use the [profiles.`NAME`] table of the config file (env "+envProfile+")", nil)
	str("approval-policy", "a", "approval_policy", "approval `POLICY`: untrusted, on-failure, on-request (default) or never", func(v string) error {
		_, err := policy.ParseApprovalPolicy(v)
		return err
	})
	str("sandbox", "s", "sandbox_mode", "sandbox `MODE`: read-only, workspace-write (default) or danger-full-access", func(v string) error {
		_, err := policy.ParseSandboxMode(v)
		return err
	})
	str("reasoning-effort", "", "model_reasoning_effort", "reasoning `EFFORT` for reasoning models: none, minimal, low, medium (default), high, xhigh or max", func(v string) error {
		_, err := parseReasoningEffort(v)
		return err
	})
	fs.Func("c", "override a config `KEY=VALUE` (a dotted key and a TOML value, e.g. -c model_providers.openai.base_url=\"http://127.0.0.1:8080/v1\"; repeatable)", func(v string) error {
		tree, err := config.Override(v)
		if err != nil {
			return err
		}
		l.Merge(tree, "-c "+v)
		return nil
	})
	f.registerProvider(fs)
	fs.Var(networkFlag{l}, "network", "the network of sandboxed commands, a `MODE`: off, ask (each host asked, through agent-ls's proxy) or on; --network alone means on")
	var roots []any
	fs.Func("writable-root", "a `DIR` sandboxed commands may write besides the workspace (repeatable; replaces the config's writable_roots)", func(v string) error {
		abs, err := filepath.Abs(v)
		if err != nil {
			return err
		}
		roots = append(roots, abs)
		l.Set("sandbox_workspace_write.writable_roots", roots, "--writable-root")
		return nil
	})
	fs.Func("max-requests", fmt.Sprintf("the most model requests in one turn, a `NUMBER` of at least 1 (default %d)", agent.DefaultMaxRequests), func(v string) error {
		n, err := parseMaxRequests(v)
		f.maxRequests = n
		return err
	})
	fs.Func("log-file", "write logs to this `FILE` (default stderr)", func(v string) error { f.logFile = v; return nil })
	fs.Func("log-level", "log `LEVEL`: debug, info, warn or error (default "+defaultLogLevel+")", func(v string) error { f.logLevel = v; return nil })
}

// registerProvider adds the flags that change the provider in use.
func (f *cmdFlags) registerProvider(fs *flag.FlagSet) {
	l := &f.layer
	fs.Func("wire-api", "model `API` of the provider in use: responses or chat (env "+model.EnvWireAPI+")", func(v string) error {
		w, err := parseWireAPI(v)
		l.SetProvider("wire_api", w, "--wire-api")
		return err
	})
	fs.Func("base-url", "base `URL` of the provider in use, e.g. http://127.0.0.1:11434/v1 (default: the provider's; $"+model.EnvBaseURL+" for openai)", func(v string) error {
		if v == "" {
			return nil // the provider's own
		}
		if _, err := config.Override("model_providers.x.base_url=" + strconv.Quote(v)); err != nil {
			return fmt.Errorf("%q is not an http(s) URL", v)
		}
		l.SetProvider("base_url", v, "--base-url")
		return nil
	})
	fs.Func("stream-idle-timeout", "abandon and retry a model stream silent for this `duration`, with its unit: 90s, 5m (a bare number is an error; env "+envStreamIdleTimeout+", in milliseconds without a unit; default 300s)", func(v string) error {
		d, err := parseDuration(v, false)
		l.SetProvider("stream_idle_timeout_ms", d.Milliseconds(), "--stream-idle-timeout")
		return err
	})
}

// newFlagSet is the flag set of a command that resolves settings, with
// the flags they share (cmdFlags) registered; parseSettings parses it.
func newFlagSet(name string) (*flag.FlagSet, *cmdFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	flags := &cmdFlags{}
	flags.register(fs)
	return fs, flags
}

// parseSettings parses args into the flags registered on fs (with
// flags.register and the command's own) and reads the environment. done
// is true when the caller must return code at once: help was asked for,
// or a flag or variable is bad (see parseFlags).
func parseSettings(fs *flag.FlagSet, flags *cmdFlags, args []string, usage string, stdout, stderr io.Writer) (r *resolver, code int, done bool) {
	if code, done := parseFlags(fs, args, usage, stdout, stderr); done {
		return nil, code, true
	}
	env, err := envLayer(&flags.layer)
	if err != nil {
		return nil, usageError(stderr, usage, err), true
	}
	return &resolver{userFile: config.UserFile(), env: env, flags: flags}, 0, false
}

// networkFlag is --network[=off|ask|on]; alone it means on.
type networkFlag struct{ l *config.Layer }

func (f networkFlag) String() string   { return "" }
func (f networkFlag) IsBoolFlag() bool { return true }

func (f networkFlag) Set(v string) error {
	if b, err := strconv.ParseBool(v); err == nil {
		v = string(policy.NetworkOff)
		if b {
			v = string(policy.NetworkOn)
		}
	}
	m, err := policy.ParseNetworkMode(v)
	if err != nil || v == "" {
		return fmt.Errorf("want off, ask or on")
	}
	f.l.Set("sandbox_workspace_write.network", string(m), "--network")
	return nil
}
