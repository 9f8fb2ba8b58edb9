package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// protocolVersion is the MCP version agent-ls asks for. The SDK speaks
// 2026-07-28 too, whose handshake starts with server/discover: a server
// of an older protocol may leave that unanswered until the startup
// timeout, so the initialize handshake of 2025-11-25 is asked for, which
// servers of every version answer (down to 2024-11-05).
const protocolVersion = "2025-11-25"

// errConnectionClosed is wrapped by the errors agent-ls's own side of a
// connection gives: the server's process ended, a message was too long.
var errConnectionClosed = errors.New("the connection to the MCP server is closed")

// maxMessageBytes bounds one message from a server (a line on stdio, an
// event over HTTP), so that a server writing without end cannot grow
// agent-ls's memory without limit.
const maxMessageBytes = 64 << 20

// client is an MCP client session with one server, over the SDK.
type client struct {
	cs *sdk.ClientSession
	// conn is the transport's connection, which close ends first: the
	// SDK's Close waits for the calls under way, a stuck server's too.
	conn sdk.Connection
	// serverLog logs what the server causes, bounded (see floodLog).
	serverLog *floodLog
	// onPrompts, once set, is called on notifications/prompts/list_changed
	// (prompts.go).
	onPrompts atomic.Pointer[func()]
	// progress routes the server's notifications/progress to the calls
	// that asked for them (progress.go).
	progress *progressRoutes
	// detachRoots stops telling the server of changed roots (roots.go).
	detachRoots func()
}

// connectClient makes the MCP handshake over tr; h says what the server's
// notifications reach and what the client offers (hooks.go).
func connectClient(ctx context.Context, tr sdk.Transport, clientVersion string, serverLog *floodLog, h clientHooks) (*client, error) {
	if clientVersion == "" {
		clientVersion = "devel"
	}
	routes := &progressRoutes{}
	cl := &client{serverLog: serverLog, progress: routes}
	// Form elicitation is offered when ctx carries its handler
	// (elicit.go).
	elicit, elicitCaps := elicitation(ctx)
	opts := &sdk.ClientOptions{
		// Roots are offered (roots.go); sampling is not: agent-ls does
		// not lend its model to servers.
		//lint:ignore SA1019 roots are current in MCP 2025-11-25, the version agent-ls speaks.
		Capabilities:       &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{ListChanged: true}, Elicitation: elicitCaps},
		ElicitationHandler: elicit,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			if h.toolsChanged != nil {
				h.toolsChanged()
			}
		},
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
			if f := cl.onPrompts.Load(); f != nil {
				(*f)()
			}
		},
	}
	h.handle(opts, serverLog, routes)
	c := sdk.NewClient(&sdk.Implementation{Name: "agent-ls", Version: clientVersion}, opts)
	detach := h.roots.attach(c)
	rt := &recordingTransport{Transport: tr}
	cs, err := c.Connect(ctx, rt, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		detach()
		return nil, fmt.Errorf("the MCP handshake (agent-ls asks for version %s): %w", protocolVersion, err)
	}
	cl.cs, cl.conn, cl.detachRoots = cs, rt.conn, detach
	h.setLogLevel(ctx, cl)
	return cl, nil
}

// recordingTransport is a transport that keeps the connection it made.
// The connection is the SDK's own, unwrapped: the session tells it the
// protocol version agreed on.
type recordingTransport struct {
	sdk.Transport
	conn sdk.Connection
}

func (t *recordingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	t.conn = c
	return c, err
}

// capabilities are what the server advertised in the handshake.
func (c *client) capabilities() *sdk.ServerCapabilities {
	if r := c.cs.InitializeResult(); r != nil && r.Capabilities != nil {
		return r.Capabilities
	}
	return &sdk.ServerCapabilities{}
}

// hasTools reports whether the server advertised tools: one that did
// not (a server of resources only) may refuse tools/list.
func (c *client) hasTools() bool { return c.capabilities().Tools != nil }

// hasResources reports whether the server advertised resources.
func (c *client) hasResources() bool { return c.capabilities().Resources != nil }

// listTools asks for one page of the server's tools.
func (c *client) listTools(ctx context.Context, cursor string) (*sdk.ListToolsResult, error) {
	return c.cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
}

// listAll lists the server's tools, page after page; a cursor that
// comes back, more than maxTools tools or more than maxPages pages is an
// error.
func listAll(ctx context.Context, c *client) ([]*sdk.Tool, error) {
	list, next, err := collectPages(ctx, "", maxTools, func(ctx context.Context, cursor string) ([]*sdk.Tool, string, error) {
		res, err := c.listTools(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return res.Tools, res.NextCursor, nil
	})
	switch {
	case err != nil:
		return nil, err
	case len(list) > maxTools || next != "":
		return nil, fmt.Errorf("more than the %d tools (or %d pages) agent-ls takes from one server", maxTools, maxPages)
	}
	return list, nil
}

// callTool calls the server's tool name with args, a JSON object.
func (c *client) callTool(ctx context.Context, name string, args json.RawMessage) (*sdk.CallToolResult, error) {
	return c.callToolProgress(ctx, name, args, nil)
}

// callToolProgress calls the tool as callTool does; with onProgress, the
// call carries a progress token and the server's notifications/progress
// for it go to onProgress, on the connection's reading goroutine, until
// the call returns.
func (c *client) callToolProgress(ctx context.Context, name string, args json.RawMessage, onProgress func(*sdk.ProgressNotificationParams)) (*sdk.CallToolResult, error) {
	// Each call has its own bound of the server's log, and so has the
	// time before it.
	c.serverLog.window("between tool calls")
	defer c.serverLog.window("during the call of " + textcut.Cut(name, 100))
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	if onProgress != nil {
		token, done := c.progress.add(onProgress)
		defer done()
		params.SetProgressToken(token)
	}
	return c.cs.CallTool(ctx, params)
}

// close ends the session: a stdio server's pipes are closed, an HTTP
// session is ended with DELETE.
func (c *client) close() {
	// The connection first: the calls under way fail at once.
	c.detachRoots()
	_ = c.conn.Close()
	_ = c.cs.Close()
	c.serverLog.window("before it was closed")
}

// answered reports whether err is the server's answer to a request, as
// against the connection failing: a JSON-RPC error it answered with, or
// an answer that is not valid MCP (a result the SDK cannot read, such as
// data that is not base64 or content of a type it does not know). The
// server runs; that request failed.
func answered(err error) bool {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		// The codes the SDK's JSON-RPC layer gives a closing or refused
		// connection are not the server's.
		switch we.Code {
		case -32003, -32004, -32005:
		default:
			return true
		}
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var b64 base64.CorruptInputError
	return errors.As(err, &syn) || errors.As(err, &typ) || errors.As(err, &b64) ||
		strings.Contains(err.Error(), "unrecognized content type")
}

// answerError says what is wrong with an answer the server gave.
func answerError(err error) error {
	var b64 base64.CorruptInputError
	if errors.As(err, &b64) {
		return fmt.Errorf("the server's answer holds data that is not valid base64: %w", err)
	}
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		return fmt.Errorf("the server's answer is not valid MCP: %w", err)
	}
	return err
}

// isTransportError reports whether err says the connection broke (the
// server's process ended, its pipes or its HTTP endpoint failed, the
// HTTP server forgot the session, refused the request or ended its
// answer's stream without the answer), as against an error the server
// answered.
func isTransportError(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	if errors.Is(err, errConnectionClosed) || errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, sdk.ErrSessionMissing) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, os.ErrClosed) || errors.As(err, &ne) {
		return true
	}
	return !answered(err)
}
