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

// appendRound measures, in a store of its own under state, what
// recording a turn costs in a record of turns turns against a young
// one, under the same conditions: a session of turns turns is written,
// and its last window turns alternate, turn by turn, with the first
// window turns of a new session; then it is read back and resumed as a
// resume does, and window turns more alternate with those of another
// new session. The process has written turns-window turns before
// either is timed, so neither side is a cold start; alternating turn by
// turn, the machine's moments (another process, the disk's writeback)
// fall on both sides alike, and what is left is the record's length.
func appendRound(state, ws string, round, turns, window int) (young, last, resumed []time.Duration, bytes int64, err error) {
	dir := filepath.Join(state, fmt.Sprintf("append-%d", round), "sessions")
	defer os.RemoveAll(filepath.Dir(dir))
	id := fmt.Sprintf("s-append-%d", round)
	open := func(st *session.Store, id string, restored bool) (agent.Observer, error) {
		return st.Observe(agent.SessionInfo{SessionID: id, Cwd: ws, Model: "bench-model", ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, restored)
	}
	// alternate records window turns of old and of a new session, turn
	// by turn, the first of each pair by turns.
	alternate := func(st *session.Store, old *writer, from int, into *[]time.Duration, youngID string) error {
		obs, err := open(st, youngID, false)
		if err != nil {
			return err
		}
		y := &writer{obs: obs, session: youngID}
		for i := range window {
			if i%2 == 0 {
				young = append(young, y.turn(i+1))
				*into = append(*into, old.turn(from+i))
			} else {
				*into = append(*into, old.turn(from+i))
				young = append(young, y.turn(i+1))
			}
		}
		return nil
	}

	st := session.New(dir, nil)
	defer st.Close()
	obs, err := open(st, id, false)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	old := &writer{obs: obs, session: id}
	for n := 1; n <= turns-window; n++ {
		old.turn(n)
	}
	if err := alternate(st, old, turns-window+1, &last, id+"-young"); err != nil {
		return nil, nil, nil, 0, err
	}
	st.Close()
	fi, err := os.Stat(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		return nil, nil, nil, 0, err
	}

	st = session.New(dir, nil)
	defer st.Close()
	ld, err := st.Load(id)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if ld.Record.Turns != turns {
		return nil, nil, nil, 0, fmt.Errorf("the record of %d turns read back with %d", turns, ld.Record.Turns)
	}
	if obs, err = st.Observe(ld.Record.Info, true); err != nil {
		return nil, nil, nil, 0, err
	}
	old = &writer{obs: obs, session: id, seq: ld.Record.Seq}
	if err := alternate(st, old, turns+1, &resumed, id+"-young2"); err != nil {
		return nil, nil, nil, 0, err
	}
	return young, last, resumed, fi.Size(), nil
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
