package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"
)

// Defaults of a server's timeouts (Codex's).
const (
	DefaultStartupTimeout = 10 * time.Second
	DefaultToolTimeout    = 60 * time.Second
)

// ServerConfig is one MCP server: either a command speaking MCP on its
// stdio or the URL of a streamable-HTTP (or older HTTP+SSE) server.
type ServerConfig struct {
	// Name identifies the server; its tools are offered as
	// <Name>__<tool>.
	Name string

	// Command, Args, Env and Cwd start a stdio server. Env is all the
	// server gets besides the base of ServerEnv.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	// URL is a streamable-HTTP server; HTTPHeaders go with every request,
	// and BearerToken, when set, as "Authorization: Bearer <token>".
	URL         string
	HTTPHeaders map[string]string
	BearerToken string
	// OAuthClientID and OAuthClientSecret are a client registered
	// beforehand with the server's authorization server, which `agent-ls
	// mcp login` uses; without them it registers one dynamically.
	OAuthClientID     string
	OAuthClientSecret string
	// Transport of the URL server: TransportStreamableHTTP,
	// TransportSSE, or "" for streamable HTTP with the fallback to
	// HTTP+SSE of MCP's backwards compatibility.
	Transport string

	// StartupTimeout bounds the start and the first tools/list, and
	// ToolTimeout each call; zero takes the defaults.
	StartupTimeout time.Duration
	ToolTimeout    time.Duration

	// EnabledTools, when not nil, names the only tools offered;
	// DisabledTools names tools never offered. Both use the server's own
	// tool names.
	EnabledTools  []string
	DisabledTools []string

	// AutoApprove lets the server's tools run without asking, unattended
	// runs included (the user's approval = "auto").
	AutoApprove bool

	// LogLevel is the least severe of the server's log messages asked
	// for and logged (logging.go): an MCP log level, "" for
	// DefaultLogLevel.
	LogLevel string
}

// Stdio reports whether the server is started as a command.
func (c *ServerConfig) Stdio() bool { return c.Command != "" }

// Validate says what is wrong with c, if anything.
func (c *ServerConfig) Validate() error {
	var errs []error
	switch {
	case c.Name == "":
		errs = append(errs, errors.New("the server has no name"))
	case c.Command != "" && c.URL != "":
		errs = append(errs, errors.New("set either command (a local server) or url (a remote one), not both"))
	case c.Command == "" && c.URL == "":
		errs = append(errs, errors.New("set command (a local server) or url (a remote one)"))
	case c.URL != "":
		if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("url %q is not an http(s) URL", c.URL))
		}
	}
	switch {
	case c.Transport != "" && c.Stdio():
		errs = append(errs, fmt.Errorf("transport %q is for a url server; a command server speaks MCP on its stdio", c.Transport))
	case c.Transport != "" && c.Transport != TransportStreamableHTTP && c.Transport != TransportSSE:
		errs = append(errs, fmt.Errorf("unknown transport %q (use %s or %s)", c.Transport, TransportStreamableHTTP, TransportSSE))
	}
	if err := checkLogLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	if (c.OAuthClientID != "" || c.OAuthClientSecret != "") && c.Stdio() {
		errs = append(errs, errors.New("an OAuth client is for a url server; a command server needs no login"))
	}
	if c.OAuthClientSecret != "" && c.OAuthClientID == "" {
		errs = append(errs, errors.New("an OAuth client secret without a client id"))
	}
	if c.StartupTimeout < 0 || c.ToolTimeout < 0 {
		errs = append(errs, errors.New("timeouts must be more than 0"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("MCP server %q: %w", c.Name, err)
	}
	return nil
}

func (c *ServerConfig) startupTimeout() time.Duration {
	if c.StartupTimeout <= 0 {
		return DefaultStartupTimeout
	}
	return c.StartupTimeout
}

func (c *ServerConfig) toolTimeout() time.Duration {
	if c.ToolTimeout <= 0 {
		return DefaultToolTimeout
	}
	return c.ToolTimeout
}

// offers reports whether the server's tool named tool is offered.
func (c *ServerConfig) offers(tool string) bool {
	if c.EnabledTools != nil && !slices.Contains(c.EnabledTools, tool) {
		return false
	}
	return !slices.Contains(c.DisabledTools, tool)
}
