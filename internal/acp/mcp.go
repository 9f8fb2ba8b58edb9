package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/mcp"
)

// MCPServer is an MCP server a client names for one session
// (session/new, session/load, session/resume): a command speaking MCP on
// its stdio, or the URL of a streamable-HTTP server.
type MCPServer struct {
	Name string
	// Command, Args and Env start a stdio server; Env is all it gets
	// besides the core environment (never agent-ls's API keys).
	Command string
	Args    []string
	Env     map[string]string
	// URL is a streamable-HTTP server, Headers go with every request.
	URL     string
	Headers map[string]string
}

// SessionServers are the running MCP servers of one session: their tools
// are the session's own (agent.SessionOptions.Tools). The ACP session
// that started them stops them: at session/close, when another
// session/load or session/resume names others, and when the connection
// ends.
type SessionServers interface {
	agent.SessionTools
	Close()
}

// mcpServers turns the client's list into ours. A server of a transport
// agent-ls does not offer (sse, acp) is reported through failed and left
// out.
func mcpServers(list []sdk.McpServer, failed func(name string, err error)) []MCPServer {
	var out []MCPServer
	for _, m := range list {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			var bad []string
			for _, e := range m.Stdio.Env {
				if e.Name == "" || strings.ContainsAny(e.Name, "=\x00") || strings.ContainsRune(e.Value, 0) {
					bad = append(bad, fmt.Sprintf("%q", e.Name))
					continue
				}
				env[e.Name] = e.Value
			}
			if len(bad) > 0 {
				failed(m.Stdio.Name, fmt.Errorf("env names no variable a process can have: %s", strings.Join(bad, ", ")))
				continue
			}
			out = append(out, MCPServer{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			headers := map[string]string{}
			for _, h := range m.Http.Headers {
				headers[h.Name] = h.Value
			}
			out = append(out, MCPServer{Name: m.Http.Name, URL: m.Http.Url, Headers: headers})
		case m.Sse != nil:
			failed(m.Sse.Name, fmt.Errorf("the sse transport is not supported (agent-ls takes stdio and http servers)"))
		case m.Acp != nil:
			failed(m.Acp.Name, fmt.Errorf("the acp transport is not supported (agent-ls takes stdio and http servers)"))
		}
	}
	return out
}

// startServers starts the servers a client named for one session and
// returns them (nil: none); what fails is logged, and told in the
// session through n.
func (s *server) startServers(a Agent, method, cwd string, list []sdk.McpServer, n *mcp.Notices) SessionServers {
	if len(list) == 0 {
		return nil
	}
	failed := func(name string, err error) {
		s.log.Warn("acp: an MCP server of the client is left out", "method", method, "server", name, "err", err)
		n.Add(fmt.Sprintf("agent-ls: MCP server %s: %v. Its tools are not offered in this session.", name, err))
	}
	servers := mcpServers(list, failed)
	if len(servers) == 0 {
		return nil
	}
	s.log.Info("acp: starting the client's MCP servers", "method", method, "servers", len(servers))
	return a.MCPServers(cwd, servers, failed)
}

// tellUser queues msg as the agent's text in session ss, on lines of its
// own.
func (s *server) tellUser(ss *session, msg string) {
	s.push(ss, sdk.UpdateAgentMessageText("\n"+msg+"\n"))
}

// tellAll tells msg in every session open on the connection.
func (s *server) tellAll(msg string) {
	for _, ss := range s.openSessions() {
		s.tellUser(ss, msg)
	}
}
