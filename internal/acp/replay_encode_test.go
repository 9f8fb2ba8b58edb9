package acp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/event"
)

// sdkBytes is the message the SDK's connection writes for u.
func sdkBytes(t testing.TB, enc *replayEncoder, id string, u sdk.SessionUpdate) []byte {
	t.Helper()
	m, err := enc.sdkEncode(id, u)
	if err != nil {
		return nil
	}
	return bytes.Clone(m)
}

// checkSame: appendUpdate writes u as the SDK does, or declines and
// leaves its buffer as it was.
func checkSame(t testing.TB, enc *replayEncoder, id string, u sdk.SessionUpdate, wantFast bool) {
	t.Helper()
	prefix := []byte("kept")
	got, ok := appendUpdate(bytes.Clone(prefix), id, &u)
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("appendUpdate changed what was in its buffer: %q", got)
	}
	got = got[len(prefix):]
	want := sdkBytes(t, enc, id, u)
	if !ok {
		if len(got) > 0 {
			t.Fatalf("declined but wrote %q", got)
		}
		if wantFast {
			b, _ := json.Marshal(u)
			t.Fatalf("declined an update a replay makes: %s", b)
		}
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("bytes differ from the SDK's\n got  %q\n want %q", got, want)
	}
}

// awkward are strings with every kind of character encoding/json treats
// apart.
var awkward = []string{
	"",
	"plain",
	"quote \" backslash \\ slash /",
	"<script>&amp;</script>",
	"line\nfeed\r\ttab\b\f",
	"\x00\x01\x1f\x7f",
	"\u2028 and \u2029",
	"\ufffd itself",
	"bad \xff byte \xc3 cut",
	"é日本語🙂",
	strings.Repeat("x", 5000) + "\n",
}

func allASCII() string {
	var b strings.Builder
	for c := range 128 {
		b.WriteByte(byte(c))
	}
	return b.String()
}

func TestAppendUpdateWritesTheSDKsBytes(t *testing.T) {
	enc := &replayEncoder{}
	defer enc.close()
	texts := append(slices.Clone(awkward), allASCII())
	line := 42
	big := 1 << 60
	old := "old\n<&>"
	title := "a title"
	kind := sdk.ToolKindEdit
	status := sdk.ToolCallStatusCompleted
	empty := ""
	msgID := "m-1"
	for _, s := range texts {
		for _, u := range []sdk.SessionUpdate{
			sdk.UpdateUserMessageText(s),
			sdk.UpdateAgentMessageText(s),
			sdk.UpdateAgentThoughtText(s),
			{AgentMessageChunk: &sdk.SessionUpdateAgentMessageChunk{Content: sdk.TextBlock(s), MessageId: &msgID}},
			{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: sdk.ToolCallId(s), Title: s}},
			{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: "c1", Title: s, Kind: sdk.ToolKindExecute, Status: sdk.ToolCallStatusPending,
				Locations: []sdk.ToolCallLocation{{Path: s}, {Path: "/w/a", Line: &line}, {Path: "/w/b", Line: &big}},
				RawInput:  json.RawMessage(`{"z":1,"a":[1.5,2e3,-0,12345678901234567890],"m":{"<":"&"},"s":` + string(mustMarshal(t, s)) + `}`),
				Content:   []sdk.ToolCallContent{textContent(s)}}},
			{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: "c2", Title: "t", RawInput: map[string]any{"query": s}}},
			{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: "c3", Title: "t", RawInput: json.RawMessage(`null`)}},
			{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c1", Status: &status, Title: &title, Kind: &kind,
				Content: []sdk.ToolCallContent{textContent(s), sdk.ToolDiffContent(s, s, old), sdk.ToolDiffContent("/w/new", s)}}},
			{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c1", Title: &empty, Status: sdk.Ptr(sdk.ToolCallStatus(""))}},
			{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c1", Locations: []sdk.ToolCallLocation{{Path: s}}}},
			{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c1"}},
			{Plan: &sdk.SessionUpdatePlan{Entries: []sdk.PlanEntry{{Content: s, Priority: sdk.PlanEntryPriorityHigh, Status: sdk.PlanEntryStatusCompleted}, {Content: "b"}}}},
			{Plan: &sdk.SessionUpdatePlan{Entries: []sdk.PlanEntry{}}},
			{Plan: &sdk.SessionUpdatePlan{}},
		} {
			checkSame(t, enc, "s-"+s, u, true)
		}
	}
}

