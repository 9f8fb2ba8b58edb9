package app

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/lsp"
	"github.com/agent-ls/agent-ls/internal/mcp"
	kept "github.com/agent-ls/agent-ls/internal/session"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// mcpServers turns the config's [mcp_servers.<name>] tables into the
// servers to start, sorted by name. Servers turned off (enabled = false)
// are named in off; a server that cannot start as configured (its bearer
// token variable is unset) is left out with a problem for the user.
func (s *Settings) mcpServers() (cfgs []mcp.ServerConfig, off []string, problems []string) {
	if s.Resolved == nil {
		return nil, nil, nil
	}
	for _, name := range sortedNames(s.MCPServers) {
		m := s.MCPServers[name]
		if m.Enabled != nil && !*m.Enabled {
			off = append(off, name)
			continue
		}
		c, problem := mcpServerConfig(name, m)
		if problem != "" {
			problems = append(problems, problem)
			continue
		}
		cfgs = append(cfgs, c)
	}
	return cfgs, off, problems
}

// mcpServerConfig is the server of the config's [mcp_servers.<name>]
// table, or the problem that keeps it from starting.
func mcpServerConfig(name string, m config.MCPServer) (mcp.ServerConfig, string) {
	c := mcp.ServerConfig{
		Name: name, Command: m.Command, Args: m.Args, Env: m.Env, Cwd: m.Cwd,
		URL: m.URL, HTTPHeaders: m.HTTPHeaders, Transport: m.Transport,
		StartupTimeout: seconds(m.StartupTimeoutSec), ToolTimeout: seconds(m.ToolTimeoutSec),
		EnabledTools: m.EnabledTools, DisabledTools: m.DisabledTools,
		AutoApprove:   m.Approval == config.MCPApprovalAuto,
		OAuthClientID: m.OAuthClientID, LogLevel: m.LogLevel,
	}
	if v := m.BearerTokenEnvVar; v != "" {
		c.BearerToken = strings.TrimSpace(os.Getenv(v))
		if c.BearerToken == "" {
			return c, fmt.Sprintf("MCP server %q is not started: its bearer_token_env_var %s is not set", name, v)
		}
	}
	if v := m.OAuthClientSecretEnvVar; v != "" {
		// Needed by the login alone: the stored token keeps the secret
		// that refreshes it.
		c.OAuthClientSecret = strings.TrimSpace(os.Getenv(v))
	}
	if err := c.Validate(); err != nil {
		return c, err.Error()
	}
	return c, ""
}

// mcpAuthDir is where `agent-ls mcp login` keeps tokens: mcp-auth in
// agent-ls's state folder ($XDG_STATE_HOME/agent-ls, by default
// ~/.local/state/agent-ls), beside the sessions; "" when there is no
// home to put it in.
func mcpAuthDir() string {
	dir, err := kept.DefaultDir()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(dir), mcp.AuthDirName)
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// seconds is a timeout of the config (seconds, fractions allowed); 0 for
// none, which takes the default.
func seconds(v *float64) time.Duration {
	if v == nil || *v <= 0 || math.IsNaN(*v) {
		return 0
	}
	return time.Duration(*v * float64(time.Second))
}

// newMCPSet makes the set of the configured servers; promptsChanged,
// when set, is told when their prompts change.
func newMCPSet(s Settings, reg *tools.Registry, notices *mcp.Notices, log *slog.Logger, promptsChanged func()) (*mcp.Set, error) {
	cfgs, _, problems := s.mcpServers()
	for _, p := range problems {
		notices.Add("agent-ls: " + p)
	}
	if len(cfgs) == 0 {
		return nil, nil
	}
	return mcp.NewSet(cfgs, mcp.Options{
		Registry:       reg,
		Logger:         log,
		ClientVersion:  version,
		PromptsChanged: promptsChanged,
		AuthDir:        mcpAuthDir(),
		Failed: func(server string, err error) {
			notices.Add(fmt.Sprintf("agent-ls: MCP server %s: %v", server, err))
		},
	})
}

// mcpStatuses is the servers' status as the language server shows it.
func mcpStatuses(set *mcp.Set) []lsp.MCPServer {
	if set.Empty() {
		return []lsp.MCPServer{}
	}
	set.Start()
	var out []lsp.MCPServer
	prompts := lspPrompts(set)
	for _, st := range set.Status() {
		out = append(out, lsp.MCPServer{Name: st.Name, State: string(st.State), Error: st.Error, Tools: st.Tools, StderrTail: st.StderrTail,
			Prompts: prompts[st.Name]})
	}
	return out
}
