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
}

type mcpServerResult struct {
	Name       string   `json:"name"`
	State      string   `json:"state"`
	Error      string   `json:"error,omitempty"`
	Tools      []string `json:"tools"`
	StderrTail string   `json:"stderrTail,omitempty"`
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
		res.Servers = append(res.Servers, r)
	}
	return res, nil
}
