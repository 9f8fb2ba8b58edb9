package event

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// samples holds one event of every type, with every field set (optional
// ones too) and text that needs escaping, so the golden files pin the
// whole wire shape.
var samples = []Payload{
	TurnStarted{Prompt: "Fix the failing test in <main.go> & \"explain\"\n", Mode: "plan"},
	MessageDelta{ItemID: "msg_1", Delta: "Fixed "},
	Message{ItemID: "msg_1", Text: "Fixed the test.\nIt failed on 日本 input."},
	ReasoningDelta{ItemID: "rs_1", Delta: "Looking "},
	Reasoning{ItemID: "rs_1", Text: "Looking at the test.\n\nThen the code."},
	ToolCall{CallID: "call_1", Tool: "shell", Kind: KindExecute, Title: "go test ./...",
		Arguments: json.RawMessage(`{"command":["bash","-lc","go test ./..."],"timeout_ms":60000}`)},
	ExecOutput{CallID: "call_1", Stream: "stderr", Chunk: "--- FAIL: TestRoundTrip\n\x1b[31mred\x1b[0m\n"},
	ToolResult{CallID: "call_1", Tool: "shell", Status: ToolFailed, Output: "Exit code: 1\nOutput:\nFAIL\n", DurationMs: 1234},
	FileChange{CallID: "call_2", Changes: []FileChangeEntry{
		{URI: "file:///w/a.go", Kind: "update", Additions: 2, Deletions: 1},
		{URI: "file:///w/old.go", Kind: "move", NewURI: "file:///w/new.go"},
	}, Diff: "--- a/a.go\n+++ b/a.go\n@@ -1 +1,2 @@\n-x\n+y\n+z\n", Status: "applied"},
	Plan{Explanation: "Two steps.", Steps: []PlanStep{{Step: "fix", Status: StepCompleted}, {Step: "test", Status: StepInProgress}, {Step: "ship", Status: StepPending}}},
	Approval{ApprovalID: "ap_1", Kind: "exec", Decision: "allowAlways"},
	Usage{InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 80, ReasoningTokens: 40, ContextWindow: 272000,
		RateLimits: &RateLimits{RemainingRequests: ptr[int64](499), RemainingTokens: ptr[int64](29000), ResetRequestsMs: ptr[int64](120),
			ResetTokensMs: ptr[int64](2000), LimitRequests: ptr[int64](500), LimitTokens: ptr[int64](30000)}},
	Retry{Attempt: 2, DelayMs: 400, Message: "503 Service Unavailable: overloaded"},
	Compacted{Summary: "The user asked for a fix; tests pass.", TokensBefore: 200000, TokensAfter: 12000},
	TurnCompleted{Status: StatusFailed, Error: "model request failed after 5 attempts", LastMessage: "Fixed.", Diff: "--- a/a.go\n+++ b/a.go\n"},
	ToolProgress{CallID: "call_3", Progress: 2, Total: 5.5, Message: "indexing \"src\""},
	TerminalStarted{TerminalID: "1000", CallID: "call_4", Command: []string{"bash", "-lc", "python3 -i"}, Cwd: "/w", TTY: true},
	TerminalOutput{TerminalID: "1000", Data: ">>> x = 2\r\n\x1b[0m日本\uFFFD"},
	TerminalExited{TerminalID: "1000", ExitCode: 137},
	WebSearch{CallID: "ws_1", Query: "go 1.25 \"release\" notes", Status: WebSearchCompleted,
		Sources: []WebSource{{URL: "https://go.dev/doc/go1.25", Title: "Go 1.25 Release Notes"}, {URL: "https://example.com/a?b=c&d"}}},
}

func ptr[T any](v T) *T { return &v }

