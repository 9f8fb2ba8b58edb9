package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/elicit"
)

// declineOption is the permission option that declines a question asked
// as a permission request.
const declineOption = "decline"

// scopeKey is the key of _meta in which an elicitation/create carries its
// session and tool call to the wire (scopeElicitation): the SDK's form
// type has no field for them.
const scopeKey = "agent-ls/scope"

// Elicit puts an MCP server's question to the client (agent.Elicitor): as
// elicitation/create (form mode, tied to the session and the tool call)
// to a client that advertises form elicitation; else, for a form of one
// choice or yes/no field, as session/request_permission with the choices
// as options beside Decline; any other form is declined, and the model
// told why. What the permission request shows is escaped and cut; the
// schema forwarded is the one agent-ls read (elicit.Schema.Wire).
func (s *server) Elicit(ctx context.Context, req *agent.ElicitRequest) (elicit.Result, error) {
	s.mu.Lock()
	ss := s.byAgent[req.SessionID]
	caps := s.client.Elicitation
	s.mu.Unlock()
	if ss == nil {
		return elicit.Result{Action: elicit.Decline}, nil
	}
	// The client must have the tool call before it is asked about it.
	if err := s.out.flush(ctx); err != nil {
		return elicit.Result{}, err
	}
	if caps != nil && caps.Form != nil {
		return s.elicitForm(ctx, ss, req)
	}
	f, ok := req.Schema.OneChoice()
	if !ok {
		return elicit.Result{Action: elicit.Decline,
			Note: "the MCP server's question was declined: the client cannot show its form (it shows only a single choice)"}, nil
	}
	return s.elicitChoice(ctx, ss, req, f)
}

// elicitForm forwards the question as elicitation/create. Content that
// does not fit the form declines: it never goes to the server.
func (s *server) elicitForm(ctx context.Context, ss *session, req *agent.ElicitRequest) (elicit.Result, error) {
	scope := map[string]any{"sessionId": ss.id}
	if req.CallID != "" {
		scope["toolCallId"] = req.CallID
	}
	form := &sdk.UnstableCreateElicitationForm{Mode: "form", Message: elicit.Shown(req.Message, elicit.MaxMessage),
		RequestedSchema: sdk.UnstableElicitationSchema{Type: "object"}, Meta: map[string]any{scopeKey: scope}}
	w := req.Schema.Wire()
	form.RequestedSchema.Properties, _ = w["properties"].(map[string]any)
	form.RequestedSchema.Required, _ = w["required"].([]string)
	resp, err := s.conn.UnstableCreateElicitation(ctx, sdk.UnstableCreateElicitationRequest{Form: form})
	switch {
	case ctx.Err() != nil:
		return elicit.Result{Action: elicit.Cancel}, ctx.Err()
	case err != nil:
		return elicit.Result{}, fmt.Errorf("elicitation/create: %w", err)
	case resp.Accept != nil:
		content, err := req.Schema.Check(resp.Accept.Content)
		if err != nil {
			s.log.Warn("acp: elicitation/create: the answer does not fit the form; declined", "err", err)
			return elicit.Result{Action: elicit.Decline, Note: "the MCP server's question was declined: the client's answer did not fit its form"}, nil
		}
		return elicit.Result{Action: elicit.Accept, Content: content}, nil
	case resp.Decline != nil:
		return elicit.Result{Action: elicit.Decline}, nil
	case resp.Cancel != nil:
		return elicit.Result{Action: elicit.Cancel}, nil
	}
	return elicit.Result{}, fmt.Errorf("elicitation/create: an answer of no known action")
}

// elicitChoice asks a one-field question as a permission request: each
// choice (or Yes and No) an option of kind allow_once, Decline of kind
// reject_once; the client's cancelled outcome cancels.
func (s *server) elicitChoice(ctx context.Context, ss *session, req *agent.ElicitRequest, f *elicit.Field) (elicit.Result, error) {
	buttons := f.Buttons("Decline")
	var opts []sdk.PermissionOption
	for i, b := range buttons {
		opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId("choice-" + strconv.Itoa(i)), Name: b.Title, Kind: sdk.PermissionOptionKindAllowOnce})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: declineOption, Name: "Decline", Kind: sdk.PermissionOptionKindRejectOnce})
	server := elicit.ShownLine(req.Server, elicit.MaxLabel)
	text := "The MCP server " + server + " asks:\n" + elicit.Shown(req.Message, elicit.MaxMessage) + "\n" + f.Label()
	if f.Description != "" {
		text += ": " + elicit.ShownLine(f.Description, elicit.MaxLabel)
	}
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.CallID), Title: sdk.Ptr("The MCP server " + server + " asks: " + f.Label()),
		Content: []sdk.ToolCallContent{textContent(text)}}
	resp, err := s.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(ss.id), ToolCall: tc, Options: opts})
	switch {
	case ctx.Err() != nil:
		return elicit.Result{Action: elicit.Cancel}, ctx.Err()
	case err != nil:
		return elicit.Result{}, fmt.Errorf("session/request_permission: %w", err)
	case resp.Outcome.Cancelled != nil:
		return elicit.Result{Action: elicit.Cancel}, nil
	case resp.Outcome.Selected == nil:
		return elicit.Result{}, fmt.Errorf("session/request_permission: no outcome")
	}
	id := string(resp.Outcome.Selected.OptionId)
	if id == declineOption {
		return elicit.Result{Action: elicit.Decline}, nil
	}
	for i, b := range buttons {
		if id == "choice-"+strconv.Itoa(i) {
			return elicit.Result{Action: elicit.Accept, Content: map[string]any{f.Name: b.Value}}, nil
		}
	}
	return elicit.Result{}, fmt.Errorf("session/request_permission: the client picked %q, which it was not offered", id)
}

// elicitMarker marks the elicitation requests among outbound messages.
var elicitMarker = []byte(`"method":"elicitation/create"`)

// scopeElicitation moves the session and tool call an
// elicitation/create carries in _meta (scopeKey) to where ACP has them,
// beside the message: the SDK's form type has no sessionId or toolCallId.
func scopeElicitation(msg []byte) []byte {
	if !bytes.Contains(msg, elicitMarker) {
		return msg
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil {
		return msg
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil || meta[scopeKey] == nil {
		return msg
	}
	var scope map[string]json.RawMessage
	if json.Unmarshal(meta[scopeKey], &scope) != nil {
		return msg
	}
	for k, v := range scope {
		params[k] = v
	}
	delete(meta, scopeKey)
	if len(meta) == 0 {
		delete(params, "_meta")
	} else {
		params["_meta"], _ = json.Marshal(meta)
	}
	m["params"], _ = json.Marshal(params)
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	if bytes.HasSuffix(msg, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

var _ agent.Elicitor = (*server)(nil)
