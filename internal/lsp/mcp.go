package lsp

import "strings"

// methodListMCPServers lists the MCP servers (protocol section 2).
const methodListMCPServers = "agent/listMcpServers"

// MCPServer is an MCP server as agent/listMcpServers shows it.
type MCPServer struct {
	Name string
	// State is starting, ready or failed; Error says why it failed.
	State string
	Error string
	// Tools are the server's names of the tools it offers.
	Tools []string
	// StderrTail are the last lines a stdio server wrote to stderr.
	StderrTail []string
	// Prompts are the server's prompt templates, run as
	// /<server>:<prompt> in agent/startTurn.
	Prompts []MCPPrompt
}

// MCPPrompt is a prompt template of an MCP server.
type MCPPrompt struct {
	Name        string              `json:"name"`
	Description string              `json:"description,omitempty"`
	Arguments   []MCPPromptArgument `json:"arguments"`
}

// MCPPromptArgument is an argument of an MCPPrompt.
type MCPPromptArgument struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

type mcpServerResult struct {
	Name       string      `json:"name"`
	State      string      `json:"state"`
	Error      string      `json:"error,omitempty"`
	Tools      []string    `json:"tools"`
	Prompts    []MCPPrompt `json:"prompts"`
	StderrTail string      `json:"stderrTail,omitempty"`
}

type listMCPServersResult struct {
	Servers []mcpServerResult `json:"servers"`
}

// listMCPServers answers agent/listMcpServers.
func (s *server) listMCPServers() (any, error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	res := listMCPServersResult{Servers: []mcpServerResult{}}
	for _, m := range a.ListMCPServers() {
		r := mcpServerResult{Name: m.Name, State: m.State, Error: m.Error, Tools: m.Tools, StderrTail: strings.Join(m.StderrTail, "\n")}
		if r.Tools == nil {
			r.Tools = []string{}
		}
		r.Prompts = make([]MCPPrompt, 0, len(m.Prompts))
		for _, p := range m.Prompts {
			if p.Arguments == nil {
				p.Arguments = []MCPPromptArgument{}
			}
			r.Prompts = append(r.Prompts, p)
		}
		res.Servers = append(res.Servers, r)
	}
	return res, nil
}
