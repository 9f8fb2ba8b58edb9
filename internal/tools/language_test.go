package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// fakeLanguage answers language queries with answer(q) and keeps them.
type fakeLanguage struct {
	enc    workspace.Encoding
	answer func(q *LanguageQuery) (string, error)
	mu     sync.Mutex
	got    []LanguageQuery
}

func (f *fakeLanguage) Encoding() workspace.Encoding { return f.enc }

func (f *fakeLanguage) Query(_ context.Context, _ string, q *LanguageQuery) (json.RawMessage, error) {
	f.mu.Lock()
	f.got = append(f.got, *q)
	f.mu.Unlock()
	s, err := f.answer(q)
	return json.RawMessage(s), err
}

func testURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// astral is a line whose identifier "target" comes after a character
// outside the BMP (two UTF-16 units, four bytes) and one of two bytes.
const astralSource = "package p\n\nvar s = \"𝄞é\" + target // target\nvar target = 1\n"

// TestLanguagePositionEncodings: the model's 1-based line and column,
// counted in code points, reach the client as the exact character
// offset of its encoding, and the client's positions come back as the
// model's line and column, the line's text beside them.
func TestLanguagePositionEncodings(t *testing.T) {
	// In `var s = "𝄞é" + target`, target starts at code point 16
	// (1-based): 15 code points before it in UTF-32, 16 UTF-16 units
	// (𝄞 counts two), 19 bytes (𝄞 four, é two).
	for _, tc := range []struct {
		enc  workspace.Encoding
		char int
	}{{workspace.UTF32, 15}, {workspace.UTF16, 16}, {workspace.UTF8, 19}} {
		t.Run(tc.enc.String(), func(t *testing.T) {
			env, _ := testEnv(t)
			writeFiles(t, env.Cwd, map[string]string{"a.go": astralSource})
			path := filepath.Join(env.Cwd, "a.go")
			lang := &fakeLanguage{enc: tc.enc, answer: func(q *LanguageQuery) (string, error) {
				// The definition is the use itself, on line 3, plus one
				// as a LocationLink on line 4.
				return fmt.Sprintf(`[{"uri":%q,"range":{"start":{"line":2,"character":%d},"end":{"line":2,"character":%d}}},
					{"targetUri":%q,"targetRange":{"start":{"line":3,"character":0},"end":{"line":3,"character":14}},
					 "targetSelectionRange":{"start":{"line":3,"character":4},"end":{"line":3,"character":10}}}]`,
					testURI(path), q.Position.Character, q.Position.Character+6, testURI(path)), nil
			}}
			env.Language = lang
			for _, args := range []map[string]any{
				{"path": "a.go", "line": 3, "column": 16},
				{"path": "a.go", "line": 3, "symbol": "target"},
			} {
				out := callTool(t, LSPDefinition{}, env, args)
				want := "a.go:3:16: var s = \"𝄞é\" + target // target\na.go:4:5: var target = 1"
				if out.Failed || out.Text != want {
					t.Errorf("%v: %q, want %q", args, out.Text, want)
				}
			}
			for _, q := range lang.got {
				if q.Kind != QueryDefinition || q.Path != path || *q.Position != (LSPPosition{Line: 2, Character: tc.char}) {
					t.Errorf("query %+v %+v, want line 2 character %d", q, q.Position, tc.char)
				}
			}
		})
	}
}

