package acp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// sessionItems is a recorded session of turns like a working one: a
// prompt, a thought, a command and its output, a patch and its diff, an
// answer, usage.
func sessionItems(turns int) []json.RawMessage {
	var items []json.RawMessage
	seq := int64(0)
	for n := 1; n <= turns; n++ {
		turn := fmt.Sprintf("s-t%d", n)
		send := func(p event.Payload) {
			seq++
			b, _ := json.Marshal(event.Event{SessionID: "s", TurnID: turn, Seq: seq, Payload: p})
			items = append(items, b)
		}
		prompt := fmt.Sprintf("Step %d: handle empty input in the tokenizer and cover it with a test.", n)
		send(event.TurnStarted{Prompt: prompt})
		send(event.Reasoning{ItemID: "rs_" + turn, Text: "Reading the tokenizer."})
		cmd := `{"command":["go","test","./tokenizer/..."]}`
		out := strings.Repeat("=== RUN   TestTokenize\n--- PASS: TestTokenize (0.00s)\n", 30)
		send(event.ToolCall{CallID: "exec_" + turn, Tool: "shell", Kind: event.KindExecute, Title: "go test ./tokenizer/...", Arguments: json.RawMessage(cmd)})
		send(event.ToolResult{CallID: "exec_" + turn, Tool: "shell", Status: event.ToolCompleted, Output: out, DurationMs: 900})
		edit := "*** Begin Patch\n*** Update File: tokenizer.go\n@@\n func Tokenize(s string) []Token {\n+\tif s == \"\" {\n+\t\treturn nil\n+\t}\n*** End Patch"
		diff := "--- a/tokenizer.go\n+++ b/tokenizer.go\n@@ -1,2 +1,5 @@\n func Tokenize(s string) []Token {\n+\tif s == \"\" {\n+\t\treturn nil\n+\t}\n"
		eb, _ := json.Marshal(edit)
		send(event.ToolCall{CallID: "edit_" + turn, Tool: "apply_patch", Kind: event.KindEdit, Title: "Edit tokenizer.go", Arguments: eb})
		send(event.FileChange{CallID: "edit_" + turn, Status: event.ChangeApplied, Diff: diff,
			Changes: []event.FileChangeEntry{{URI: "file:///workspace/tokenizer.go", Kind: event.ChangeUpdate, Additions: 3}}})
		send(event.ToolResult{CallID: "edit_" + turn, Tool: "apply_patch", Status: event.ToolCompleted, Output: "Done: updated tokenizer.go", DurationMs: 4})
		text := "Empty input now yields no tokens; TestTokenizeEmpty checks it."
		send(event.Message{ItemID: "msg_" + turn, Text: text})
		send(event.Usage{InputTokens: 15000, CachedInputTokens: 14000, OutputTokens: 250})
		send(event.TurnCompleted{Status: event.StatusCompleted, LastMessage: text, Diff: diff})
	}
	return items
}

// BenchmarkReplay: what session/load does with a 1,000-turn session's
// record before the wire: each event read, turned into updates and
// encoded, and each message through the wire's own checks; beside it the
// same with every update encoded by the SDK.
func BenchmarkReplay(b *testing.B) {
	items := sessionItems(1000)
	for _, bySDK := range []bool{false, true} {
		name := "appendUpdate"
		if bySDK {
			name = "sdk"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				replayItems(b, items, bySDK)
			}
		})
	}
}

func replayItems(b *testing.B, items []json.RawMessage, bySDK bool) {
	v := newEventView()
	enc := &replayEncoder{}
	defer enc.close()
	var buf []byte
	var msgs [][]byte
	flush := func() {
		for _, m := range msgs {
			_ = scopeElicitation(nullOldText(m))
		}
		buf, msgs = nil, nil
	}
	for _, raw := range items {
		ev, err := event.Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		for _, u := range v.updates(ev, "/workspace", true) {
			if bySDK {
				m, err := enc.sdkEncode("s", u)
				if err != nil {
					b.Fatal(err)
				}
				buf = append(buf, m...)
				msgs = append(msgs, buf[len(buf)-len(m):])
				continue
			}
			buf, msgs = enc.append(buf, msgs, "s", &u)
		}
		if len(buf) > replayBatch {
			flush()
		}
	}
	flush()
}
