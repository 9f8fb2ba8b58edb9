// Package mcp connects agent-ls to MCP (Model Context Protocol) servers and
// offers their tools to the model beside the built-in ones.
//
// A Set is started from a list of ServerConfigs (the user's
// [mcp_servers.<name>] tables, or any other list a front end is given):
// Start launches every server in parallel without waiting, Ready waits for
// those still starting (each within its startup timeout), and each server
// that runs registers its tools in a tools.Registry as one source, named
// `<server>__<tool>` (see ToolName). A server's
// notifications/tools/list_changed replaces its tools for the next model
// request.
//
// A stdio server gets only the environment its config gives it over a
// minimal base (PATH, HOME, LANG and a few like them; see ServerEnv),
// never agent-ls's own (API keys); its stderr is kept, the last lines of
// it shown in its Status. A call is validated by the registry, approved
// through tools.Approver.Tool (a tool annotated read-only needs no
// approval), and made with the server's tool timeout; a timeout or a
// crash is an error output for the model and the server is restarted on
// its next use, after a backoff, and given up for the session after
// MaxFailures failures in a row.
//
// The client is the official MCP Go SDK (github.com/modelcontextprotocol/go-sdk),
// not mcp-go: mcp-go's client imports its server package, which imports a
// JSON-Schema library whose package init compiles its metaschemas, some
// 4.5 ms at every start of agent-ls whether MCP is configured or not; the
// SDK's package init is under a millisecond. mcp-go serves only as the
// servers of this package's tests.
package mcp
