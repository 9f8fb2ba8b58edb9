package acp

// The replay's own encoder of session/update notifications. The SDK
// encodes a union (an update, a content block, a tool call's content) by
// encoding its variant, decoding that into a map and encoding the map
// again, once per level: a tool call's text is scanned about ten times on
// its way out, and a long session's load was mostly that. appendUpdate
// writes, in one pass, the bytes the SDK writes for the shapes a replay
// makes (text chunks, tool calls and their updates with text and diff
// content, plans); anything else (_meta, images, terminals, usage) is left
// to the SDK. Its tests hold it to the SDK's bytes: every shape, every
// kind of character, and the SDK types' fields, so that an SDK upgrade
// that adds one fails them rather than losing it.

import (
	"encoding/json"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/jsonstr"
)

// appendUpdate appends the session/update notification of u about
// session id, as the SDK's connection writes it (one line), and reports
// whether it could: false leaves b as it was, for the SDK to encode u.
func appendUpdate(b []byte, id string, u *sdk.SessionUpdate) ([]byte, bool) {
	start := len(b)
	b = append(b, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`...)
	b = appendStringOnce(b, id)
	b = append(b, `,"update":`...)
	var ok bool
	switch {
	case u.UserMessageChunk != nil && u.AgentMessageChunk == nil && u.AgentThoughtChunk == nil && u.ToolCall == nil && u.ToolCallUpdate == nil && u.Plan == nil:
		c := u.UserMessageChunk
		b, ok = appendChunk(b, c.Meta, c.Content, c.MessageId, "user_message_chunk")
	case u.AgentMessageChunk != nil && u.AgentThoughtChunk == nil && u.ToolCall == nil && u.ToolCallUpdate == nil && u.Plan == nil:
		c := u.AgentMessageChunk
		b, ok = appendChunk(b, c.Meta, c.Content, c.MessageId, "agent_message_chunk")
	case u.AgentThoughtChunk != nil && u.ToolCall == nil && u.ToolCallUpdate == nil && u.Plan == nil:
		c := u.AgentThoughtChunk
		b, ok = appendChunk(b, c.Meta, c.Content, c.MessageId, "agent_thought_chunk")
	case u.ToolCall != nil && u.ToolCallUpdate == nil && u.Plan == nil:
		b, ok = appendToolCall(b, u.ToolCall)
	case u.ToolCallUpdate != nil && u.Plan == nil:
		b, ok = appendToolCallUpdate(b, u.ToolCallUpdate)
	case u.Plan != nil:
		b, ok = appendPlan(b, u.Plan)
	}
	if !ok || !onlyReplayVariants(u) {
		return b[:start], false
	}
	return append(b, "}}\n"...), true
}

// onlyReplayVariants: u sets none of the variants appendUpdate leaves to
// the SDK (the SDK encodes the first variant set, in its order; the ones
// above come first in it).
func onlyReplayVariants(u *sdk.SessionUpdate) bool {
	return u.PlanUpdate == nil && u.PlanRemoved == nil && u.AvailableCommandsUpdate == nil && u.CurrentModeUpdate == nil &&
		u.ConfigOptionUpdate == nil && u.SessionInfoUpdate == nil && u.UsageUpdate == nil
}

// appendChunk writes a message or thought chunk: {content, messageId,
// sessionUpdate}, keys sorted as the SDK's map encodes them.
func appendChunk(b []byte, meta map[string]any, content sdk.ContentBlock, messageID *string, kind string) ([]byte, bool) {
	if meta != nil {
		return b, false
	}
	b = append(b, `{"content":`...)
	b, ok := appendTextBlock(b, content)
	if !ok {
		return b, false
	}
	if messageID != nil {
		b = append(b, `,"messageId":`...)
		b = appendString(b, *messageID)
	}
	b = append(b, `,"sessionUpdate":"`...)
	b = append(b, kind...)
	return append(b, `"}`...), true
}

// appendTextBlock writes a text content block: the SDK writes its text
// and type only.
func appendTextBlock(b []byte, c sdk.ContentBlock) ([]byte, bool) {
	if c.Text == nil || c.Image != nil || c.Audio != nil || c.ResourceLink != nil || c.Resource != nil {
		return b, false
	}
	b = append(b, `{"text":`...)
	b = appendString(b, c.Text.Text)
	return append(b, `,"type":"text"}`...), true
}

func appendToolCall(b []byte, c *sdk.SessionUpdateToolCall) ([]byte, bool) {
	if c.Meta != nil || c.RawOutput != nil {
		return b, false
	}
	b = append(b, '{')
	var ok bool
	if b, ok = appendCallFields(b, c.Content, string(c.Kind), c.Locations, c.RawInput); !ok {
		return b, false
	}
	b = append(b, `"sessionUpdate":"tool_call"`...)
	if c.Status != "" {
		b = append(b, `,"status":`...)
		b = appendString(b, string(c.Status))
	}
	b = append(b, `,"title":`...)
	b = appendString(b, c.Title)
	b = append(b, `,"toolCallId":`...)
	b = appendString(b, string(c.ToolCallId))
	return append(b, '}'), true
}

func appendToolCallUpdate(b []byte, c *sdk.SessionToolCallUpdate) ([]byte, bool) {
	if c.Meta != nil || c.RawOutput != nil {
		return b, false
	}
	b = append(b, '{')
	kind := ""
	if c.Kind != nil {
		if *c.Kind == "" {
			return b, false // an empty kind the SDK writes; not one a replay makes
		}
		kind = string(*c.Kind)
	}
	var ok bool
	if b, ok = appendCallFields(b, c.Content, kind, c.Locations, c.RawInput); !ok {
		return b, false
	}
	b = append(b, `"sessionUpdate":"tool_call_update"`...)
	if c.Status != nil {
		b = append(b, `,"status":`...)
		b = appendString(b, string(*c.Status))
	}
	if c.Title != nil {
		b = append(b, `,"title":`...)
		b = appendString(b, *c.Title)
	}
	b = append(b, `,"toolCallId":`...)
	b = appendString(b, string(c.ToolCallId))
	return append(b, '}'), true
}

// appendCallFields writes the fields a tool call and its update share
// that sort before "sessionUpdate", each followed by a comma.
func appendCallFields(b []byte, content []sdk.ToolCallContent, kind string, locs []sdk.ToolCallLocation, rawInput any) ([]byte, bool) {
	if len(content) > 0 {
		b = append(b, `"content":[`...)
		for i, c := range content {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendCallContent(b, c); !ok {
				return b, false
			}
		}
		b = append(b, "],"...)
	}
	if kind != "" {
		b = append(b, `"kind":`...)
		b = appendString(b, kind)
		b = append(b, ',')
	}
	if len(locs) > 0 {
		b = append(b, `"locations":[`...)
		for i, l := range locs {
			if l.Meta != nil {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if l.Line != nil {
				// as the SDK's maps have it: a float64
				b = append(b, `"line":`...)
				b = strconv.AppendFloat(b, float64(*l.Line), 'f', -1, 64)
				b = append(b, ',')
			}
			b = append(b, `"path":`...)
			b = appendString(b, l.Path)
			b = append(b, '}')
		}
		b = append(b, "],"...)
	}
	if rawInput != nil {
		// The SDK encodes the arguments, decodes them into maps and
		// encodes them again: keys sorted, numbers as float64. They are
		// small; the same steps here give the same bytes.
		enc, err := json.Marshal(rawInput)
		if err != nil {
			return b, false
		}
		var v any
		if json.Unmarshal(enc, &v) != nil {
			return b, false
		}
		if enc, err = json.Marshal(v); err != nil {
			return b, false
		}
		b = append(b, `"rawInput":`...)
		b = append(b, enc...)
		b = append(b, ',')
	}
	return b, true
}

// appendCallContent writes a tool call's text or diff content.
func appendCallContent(b []byte, c sdk.ToolCallContent) ([]byte, bool) {
	switch {
	case c.Content != nil && c.Diff == nil && c.Terminal == nil:
		if c.Content.Meta != nil {
			return b, false
		}
		b = append(b, `{"content":`...)
		var ok bool
		if b, ok = appendTextBlock(b, c.Content.Content); !ok {
			return b, false
		}
		return append(b, `,"type":"content"}`...), true
	case c.Diff != nil && c.Content == nil && c.Terminal == nil:
		d := c.Diff
		if d.Meta != nil {
			return b, false
		}
		b = append(b, `{"newText":`...)
		b = appendString(b, d.NewText)
		if d.OldText != nil {
			b = append(b, `,"oldText":`...)
			b = appendString(b, *d.OldText)
		}
		b = append(b, `,"path":`...)
		b = appendString(b, d.Path)
		return append(b, `,"type":"diff"}`...), true
	}
	return b, false
}

func appendPlan(b []byte, p *sdk.SessionUpdatePlan) ([]byte, bool) {
	if p.Meta != nil {
		return b, false
	}
	b = append(b, `{"entries":`...)
	if p.Entries == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range p.Entries {
			if e.Meta != nil {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"content":`...)
			b = appendString(b, e.Content)
			b = append(b, `,"priority":`...)
			b = appendString(b, string(e.Priority))
			b = append(b, `,"status":`...)
			b = appendString(b, string(e.Status))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, `,"sessionUpdate":"plan"}`...), true
}

// appendString writes s as a JSON string the way encoding/json writes a
// string it decoded from its own output, as the SDK's maps are: a byte
// that is not UTF-8 as U+FFFD itself (the first encoding made it
// \ufffd, the decoding the character).
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s, jsonstr.Replaced) }

// appendStringOnce writes s as encoding/json does: the session id, which
// the SDK encodes once.
func appendStringOnce(b []byte, s string) []byte { return jsonstr.Append(b, s, jsonstr.Escaped) }
