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
// While at least one server advertised resources, the Set registers
// three read-only tools of its own as one more source (resources.go,
// resource_tools.go): list_mcp_resources, list_mcp_resource_templates and
// read_mcp_resource, with Codex's names and arguments. They ask the server
// each time, so resources/list_changed only has the tools' presence
// decided again; no resource is subscribed to. Every listing (tools,
// resources, templates) follows the server's pages with one loop guard
// and bound (pages.go).
//
// Beyond tools, the client offers roots and nothing else (no sampling,
// no elicitation): roots/list is answered with the Set's roots (SetRoots:
// the workspace folders of the sessions it serves, file:// URIs named by
// their last element), and a change sends roots/list_changed (roots.go).
// A tools/call carries a progress token; the server's
// notifications/progress become the call's toolProgress events, four a
// second at most, none after the call (progress.go). The server's log
// messages go to agent-ls's log within its floodLog bound, never to the
// model, at the level asked with logging/setLevel (log_level, warning by
// default; logging.go). An interrupted call returns at once and the SDK
// tells the server with notifications/cancelled. A tool's
// structuredContent is checked against its outputSchema, and given to
// the model as JSON when the result has no text block (structured.go).
//
// A server that advertises prompts has them listed as it starts, page
// after page, and again on notifications/prompts/list_changed
// (prompts.go): Set.Prompts gives them by server, Options.PromptsChanged
// is told when they change, and Set.GetPrompt expands one (prompts/get,
// within the server's tool timeout) into messages for the model. The
// front ends offer them as slash commands, /<server>:<prompt>; a prompt
// whose name or arguments cannot be typed as one is left out.
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
// A server may ask the user a question during a call (form elicitation,
// elicit.go): agent-ls advertises form mode only, and the question goes
// to the session whose call to that server is under way, through its
// approver (Elicitor), with the tool timeout standing still meanwhile; a
// question no call, or calls of several sessions, could own is declined.
// The form is read and the answer checked by package elicit.
//
// The client is the official MCP Go SDK's (github.com/modelcontextprotocol/go-sdk,
// client.go): its ClientSession makes the handshake, lists and calls
// tools and takes list_changed, over its stdio transport (stdio.go:
// the process, its environment, its process group and its stderr are
// agent-ls's, process.go; a server's stdout is read through a filter that
// leaves out lines that are not JSON-RPC, splits batches and bounds
// lines and the server's unanswered requests) or its streamable-HTTP
// transport (http.go: the configured headers and the bearer token added
// by an http.RoundTripper, redirects followed within the server's origin
// only), which resumes a stream the server ends mid-call from its last
// event id, or, for older servers, its HTTP+SSE transport (transport =
// "sse", or the fallback when streamable HTTP's initialize gets 400, 404
// or 405; the same RoundTripper, which also refuses an endpoint event
// naming another origin). agent-ls asks for MCP 2025-11-25 (any version down to
// 2024-11-05 is accepted): the SDK's newest, 2026-07-28, starts with
// server/discover, which servers of older versions may never answer. The
// SDK replaced a client of this package's own, which was kept for
// start-up time: the SDK's package init and its dependencies'
// (encoding/gob and google/jsonschema-go most) cost every start of
// agent-ls, whether or not a server is configured, from half a
// millisecond on a quiet machine to two or three on a loaded one; a
// client that falls behind a protocol that changes twice a year costs
// more. mcp-go serves only as the servers of this package's
// tests.
//
// A url server may ask for OAuth, as MCP's authorization spec
// (2025-11-25) has it. Login (oauth_login.go), run by `agent-ls mcp
// login NAME` alone, is the SDK's auth.AuthorizationCodeHandler: the
// server's 401 leads to its protected resource metadata and its
// authorization server's metadata; the client is the one the config
// names (oauth_client_id) or one registered dynamically; the browser
// gets the authorization URL with a PKCE challenge and comes back to a
// one-shot listener on 127.0.0.1 (oauth_redirect.go), which checks the
// state. The token, the client and the token endpoint are stored in a
// TokenStore (tokenstore.go): a 0600 file per server name and url in
// $XDG_STATE_HOME/agent-ls/mcp-auth, which sandboxed commands cannot
// read. A connection sends the stored token (oauth.go: the streamable
// transport's auth.OAuthHandler, the SSE transport's round tripper, since
// the SDK's SSE transport takes no handler), refreshes it when it expired
// and saves the new one. A 401 it cannot answer (no token, a token
// refused, a refresh refused) runs no flow: the server's state is
// StateNeedsLogin, its error says to run `agent-ls mcp login NAME`, the
// user is told once through Options.Failed, and it is not started again.
// A bearer token or Authorization header in the config takes precedence
// over a stored token.
package mcp
