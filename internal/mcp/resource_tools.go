package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

//go:embed list_mcp_resources.md
var listResourcesDescription string

//go:embed list_mcp_resource_templates.md
var listTemplatesDescription string

//go:embed read_mcp_resource.md
var readResourceDescription string

var listResourcesSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "server": {"type": "string", "description": "The MCP server to list. Default: every server that offers resources."},
    "cursor": {"type": "string", "description": "The cursor a previous listing of this server gave, for its next page. Needs server."}
  },
  "additionalProperties": false
}`)

var readResourceSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "server": {"type": "string", "description": "The MCP server the resource belongs to."},
    "uri": {"type": "string", "description": "The resource's URI."}
  },
  "required": ["server", "uri"],
  "additionalProperties": false
}`)

// listResourcesTool is list_mcp_resources, or list_mcp_resource_templates
// when templates is set. It reads only: no approval, and it runs beside
// other calls.
type listResourcesTool struct {
	set       *Set
	templates bool
}

type listResourcesArgs struct {
	Server string `json:"server"`
	Cursor string `json:"cursor"`
}

func (t *listResourcesTool) name() string {
	if t.templates {
		return "list_mcp_resource_templates"
	}
	return "list_mcp_resources"
}

func (t *listResourcesTool) Spec() tools.Spec {
	desc := listResourcesDescription
	if t.templates {
		desc = listTemplatesDescription
	}
	return tools.Spec{Type: tools.Function, Name: t.name(), Description: desc, Parameters: listResourcesSchema}
}

func (t *listResourcesTool) Kind() event.ToolKind      { return event.KindRead }
func (t *listResourcesTool) Mutating(*tools.Call) bool { return false }

func (t *listResourcesTool) Title(call *tools.Call) string {
	var a listResourcesArgs
	_ = json.Unmarshal(call.Arguments, &a)
	if a.Server == "" {
		return t.name()
	}
	return t.name() + " (" + a.Server + ")"
}

// Handle lists a page of one server, or the first page of every server
// that offers resources.
func (t *listResourcesTool) Handle(ctx context.Context, env *tools.Env, call *tools.Call) (tools.Output, error) {
	var a listResourcesArgs
	if err := decodeArgs(call, &a); err != nil {
		return tools.Output{}, fmt.Errorf("%s: invalid arguments: %w", t.name(), err)
	}
	limit := outputLimit(env)
	if a.Server != "" {
		srv, err := t.set.resourceServer(a.Server)
		if err != nil {
			return tools.Output{}, err
		}
		text, err := listPage(ctx, srv, t.templates, a.Cursor)
		if err != nil {
			return tools.Output{}, err
		}
		return tools.Output{Text: cutText(text, limit)}, nil
	}
	if a.Cursor != "" {
		return tools.Output{}, errors.New("a cursor belongs to one server's listing: give the server it came from")
	}
	srvs := t.set.resourceServers()
	if len(srvs) == 0 {
		return tools.Output{}, errors.New("no MCP server offers resources")
	}
	var b strings.Builder
	for i, srv := range srvs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "server %s:\n", srv.cfg.Name)
		text, err := listPage(ctx, srv, t.templates, "")
		if ctx.Err() != nil {
			return tools.Output{}, ctx.Err()
		}
		if err != nil {
			text = "[error: " + err.Error() + "]"
		}
		b.WriteString(text + "\n")
	}
	return tools.Output{Text: cutText(strings.TrimSuffix(b.String(), "\n"), limit)}, nil
}

// readResourceTool is read_mcp_resource. It reads only: no approval, and
// it runs beside other calls.
type readResourceTool struct{ set *Set }

type readResourceArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

func (t *readResourceTool) Spec() tools.Spec {
	return tools.Spec{Type: tools.Function, Name: "read_mcp_resource", Description: readResourceDescription, Parameters: readResourceSchema}
}

func (t *readResourceTool) Kind() event.ToolKind      { return event.KindRead }
func (t *readResourceTool) Mutating(*tools.Call) bool { return false }

func (t *readResourceTool) Title(call *tools.Call) string {
	var a readResourceArgs
	_ = json.Unmarshal(call.Arguments, &a)
	return "read_mcp_resource " + textcut.Cut(a.URI, 200) + " (" + a.Server + ")"
}

// Handle reads the resource: text as it is, images shown, other binary
// data summarised.
func (t *readResourceTool) Handle(ctx context.Context, env *tools.Env, call *tools.Call) (tools.Output, error) {
	var a readResourceArgs
	if err := decodeArgs(call, &a); err != nil {
		return tools.Output{}, fmt.Errorf("read_mcp_resource: invalid arguments: %w", err)
	}
	if a.Server == "" || a.URI == "" {
		return tools.Output{}, errors.New("read_mcp_resource: give both server and uri")
	}
	srv, err := t.set.resourceServer(a.Server)
	if err != nil {
		return tools.Output{}, err
	}
	var res *sdk.ReadResourceResult
	err = srv.request(ctx, "resources/read "+textcut.Cut(a.URI, 200), func(ctx context.Context, c *client) error {
		c.serverLog.window("between requests")
		defer c.serverLog.window("during resources/read")
		var err error
		res, err = c.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: a.URI})
		return err
	})
	if err != nil {
		return tools.Output{}, err
	}
	var out tools.Output
	parts := make([]string, 0, len(res.Contents))
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		head := fmt.Sprintf("[resource %s, %s]", c.URI, orDash(c.MIMEType))
		switch {
		case c.Blob != nil && imageTypes[strings.ToLower(strings.TrimSpace(c.MIMEType))]:
			parts = append(parts, head+"\n"+image(&out, c.MIMEType, c.Blob))
		case c.Blob != nil:
			parts = append(parts, head+"\n"+fmt.Sprintf("[binary %s, %d bytes]", orDash(c.MIMEType), len(c.Blob)))
		default:
			parts = append(parts, head+"\n"+c.Text)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "[the server gave the resource no contents]")
	}
	out.Text = cutText(strings.Join(parts, "\n"), outputLimit(env))
	return out, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// decodeArgs reads a call's JSON arguments; none is the empty object.
func decodeArgs(call *tools.Call, v any) error {
	if len(strings.TrimSpace(string(call.Arguments))) == 0 {
		return nil
	}
	return json.Unmarshal(call.Arguments, v)
}

// cutText cuts text to limit bytes, saying so.
func cutText(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	return textcut.Prefix(text, limit) + fmt.Sprintf("\n[output cut at %d of %d bytes]", limit, len(text))
}
