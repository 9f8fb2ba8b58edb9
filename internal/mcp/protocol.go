package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// latestProtocolVersion is the MCP version agent-ls asks for; a server
// may answer with any of supportedProtocolVersions.
const latestProtocolVersion = "2025-11-25"

// supportedProtocolVersions are the MCP versions whose handshake, tools
// and transports this client speaks. What agent-ls uses of them (tools,
// list_changed) is the same in all.
var supportedProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// implementation names a client or server in the handshake.
type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeParams struct {
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities is empty: nothing is offered to servers (no roots,
	// sampling or elicitation).
	Capabilities struct{}       `json:"capabilities"`
	ClientInfo   implementation `json:"clientInfo"`
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	ServerInfo      implementation `json:"serverInfo"`
}

type listToolsParams struct {
	Cursor string `json:"cursor,omitempty"`
}

type listToolsResult struct {
	Tools      []*toolInfo `json:"tools"`
	NextCursor string      `json:"nextCursor,omitempty"`
}

// toolInfo is a tool as a server lists it. InputSchema is decoded as
// encoding/json decodes any value (objects as map[string]any, numbers as
// float64), which inputSchema trims.
type toolInfo struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	InputSchema any              `json:"inputSchema"`
	Annotations *toolAnnotations `json:"annotations,omitempty"`
}

type toolAnnotations struct {
	ReadOnlyHint bool `json:"readOnlyHint"`
}

type callToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// callToolResult is a tool's answer. Content blocks are decoded by
// resultOutput, base64 included, so that one bad block fails that call
// with a clear error.
type callToolResult struct {
	Content           []content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// content is one content block of any type: text, image, audio,
// resource_link or resource.
type content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"` // base64 of an image or audio
	MIMEType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Description string            `json:"description,omitempty"`
	Resource    *resourceContents `json:"resource,omitempty"`
}

// resourceContents is an embedded resource: text, or a blob in base64.
type resourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     string  `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// initialize makes the MCP handshake on c: initialize, a check of the
// version the server answered, notifications/initialized. It returns the
// version agreed on.
func initialize(ctx context.Context, c *client, clientVersion string) (string, error) {
	if clientVersion == "" {
		clientVersion = "devel"
	}
	var res initializeResult
	params := initializeParams{ProtocolVersion: latestProtocolVersion, ClientInfo: implementation{Name: "agent-ls", Version: clientVersion}}
	if err := c.call(ctx, "initialize", params, &res); err != nil {
		return "", err
	}
	if !slices.Contains(supportedProtocolVersions, res.ProtocolVersion) {
		return "", fmt.Errorf("the server speaks MCP protocol version %q, which agent-ls does not: it asked for %s and speaks %s",
			res.ProtocolVersion, latestProtocolVersion, strings.Join(supportedProtocolVersions, ", "))
	}
	if h, ok := c.tr.(interface{ setProtocolVersion(string) }); ok {
		h.setProtocolVersion(res.ProtocolVersion)
	}
	if err := c.notify(ctx, "notifications/initialized", nil); err != nil {
		return "", fmt.Errorf("notifications/initialized: %w", err)
	}
	return res.ProtocolVersion, nil
}

// listTools asks for one page of the server's tools.
func (c *client) listTools(ctx context.Context, cursor string) (*listToolsResult, error) {
	var res listToolsResult
	if err := c.call(ctx, "tools/list", listToolsParams{Cursor: cursor}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// callTool calls the server's tool name with args, a JSON object.
func (c *client) callTool(ctx context.Context, name string, args json.RawMessage) (*callToolResult, error) {
	// Each call has its own bound of the server's log, and so has the
	// time before it.
	c.serverLog.window("between tool calls")
	defer c.serverLog.window("during the call of " + textcut.Cut(name, 100))
	var res callToolResult
	if err := c.call(ctx, "tools/call", callToolParams{Name: name, Arguments: args}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
