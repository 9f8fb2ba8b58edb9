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
// The client is this package's own (jsonrpc.go, protocol.go, stdio.go,
// http.go): JSON-RPC 2.0 over stdio or streamable HTTP, the initialize
// handshake of MCP 2025-11-25 (answered with any version down to
// 2024-11-05), tools/list, tools/call and list_changed, which is all
// agent-ls uses. The official MCP Go SDK did the same until its package
// init and the dependencies it pulls in (google/jsonschema-go,
// encoding/gob for its server's cursors, golang.org/x/oauth2,
// segmentio/encoding and segmentio/asm, uritemplate, x/time/rate) were
// measured at 0.45 to 0.5 ms of every start of agent-ls before main runs,
// whether or not an MCP server is configured: a static hello-world
// importing net/http, crypto/tls, encoding/json and log/slog reaches main
// in 2.4 ms, the same with a blank import of the SDK's mcp package in
// 2.9 ms, jsonschema-go's init 0.19 ms and encoding/gob's 0.18 ms of it.
// mcp-go's client was never an option: it imports its server package,
// whose JSON-Schema library compiles its metaschemas at init, some
// 4.5 ms. mcp-go serves only as the servers of this package's tests.
package mcp