// TestToolProgressText: the line front ends show for a progress event.
func TestToolProgressText(t *testing.T) {
	for _, c := range []struct {
		p    ToolProgress
		want string
	}{
		{ToolProgress{Progress: 3, Total: 10, Message: "copying"}, "3/10 copying"},
		{ToolProgress{Progress: 0.25}, "0.25"},
		{ToolProgress{Progress: 7, Message: "rows"}, "7 rows"},
	} {
		if got := c.p.Text(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}

// TestGoldenJSON checks each event type's JSON against
// testdata/golden/<type>.json (go test -update rewrites them): the header
// fields first, then the payload's, with the names and omissions the
// protocol defines.
func TestGoldenJSON(t *testing.T) {
	for i, p := range samples {
		t.Run(string(p.EventType()), func(t *testing.T) {
			ev := Event{SessionID: "s1", TurnID: "t1", Seq: int64(i + 1), Payload: p}
			got, err := json.MarshalIndent(ev, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", string(p.EventType())+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("JSON of %s differs from %s:\n got %s\nwant %s", p.EventType(), path, got, want)
			}
			// The header is read back from the same object.
			var head struct {
				SessionID, TurnID, Type string
				Seq                     int64
			}
			if err := json.Unmarshal(got, &head); err != nil || head.SessionID != "s1" || head.TurnID != "t1" ||
				head.Seq != int64(i+1) || head.Type != string(p.EventType()) {
				t.Errorf("header read back as %+v (%v)", head, err)
			}
		})
	}
}

// A payload with only empty optional fields still carries its required
// ones: omitempty is on exactly the optional fields.
func TestOptionalFieldsOmitted(t *testing.T) {
	for _, tc := range []struct {
		p      Payload
		absent []string
	}{
		{Plan{Steps: []PlanStep{}}, []string{"explanation"}},
		{Usage{}, []string{"contextWindow"}},
		{TurnCompleted{Status: StatusCompleted}, []string{"error", "lastMessage"}},
		{FileChange{Changes: []FileChangeEntry{{URI: "file:///a", Kind: "add"}}}, []string{"newUri"}},
	} {
		b, err := json.Marshal(Event{Payload: tc.p})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tc.absent {
			if bytes.Contains(b, []byte(`"`+k+`"`)) {
				t.Errorf("%s: %s present when empty: %s", tc.p.EventType(), k, b)
			}
		}
		if tc.p.EventType() == "turnCompleted" && !bytes.Contains(b, []byte(`"diff":""`)) {
			t.Errorf("turnCompleted without its diff: %s", b)
		}
	}
	if _, err := json.Marshal(Event{Seq: 3}); err == nil || !strings.Contains(err.Error(), "no payload") {
		t.Errorf("an event without payload marshals: %v", err)
	}
}

// Every type with an EventType method has a sample, and every golden file
// a type, so a new event cannot go out without its golden JSON.
func TestEveryEventTypeHasGolden(t *testing.T) {
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var declared []string
	for _, name := range sources {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "EventType" || fn.Recv == nil {
				continue
			}
			if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
				declared = append(declared, id.Name)
			}
		}
	}
	var sampled []string
	for _, p := range samples {
		sampled = append(sampled, strings.TrimPrefix(fmt.Sprintf("%T", p), "event."))
	}
	slices.Sort(declared)
	slices.Sort(sampled)
	if !slices.Equal(declared, sampled) {
		t.Errorf("payload types %v, samples of %v", declared, sampled)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if len(files) != len(samples) {
		t.Errorf("%d golden files for %d event types: %v", len(files), len(samples), files)
	}
}

// A terminal event between turns carries an empty turnId, present on the
// wire, and reads back as such.
func TestTerminalEventBetweenTurns(t *testing.T) {
	b, err := json.Marshal(Event{SessionID: "s1", Seq: 4, Payload: TerminalExited{TerminalID: "1001", ExitCode: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"turnId":""`)) || !bytes.Contains(b, []byte(`"exitCode":0`)) {
		t.Errorf("between turns: %s", b)
	}
	ev, err := Parse(b)
	if err != nil || ev.TurnID != "" || ev.Payload != (TerminalExited{TerminalID: "1001"}) {
		t.Errorf("read back as %#v (%v)", ev, err)
	}
}
