package session

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// benchTurn records one turn of the size a working session has: a
// prompt, reasoning, a command with 2 KB of output, a patch with its
// diff, an answer, usage.
func benchTurn(obs agent.Observer, id string, n int, seq *int64) {
	turn := fmt.Sprintf("%s-t%d", id, n)
	ev := func(p event.Payload) {
		*seq++
		obs.Event(event.Event{SessionID: id, TurnID: turn, Seq: *seq, Payload: p})
	}
	prompt := fmt.Sprintf("Turn %d: make the parser accept trailing commas in lists and add a test for it.", n)
	output := strings.Repeat("ok  \tgithub.com/example/project/internal/parser\t0.012s\n", 40)
	diff := "--- a/parser.go\n+++ b/parser.go\n@@ -10,3 +10,4 @@\n func parseList() {\n-\treturn nil\n+\tskipComma()\n+\treturn nil\n }\n"
	obs.Item(model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: prompt})
	ev(event.TurnStarted{Prompt: prompt})
	obs.Item(model.Item{Type: model.ItemReasoning, ID: "rs" + turn, Summary: []string{"Looking at the parser first."}, EncryptedContent: strings.Repeat("e", 800)})
	ev(event.Reasoning{ItemID: "rs" + turn, Text: "Looking at the parser first."})
	args := `{"command":["go","test","./..."]}`
	obs.Item(model.Item{Type: model.ItemFunctionCall, ID: "fc" + turn, CallID: "c1" + turn, Name: "shell", Arguments: args})
	ev(event.ToolCall{CallID: "c1" + turn, Tool: "shell", Kind: event.KindExecute, Title: "go test ./...", Arguments: []byte(args)})
	ev(event.ToolResult{CallID: "c1" + turn, Tool: "shell", Status: event.ToolCompleted, Output: output, DurationMs: 1200})
	obs.Item(model.Item{Type: model.ItemFunctionCallOutput, CallID: "c1" + turn, Output: output})
	patch := "*** Begin Patch\n*** Update File: parser.go\n@@\n-\treturn nil\n+\tskipComma()\n+\treturn nil\n*** End Patch"
	obs.Item(model.Item{Type: model.ItemCustomToolCall, ID: "ct" + turn, CallID: "c2" + turn, Name: "apply_patch", Input: patch})
	ev(event.ToolCall{CallID: "c2" + turn, Tool: "apply_patch", Kind: event.KindEdit, Title: "Edit parser.go", Arguments: []byte(fmt.Sprintf("%q", patch))})
	ev(event.FileChange{CallID: "c2" + turn, Changes: []event.FileChangeEntry{{URI: "file:///w/parser.go", Kind: event.ChangeUpdate, Additions: 2, Deletions: 1}}, Diff: diff, Status: event.ChangeApplied})
	ev(event.ToolResult{CallID: "c2" + turn, Tool: "apply_patch", Status: event.ToolCompleted, Output: "Success. Updated parser.go", DurationMs: 3})
	obs.Item(model.Item{Type: model.ItemCustomToolCallOutput, CallID: "c2" + turn, Output: "Success. Updated parser.go"})
	answer := "Lists now accept a trailing comma; TestTrailingComma covers it and the suite passes."
	obs.Item(model.Item{Type: model.ItemMessage, ID: "msg" + turn, Role: model.RoleAssistant, Text: answer})
	ev(event.Message{ItemID: "msg" + turn, Text: answer})
	ev(event.Usage{InputTokens: 12000, CachedInputTokens: 11000, OutputTokens: 300})
	ev(event.TurnCompleted{Status: event.StatusCompleted, LastMessage: answer, Diff: diff})
}

// BenchmarkResume1000Turns reads back a session of 1,000 turns and
// restores it into a manager: what agent/resumeSession and exec --resume
// do before the next turn can start.
func BenchmarkResume1000Turns(b *testing.B) {
	dir, cwd := stateDir(b), b.TempDir()
	st := New(dir, nil)
	info := agent.SessionInfo{SessionID: "s-bench", Cwd: cwd, Model: "test-model", ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite}
	obs, err := st.Observe(info, false)
	if err != nil {
		b.Fatal(err)
	}
	var seq int64
	for n := 1; n <= 1000; n++ {
		benchTurn(obs, info.SessionID, n, &seq)
	}
	st.Close()
	fi, err := os.Stat(st.path(info.SessionID))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ld, err := st.Load(info.SessionID)
		if err != nil {
			b.Fatal(err)
		}
		if ld.Record.Turns != 1000 || len(ld.Problems) > 0 {
			b.Fatalf("turns %d, problems %q", ld.Record.Turns, ld.Problems)
		}
		b.StopTimer()
		mgr := manager(b, st, &script{}, newFrontend(agent.RejectOnce), cwd, policy.OnRequest)
		b.StartTimer()
		if _, err := mgr.Restore(ld.Record); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		mgr.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB-record")
}