// TestAppendUpdateLeavesTheRestToTheSDK: what a replay does not make is
// declined, never written differently.
func TestAppendUpdateLeavesTheRestToTheSDK(t *testing.T) {
	enc := &replayEncoder{}
	defer enc.close()
	meta := map[string]any{"x": 1}
	for name, u := range map[string]sdk.SessionUpdate{
		"usage":         {UsageUpdate: &sdk.SessionUsageUpdate{Used: 1, Size: 2}},
		"session info":  {SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: sdk.Ptr("t")}},
		"chunk meta":    {AgentMessageChunk: &sdk.SessionUpdateAgentMessageChunk{Meta: meta, Content: sdk.TextBlock("x")}},
		"image":         {UserMessageChunk: &sdk.SessionUpdateUserMessageChunk{Content: sdk.ImageBlock("aGk=", "image/png")}},
		"terminal":      {ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c", Content: []sdk.ToolCallContent{sdk.ToolTerminalRef("term-1")}}},
		"call meta":     {ToolCall: &sdk.SessionUpdateToolCall{Meta: meta, ToolCallId: "c"}},
		"raw output":    {ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c", RawOutput: map[string]any{"a": 1}}},
		"location meta": {ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: "c", Locations: []sdk.ToolCallLocation{{Meta: meta, Path: "/a"}}}},
		"diff meta":     {ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c", Content: []sdk.ToolCallContent{{Diff: &sdk.ToolCallContentDiff{Meta: meta, Path: "/a"}}}}},
		"plan meta":     {Plan: &sdk.SessionUpdatePlan{Meta: meta}},
		"entry meta":    {Plan: &sdk.SessionUpdatePlan{Entries: []sdk.PlanEntry{{Meta: meta}}}},
		"two variants":  {AgentMessageChunk: &sdk.SessionUpdateAgentMessageChunk{Content: sdk.TextBlock("x")}, UsageUpdate: &sdk.SessionUsageUpdate{}},
		"empty kind":    {ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c", Kind: sdk.Ptr(sdk.ToolKind(""))}},
		"bad raw input": {ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: "c", RawInput: json.RawMessage(`{`)}},
		"nothing":       {},
	} {
		t.Run(name, func(t *testing.T) { checkSame(t, enc, "s", u, false) })
	}
}

// TestReplayUpdatesAreWrittenAsTheSDKWrites: every update the event view
// makes of a recorded session is written by appendUpdate, as the SDK
// writes it, but the usage (sent once, by the SDK).
func TestReplayUpdatesAreWrittenAsTheSDKWrites(t *testing.T) {
	enc := &replayEncoder{}
	defer enc.close()
	v := newEventView()
	n := 0
	for _, s := range awkward {
		for _, p := range []event.Payload{
			event.TurnStarted{Prompt: s},
			event.Reasoning{ItemID: "r" + s, Text: s},
			event.ToolCall{CallID: "x", Tool: "shell", Kind: event.KindExecute, Title: s, Arguments: json.RawMessage(`{"command":["sh","-c",` + string(mustMarshal(t, s)) + `]}`)},
			event.ToolResult{CallID: "x", Tool: "shell", Status: event.ToolFailed, Output: s},
			event.ToolCall{CallID: "r", Tool: "read_file", Kind: event.KindRead, Title: "read", Arguments: json.RawMessage(`{"file_path":"a.go","offset":12}`)},
			event.ToolResult{CallID: "r", Tool: "read_file", Status: event.ToolCompleted, Output: s},
			event.ToolCall{CallID: "e", Tool: "apply_patch", Kind: event.KindEdit, Title: "Edit", Arguments: mustMarshal(t, "*** Begin Patch\n"+s)},
			event.FileChange{CallID: "e", Status: event.ChangeApplied, Diff: "--- a/t.go\n+++ b/t.go\n@@ -1,2 +1,2 @@\n-" + s + "\n+new\n ctx\n",
				Changes: []event.FileChangeEntry{{URI: "file:///w/t.go", Kind: event.ChangeUpdate, Additions: 1}}},
			event.FileChange{CallID: "e", Status: event.ChangeApplied, Diff: "--- /dev/null\n+++ b/n.go\n@@ -0,0 +1 @@\n+" + s + "\n",
				Changes: []event.FileChangeEntry{{URI: "file:///w/n.go", Kind: event.ChangeAdd, Additions: 1}}},
			event.ToolResult{CallID: "e", Tool: "apply_patch", Status: event.ToolCompleted, Output: "Done"},
			event.ToolCall{CallID: "p", Tool: "update_plan", Kind: event.KindThink, Title: "plan"},
			event.Plan{Steps: []event.PlanStep{{Step: s, Status: event.StepInProgress}, {Step: "b", Status: event.StepCompleted}, {Step: "c"}}},
			event.ToolResult{CallID: "p", Tool: "update_plan", Status: event.ToolCompleted},
			event.WebSearch{CallID: "w", Status: event.WebSearchCompleted, Query: s, Sources: []event.WebSource{{URL: "https://e.example/" + s, Title: s}}},
			event.Message{ItemID: "m" + s, Text: s},
			event.Compacted{Summary: s, TokensBefore: 100, TokensAfter: 10},
			event.TurnCompleted{Status: event.StatusFailed, Error: s},
		} {
			for _, u := range v.updates(event.Event{SessionID: "s", TurnID: "t", Payload: p}, "/w", true) {
				checkSame(t, enc, "s", u, true)
				n++
			}
		}
	}
	if n < 12*len(awkward) {
		t.Fatalf("only %d updates made", n)
	}
}

func FuzzAppendUpdate(f *testing.F) {
	for _, s := range awkward {
		f.Add(s, s)
	}
	enc := &replayEncoder{}
	defer enc.close()
	f.Fuzz(func(t *testing.T, a, b string) {
		checkSame(t, enc, a, sdk.UpdateAgentMessageText(b), true)
		checkSame(t, enc, "s", sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: sdk.ToolCallId(a),
			Content: []sdk.ToolCallContent{textContent(b), sdk.ToolDiffContent(a, b, a)}}}, true)
		raw := mustMarshal(t, map[string]string{a: b})
		checkSame(t, enc, "s", sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: "c", Title: b, RawInput: json.RawMessage(raw)}}, true)
	})
}

