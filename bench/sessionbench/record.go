package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/session"
)

// recorded is a session written for the benchmark: its id, its record's
// size, and what recording each turn cost (the sum over its lines).
type recorded struct {
	id    string
	bytes int64
	turns []time.Duration
}

// record writes a session of turns turns into the store of state, as a
// working session records them; every compactEvery turns (0: never) a
// compaction replaces its history, as agent-ls does near the context
// limit.
func record(state, ws, id string, turns, compactEvery int) (recorded, error) {
	st := session.New(filepath.Join(state, "agent-ls", "sessions"), nil)
	defer st.Close()
	obs, err := st.Observe(agent.SessionInfo{SessionID: id, Cwd: ws, Model: "bench-model", ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, false)
	if err != nil {
		return recorded{}, err
	}
	w := &writer{obs: obs, session: id}
	rec := recorded{id: id}
	for n := 1; n <= turns; n++ {
		rec.turns = append(rec.turns, w.turn(n))
		if compactEvery > 0 && n%compactEvery == 0 {
			w.compact(n)
		}
	}
	st.Close()
	fi, err := os.Stat(filepath.Join(st.Dir(), id+".jsonl"))
	if err != nil {
		return recorded{}, err
	}
	rec.bytes = fi.Size()
	return rec, nil
}

// appendResumed reads session id back as a resume does, and records
// turns more turns into its record, as the resumed session goes on:
// what each cost.
func appendResumed(state, id string, from, turns int) ([]time.Duration, error) {
	st := session.New(filepath.Join(state, "agent-ls", "sessions"), nil)
	defer st.Close()
	ld, err := st.Load(id)
	if err != nil {
		return nil, err
	}
	obs, err := st.Observe(ld.Record.Info, true)
	if err != nil {
		return nil, err
	}
	w := &writer{obs: obs, session: id, seq: ld.Record.Seq}
	var took []time.Duration
	for n := from; n < from+turns; n++ {
		took = append(took, w.turn(n))
	}
	return took, nil
}

// writer records turns and times them.
type writer struct {
	obs     agent.Observer
	session string
	seq     int64
}

// turn records turn n as a working session would have it: a prompt,
// reasoning, a command with its output, a patch with its diff, an
// answer, usage. It returns the time recording took.
func (w *writer) turn(n int) time.Duration {
	var took time.Duration
	turn := fmt.Sprintf("%s-t%d", w.session, n)
	item := func(it model.Item) {
		start := time.Now()
		w.obs.Item(it)
		took += time.Since(start)
	}
	send := func(p event.Payload) {
		w.seq++
		start := time.Now()
		w.obs.Event(event.Event{SessionID: w.session, TurnID: turn, Seq: w.seq, Payload: p})
		took += time.Since(start)
	}
	prompt := fmt.Sprintf("Step %d: handle empty input in the tokenizer and cover it with a test.", n)
	item(model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: prompt})
	send(event.TurnStarted{Prompt: prompt})
	item(model.Item{Type: model.ItemReasoning, ID: "rs_" + turn, Summary: []string{"Reading the tokenizer."}, EncryptedContent: strings.Repeat("x", 1000)})
	send(event.Reasoning{ItemID: "rs_" + turn, Text: "Reading the tokenizer."})
	cmd := `{"command":["go","test","./tokenizer/..."]}`
	out := strings.Repeat("=== RUN   TestTokenize\n--- PASS: TestTokenize (0.00s)\n", 30)
	item(model.Item{Type: model.ItemFunctionCall, ID: "fc_" + turn, CallID: "exec_" + turn, Name: "shell", Arguments: cmd})
	send(event.ToolCall{CallID: "exec_" + turn, Tool: "shell", Kind: event.KindExecute, Title: "go test ./tokenizer/...", Arguments: json.RawMessage(cmd)})
	send(event.ToolResult{CallID: "exec_" + turn, Tool: "shell", Status: event.ToolCompleted, Output: out, DurationMs: 900})
	item(model.Item{Type: model.ItemFunctionCallOutput, CallID: "exec_" + turn, Output: out})
	edit := "*** Begin Patch\n*** Update File: tokenizer.go\n@@\n func Tokenize(s string) []Token {\n+\tif s == \"\" {\n+\t\treturn nil\n+\t}\n*** End Patch"
	diff := "--- a/tokenizer.go\n+++ b/tokenizer.go\n@@ -1,2 +1,5 @@\n func Tokenize(s string) []Token {\n+\tif s == \"\" {\n+\t\treturn nil\n+\t}\n"
	item(model.Item{Type: model.ItemCustomToolCall, ID: "ctc_" + turn, CallID: "edit_" + turn, Name: "apply_patch", Input: edit})
	send(event.ToolCall{CallID: "edit_" + turn, Tool: "apply_patch", Kind: event.KindEdit, Title: "Edit tokenizer.go", Arguments: mustJSON(edit)})
	send(event.FileChange{CallID: "edit_" + turn, Status: event.ChangeApplied, Diff: diff,
		Changes: []event.FileChangeEntry{{URI: "file:///workspace/tokenizer.go", Kind: event.ChangeUpdate, Additions: 3}}})
	send(event.ToolResult{CallID: "edit_" + turn, Tool: "apply_patch", Status: event.ToolCompleted, Output: "Done: updated tokenizer.go", DurationMs: 4})
	item(model.Item{Type: model.ItemCustomToolCallOutput, CallID: "edit_" + turn, Output: "Done: updated tokenizer.go"})
	text := "Empty input now yields no tokens; TestTokenizeEmpty checks it."
	item(model.Item{Type: model.ItemMessage, ID: "msg_" + turn, Role: model.RoleAssistant, Text: text})
	send(event.Message{ItemID: "msg_" + turn, Text: text})
	send(event.Usage{InputTokens: 15000, CachedInputTokens: 14000, OutputTokens: 250})
	send(event.TurnCompleted{Status: event.StatusCompleted, LastMessage: text, Diff: diff})
	return took
}

// compact records a compaction after turn n, as agent-ls writes one: the
// history replaced by a summary and the turn's prompt, then the
// compacted event.
func (w *writer) compact(n int) {
	summary := fmt.Sprintf("Turns 1 to %d made the tokenizer accept empty input, with tests; all pass.", n)
	w.obs.Compacted([]model.Item{
		{Type: model.ItemMessage, Role: model.RoleUser, Text: fmt.Sprintf("Step %d: handle empty input in the tokenizer and cover it with a test.", n)},
		{Type: model.ItemMessage, Role: model.RoleUser, Text: "Another language model started this conversation; its summary:\n" + summary},
	})
	w.seq++
	w.obs.Event(event.Event{SessionID: w.session, TurnID: fmt.Sprintf("%s-t%d", w.session, n), Seq: w.seq,
		Payload: event.Compacted{Summary: summary, TokensBefore: 180000, TokensAfter: 3000}})
}

func mustJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