// BenchmarkDecodeItem is the cost of reading one item line as a resume
// does: a tool's output, a call, an answer.
func BenchmarkDecodeItem(b *testing.B) {
	for _, c := range []struct {
		name string
		it   model.Item
	}{
		{"output", model.Item{Type: model.ItemFunctionCallOutput, CallID: "c1", Output: strings.Repeat("ok  \tgithub.com/example/project/internal/parser\t0.012s\n", 40)}},
		{"call", model.Item{Type: model.ItemFunctionCall, ID: "fc1", CallID: "c1", Name: "shell", Arguments: `{"command":["go","test","./..."]}`}},
		{"message", model.Item{Type: model.ItemMessage, ID: "msg1", Role: model.RoleAssistant, Text: "Lists now accept a trailing comma; TestTrailingComma covers it and the suite passes."}},
	} {
		line, err := json.Marshal(c.it)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				var it model.Item
				if !decodeItem(line, &it) {
					b.Fatal("the fast path refused the line")
				}
			}
		})
	}
}

// BenchmarkAppendItem is the cost of recording one history item (a
// 2 KB tool output) as a turn does: one line written to the file.
func BenchmarkAppendItem(b *testing.B) {
	st := New(stateDir(b), nil)
	defer st.Close()
	obs, err := st.Observe(agent.SessionInfo{SessionID: "s-append", Cwd: b.TempDir()}, false)
	if err != nil {
		b.Fatal(err)
	}
	it := model.Item{Type: model.ItemFunctionCallOutput, CallID: "c1", Output: strings.Repeat("ok  \tgithub.com/example/project\t0.012s\n", 50)}
	for b.Loop() {
		obs.Item(it)
	}
}

// BenchmarkAppendEvent is the cost of recording one event (a message).
func BenchmarkAppendEvent(b *testing.B) {
	st := New(stateDir(b), nil)
	defer st.Close()
	obs, err := st.Observe(agent.SessionInfo{SessionID: "s-append", Cwd: b.TempDir()}, false)
	if err != nil {
		b.Fatal(err)
	}
	ev := event.Event{SessionID: "s-append", TurnID: "s-append-t1", Seq: 1, Payload: event.Message{ItemID: "m1", Text: strings.Repeat("words ", 100)}}
	for b.Loop() {
		obs.Event(ev)
	}
}

// BenchmarkAppendTurn is the cost of recording a whole turn (17 lines,
// as benchTurn has it) into a young record, and into one that holds
// 1,000 turns already: the record is only appended to, so the two must
// cost the same. Every 50 turns, with the timer stopped, the young
// record starts over and the old one is cut back to its 1,000 turns, so
// each measures what its name says however many turns the benchmark
// runs.
func BenchmarkAppendTurn(b *testing.B) {
	const window = 50
	info := agent.SessionInfo{SessionID: "s-append", Cwd: b.TempDir(), Model: "test-model", ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite}
	run := func(b *testing.B, history int) {
		st := New(stateDir(b), nil)
		defer st.Close()
		var seq int64
		if history > 0 {
			obs, err := st.Observe(info, false)
			if err != nil {
				b.Fatal(err)
			}
			for n := 1; n <= history; n++ {
				benchTurn(obs, info.SessionID, n, &seq)
			}
			st.Release(info.SessionID)
		}
		fi, err := os.Stat(st.path(info.SessionID))
		if history > 0 && err != nil {
			b.Fatal(err)
		}
		// start opens the record anew: empty, or cut back to its history.
		start := func() agent.Observer {
			b.StopTimer()
			defer b.StartTimer()
			st.Release(info.SessionID)
			if history == 0 {
				if err := os.Remove(st.path(info.SessionID)); err != nil && !os.IsNotExist(err) {
					b.Fatal(err)
				}
			} else if err := os.Truncate(st.path(info.SessionID), fi.Size()); err != nil {
				b.Fatal(err)
			}
			obs, err := st.Observe(info, history > 0)
			if err != nil {
				b.Fatal(err)
			}
			return obs
		}
		var obs agent.Observer
		turn := history + window
		for b.Loop() {
			if turn == history+window {
				obs, turn = start(), history
			}
			turn++
			benchTurn(obs, info.SessionID, turn, &seq)
		}
	}
	b.Run("turns-1-50", func(b *testing.B) { run(b, 0) })
	b.Run("after-1000-turns", func(b *testing.B) { run(b, 1000) })
}