func mustMarshal(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplayEncoderKnowsTheSDKsFields: appendUpdate writes the fields of
// these SDK types, and declines the variants it does not know; a field or
// variant an SDK upgrade adds must be taught to it (or declined) before
// this passes again.
func TestReplayEncoderKnowsTheSDKsFields(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[sdk.SessionNotification]():            "Meta SessionId Update",
		reflect.TypeFor[sdk.SessionUpdate]():                  "UserMessageChunk AgentMessageChunk AgentThoughtChunk ToolCall ToolCallUpdate Plan PlanUpdate PlanRemoved AvailableCommandsUpdate CurrentModeUpdate ConfigOptionUpdate SessionInfoUpdate UsageUpdate",
		reflect.TypeFor[sdk.SessionUpdateUserMessageChunk]():  "Meta Content MessageId SessionUpdate",
		reflect.TypeFor[sdk.SessionUpdateAgentMessageChunk](): "Meta Content MessageId SessionUpdate",
		reflect.TypeFor[sdk.SessionUpdateAgentThoughtChunk](): "Meta Content MessageId SessionUpdate",
		reflect.TypeFor[sdk.ContentBlock]():                   "Text Image Audio ResourceLink Resource",
		reflect.TypeFor[sdk.ContentBlockText]():               "Meta Annotations Text Type",
		reflect.TypeFor[sdk.SessionUpdateToolCall]():          "Meta Content Kind Locations RawInput RawOutput SessionUpdate Status Title ToolCallId",
		reflect.TypeFor[sdk.SessionToolCallUpdate]():          "Meta Content Kind Locations RawInput RawOutput SessionUpdate Status Title ToolCallId",
		reflect.TypeFor[sdk.ToolCallContent]():                "Content Diff Terminal",
		reflect.TypeFor[sdk.ToolCallContentContent]():         "Meta Content Type",
		reflect.TypeFor[sdk.ToolCallContentDiff]():            "Meta NewText OldText Path Type",
		reflect.TypeFor[sdk.ToolCallLocation]():               "Meta Line Path",
		reflect.TypeFor[sdk.SessionUpdatePlan]():              "Meta Entries SessionUpdate",
		reflect.TypeFor[sdk.PlanEntry]():                      "Meta Content Priority Status",
	} {
		var names []string
		for f := range typ.Fields() {
			names = append(names, f.Name)
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%v has the fields %s; appendUpdate knows %s", typ, got, want)
		}
	}
}
