package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/jsonschema"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// tool is one tool of a server, as a tools.Handler.
type tool struct {
	srv      *server
	name     string // the server's name for it
	spec     tools.Spec
	readOnly bool
	// output is the tool's compiled outputSchema (structured.go); nil
	// when it has none, or one agent-ls cannot compile.
	output *jsonschema.Schema
}

func (s *server) newTool(t *sdk.Tool) (*tool, error) {
	if t == nil || t.Name == "" {
		return nil, errors.New("a tool without a name")
	}
	schema, err := inputSchema(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if len(desc) > maxDescriptionLen {
		desc = textcut.Cut(desc, maxDescriptionLen)
	}
	ro := t.Annotations != nil && t.Annotations.ReadOnlyHint
	output, err := outputSchema(t.OutputSchema)
	if err != nil {
		s.log.Warn("MCP server: a tool's output schema cannot be used; its results are not checked", "tool", t.Name, "err", err)
	}
	return &tool{srv: s, name: t.Name, readOnly: ro, output: output, spec: tools.Spec{
		Type:        tools.Function,
		Name:        s.set.toolName(s.cfg.Name, t.Name),
		Description: desc,
		Parameters:  schema,
		Server:      s.cfg.Name,
		ServerTool:  t.Name,
	}}, nil
}

// inputSchema is the part of a tool's input schema offered to the
// model: its type, properties, required properties, $defs and
// additionalProperties; the rest ($schema, $id, titles of the whole) is
// dropped before the registry sanitizes what is left. A schema that is
// not an object offers no parameters.
func inputSchema(schema any) ([]byte, error) {
	in, _ := schema.(map[string]any)
	typ, _ := in["type"].(string)
	props, ok := in["properties"].(map[string]any)
	if !ok {
		props = map[string]any{}
	}
	required, ok := in["required"].([]any)
	if !ok {
		required = []any{}
	}
	out := map[string]any{"type": typ, "properties": props, "required": required}
	if defs, ok := in["$defs"].(map[string]any); ok {
		out["$defs"] = defs
	}
	if ap, ok := in["additionalProperties"]; ok && ap != nil {
		out["additionalProperties"] = ap
	}
	return json.Marshal(out)
}

func (t *tool) Spec() tools.Spec { return t.spec }

func (t *tool) Kind() event.ToolKind { return event.KindOther }

// Mutating: MCP tools run outside agent-ls, so only a tool its server
// annotates read-only runs beside other calls.
func (t *tool) Mutating(*tools.Call) bool { return !t.readOnly }

func (t *tool) Title(*tools.Call) string {
	return t.name + " (" + t.srv.cfg.Name + ")"
}

// Handle asks approval, then calls the tool within the server's tool
// timeout. A timeout or a broken connection fails the call and the
// server, which starts again on its next use.
func (t *tool) Handle(ctx context.Context, env *tools.Env, call *tools.Call) (tools.Output, error) {
	if env == nil || env.Approver == nil {
		return tools.Output{Text: "refused: nobody can approve calls of MCP tools here", Failed: true, Rejected: true}, nil
	}
	args := call.Arguments
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	d, err := env.Approver.Tool(ctx, tools.ToolRequest{CallID: call.CallID, Server: t.srv.cfg.Name, Tool: t.name,
		Arguments: args, ReadOnly: t.readOnly, AutoApprove: t.srv.cfg.AutoApprove})
	if err != nil {
		return tools.Output{}, err
	}
	if !d.Allowed {
		return tools.Output{Text: d.Reason, Failed: true, Rejected: true}, nil
	}
	var onProgress func(*sdk.ProgressNotificationParams)
	if env.Emit != nil {
		rep := newProgressReporter(call.CallID, env.Emit)
		defer rep.close()
		onProgress = rep.update
	}
	var res *sdk.CallToolResult
	// A question the server asks during the call goes to this session.
	ctx = forSession(ctx, env, call.CallID)
	err = t.srv.request(ctx, t.name, func(ctx context.Context, c *client) error {
		var err error
		res, err = c.callToolProgress(ctx, t.name, args, onProgress)
		return err
	})
	if err != nil {
		return tools.Output{}, err
	}
	if err := checkStructured(t.output, res); err != nil {
		text := fmt.Sprintf("MCP server %s: the result of %s is not valid: %v", t.srv.cfg.Name, t.name, err)
		return withNotes(ctx, tools.Output{Text: cutText(text, outputLimit(env)), Failed: true}), nil
	}
	return withNotes(ctx, resultOutput(res, outputLimit(env))), nil
}

// outputLimit is the most bytes of text one call gives the model.
func outputLimit(env *tools.Env) int {
	if env != nil && env.Limits.MaxBytes > 0 {
		return env.Limits.MaxBytes
	}
	return tools.DefaultMaxOutputBytes
}