// TestLanguageBadPlaces: a place that is not in the file, a symbol not on
// the line, and a session whose client cannot answer are errors the
// model can act on, and nothing is asked.
func TestLanguageBadPlaces(t *testing.T) {
	env, _ := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"a.go": astralSource})
	lang := &fakeLanguage{answer: func(*LanguageQuery) (string, error) { return "null", nil }}
	env.Language = lang
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "a.go", "line": 9, "column": 1}, "line 9 is past the end of the file (5 lines)"},
		{map[string]any{"path": "a.go", "line": 3, "column": 40}, "column 40 is past the end of line 3 (31 characters)"},
		{map[string]any{"path": "a.go", "line": 3, "symbol": "targ"}, `line 3 does not contain the identifier "targ"`},
		{map[string]any{"path": "a.go", "line": 3}, "give column (1-based) or symbol"},
		{map[string]any{"path": "nope.go", "line": 1, "column": 1}, "nope.go does not exist"},
	} {
		out := callTool(t, LSPDefinition{}, env, tc.args)
		if !out.Failed || !strings.Contains(out.Text, tc.want) {
			t.Errorf("%v: %q, want %q", tc.args, out.Text, tc.want)
		}
	}
	if len(lang.got) != 0 {
		t.Errorf("asked %+v", lang.got)
	}
	env.Language = nil
	out := callTool(t, LSPReferences{}, env, map[string]any{"path": "a.go", "line": 4, "column": 5})
	if !out.Failed || !strings.Contains(out.Text, "cannot be asked in this session") {
		t.Errorf("without a client: %q", out.Text)
	}
}

// TestLanguageReferencesBounded: references list at most
// maxLanguageResults places and count the rest, drop duplicates, and
// pass include_declaration on (true unless the model says otherwise).
func TestLanguageReferencesBounded(t *testing.T) {
	env, _ := testEnv(t)
	var src strings.Builder
	for i := range 70 {
		fmt.Fprintf(&src, "x%d := use()\n", i)
	}
	writeFiles(t, env.Cwd, map[string]string{"r.go": src.String()})
	uri := testURI(filepath.Join(env.Cwd, "r.go"))
	lang := &fakeLanguage{answer: func(*LanguageQuery) (string, error) {
		var locs []string
		for i := range 70 {
			l := fmt.Sprintf(`{"uri":%q,"range":{"start":{"line":%d,"character":6},"end":{"line":%d,"character":9}}}`, uri, i, i)
			locs = append(locs, l, l)
		}
		return "[" + strings.Join(locs, ",") + "]", nil
	}}
	env.Language = lang
	out := callTool(t, LSPReferences{}, env, map[string]any{"path": "r.go", "line": 1, "symbol": "use", "include_declaration": false})
	lines := strings.Split(out.Text, "\n")
	if lines[0] != "70 references:" || lines[1] != "r.go:1:7: x0 := use()" || lines[len(lines)-1] != "… 20 more references" || len(lines) != 52 {
		t.Errorf("output:\n%s", out.Text)
	}
	if q := lang.got[0]; q.Kind != QueryReferences || q.IncludeDeclaration == nil || *q.IncludeDeclaration {
		t.Errorf("query %+v", q)
	}
}

// TestLanguageReadOnlyToolsRunInParallel: two lsp_hover calls of one
// response are both asked before either is answered.
func TestLanguageReadOnlyToolsRunInParallel(t *testing.T) {
	env, _ := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"a.go": astralSource})
	var both sync.WaitGroup
	both.Add(2)
	env.Language = &fakeLanguage{answer: func(*LanguageQuery) (string, error) {
		both.Done()
		done := make(chan struct{})
		go func() { both.Wait(); close(done) }()
		select {
		case <-done:
			return `{"contents":{"kind":"markdown","value":"var target int"}}`, nil
		case <-time.After(10 * time.Second):
			return "", fmt.Errorf("the other hover never started")
		}
	}}
	r, err := NewRegistry(LSPHover{})
	if err != nil {
		t.Fatal(err)
	}
	var calls []*Call
	for _, id := range []string{"h1", "h2"} {
		calls = append(calls, &Call{CallID: id, Name: "lsp_hover", Arguments: json.RawMessage(`{"path":"a.go","line":4,"column":5}`)})
	}
	for _, res := range r.Run(context.Background(), env, calls, func(*Call, Handler, Result) {}) {
		if res.Output.Text != "var target int" {
			t.Errorf("hover: %+v", res.Output)
		}
	}
}
