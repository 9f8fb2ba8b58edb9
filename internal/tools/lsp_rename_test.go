package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// renameAnswer is a WorkspaceEdit renaming "target" to "renamed" in
// a.go (UTF-16 positions: 𝄞 counts two) as a versioned TextDocumentEdit,
// and in b.go through changes.
func renameAnswer(a, b string) string {
	edit := func(line, char int) string {
		return fmt.Sprintf(`{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"newText":"renamed"}`, line, char, line, char+6)
	}
	return fmt.Sprintf(`{"documentChanges":[{"textDocument":{"uri":%q,"version":3},"edits":[%s,%s]}],"changes":{%q:[%s]}}`,
		testURI(a), edit(3, 4), edit(2, 16), testURI(b), edit(0, 0))
}

// TestLSPRenameIsAChangeSet: the client's WorkspaceEdit becomes one
// change set through approval, its edits applied in the client's
// encoding; documentChanges win over changes, as LSP says.
func TestLSPRenameIsAChangeSet(t *testing.T) {
	env, _, appr, ch := writeEnv(t, Decision{Allowed: true})
	writeFiles(t, env.Cwd, map[string]string{"a.go": astralSource, "b.go": "target()\n"})
	a, b := filepath.Join(env.Cwd, "a.go"), filepath.Join(env.Cwd, "b.go")
	lang := &fakeLanguage{enc: workspace.UTF16, answer: func(q *LanguageQuery) (string, error) {
		if q.Kind != QueryRename || q.NewName != "renamed" || *q.Position != (LSPPosition{Line: 3, Character: 4}) {
			return "", fmt.Errorf("query %+v", q)
		}
		return renameAnswer(a, b), nil
	}}
	env.Language = lang
	out := callTool(t, LSPRename{}, env, map[string]any{"path": "a.go", "line": 4, "column": 5, "new_name": "renamed"})
	if out.Failed || out.Text != "Renamed to renamed in 1 file:\nM a.go (2 edits)" {
		t.Fatalf("output %+v", out)
	}
	want := strings.ReplaceAll(astralSource, "+ target //", "+ renamed //")
	want = strings.ReplaceAll(want, "var target", "var renamed")
	if got := readBack(t, a); got != want {
		t.Errorf("a.go:\n%s\nwant\n%s", got, want)
	}
	if got := readBack(t, b); got != "target()\n" {
		t.Errorf("b.go changed though documentChanges did not name it: %q", got)
	}
	if len(appr.patches) != 1 || len(ch.sets) != 1 || appr.patches[0].Paths[0] != a || !strings.Contains(appr.patches[0].Diff, "+var renamed = 1") {
		t.Errorf("approvals %+v, sets %d", appr.patches, len(ch.sets))
	}
}

// TestLSPRenameRefused: a refused approval leaves every file as it was;
// a rename outside the boundary is asked about like any patch; edits
// that create files or overlap are refused before anything is asked.
func TestLSPRenameRefused(t *testing.T) {
	env, _, appr, ch := writeEnv(t, Decision{Allowed: false, Reason: "rejected by the user"})
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// No temporary roots: the other temporary folder is outside.
	if env.Boundary, err = policy.NewBoundary(policy.WorkspaceWrite, env.Cwd, nil, nil); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, env.Cwd, map[string]string{"a.go": astralSource})
	writeFiles(t, outside, map[string]string{"b.go": "target()\n"})
	a, b := filepath.Join(env.Cwd, "a.go"), filepath.Join(outside, "b.go")
	answer := fmt.Sprintf(`{"changes":{%q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":6}},"newText":"renamed"}]}}`, testURI(b))
	env.Language = &fakeLanguage{answer: func(*LanguageQuery) (string, error) { return answer, nil }}
	out := callTool(t, LSPRename{}, env, map[string]any{"path": "a.go", "line": 4, "column": 5, "new_name": "renamed"})
	if !out.Rejected || readBack(t, b) != "target()\n" || len(ch.sets) != 0 {
		t.Errorf("output %+v, b.go %q", out, readBack(t, b))
	}
	if len(appr.patches) != 1 || appr.patches[0].Targets[0].Writable {
		t.Errorf("the approver saw %+v", appr.patches)
	}
	for _, tc := range []struct{ answer, want string }{
		{fmt.Sprintf(`{"documentChanges":[{"kind":"create","uri":%q}]}`, testURI(a+".new")), "would also create a file"},
		{fmt.Sprintf(`{"changes":{%q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":5}},"newText":"x"},{"range":{"start":{"line":0,"character":2},"end":{"line":0,"character":3}},"newText":"y"}]}}`, testURI(a)), "edits overlap"},
		{`null`, "made no change"},
	} {
		env.Language = &fakeLanguage{answer: func(*LanguageQuery) (string, error) { return tc.answer, nil }}
		out := callTool(t, LSPRename{}, env, map[string]any{"path": "a.go", "line": 4, "column": 5, "new_name": "renamed"})
		if !out.Failed || !strings.Contains(out.Text, tc.want) {
			t.Errorf("%s: %+v", tc.want, out)
		}
	}
	if len(appr.patches) != 1 || readBack(t, a) != astralSource {
		t.Errorf("asked %d times; a.go %q", len(appr.patches), readBack(t, a))
	}
}

// TestLanguageAnswersRendered: hover, diagnostics, workspace and
// document symbols as the model reads them.
func TestLanguageAnswersRendered(t *testing.T) {
	env, _ := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"a.go": astralSource})
	uri := testURI(filepath.Join(env.Cwd, "a.go"))
	rng := func(line, char int) string {
		return fmt.Sprintf(`{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}`, line, char, line, char+1)
	}
	answers := map[LanguageKind]string{
		QueryHover: `{"contents":[{"language":"go","value":"var target int"},"The target."]}`,
		QueryDiagnostics: fmt.Sprintf(`[{"uri":%q,"diagnostics":[{"range":%s,"severity":1,"source":"compiler","code":"UndeclaredName","message":"undefined: target"},{"range":%s,"message":"unused"}]}]`,
			uri, rng(2, 16), rng(3, 4)),
		QueryWorkspaceSymbols: fmt.Sprintf(`[{"name":"target","kind":13,"containerName":"p","location":{"uri":%q,"range":%s}}]`, uri, rng(3, 4)),
		QueryDocumentSymbols: fmt.Sprintf(`[{"name":"T","kind":23,"detail":"struct{...}","range":%s,"selectionRange":%s,"children":[{"name":"f","kind":8,"range":%s,"selectionRange":%s}]}]`,
			rng(2, 0), rng(2, 16), rng(3, 0), rng(3, 4)),
	}
	env.Language = &fakeLanguage{answer: func(q *LanguageQuery) (string, error) { return answers[q.Kind], nil }}
	for _, tc := range []struct {
		h    Handler
		args map[string]any
		want string
	}{
		{LSPHover{}, map[string]any{"path": "a.go", "line": 4, "column": 5}, "```go\nvar target int\n```\n\nThe target."},
		{LSPDiagnostics{}, map[string]any{}, "a.go:3:16: error: undefined: target (compiler UndeclaredName)\na.go:4:5: problem: unused"},
		{LSPSymbols{}, map[string]any{"query": "targ"}, "a.go:4:5: variable target (in p)"},
		{LSPDocumentSymbols{}, map[string]any{"path": "a.go"}, "struct T struct{...}  3:16\n  field f  4:5"},
	} {
		if out := callTool(t, tc.h, env, tc.args); out.Failed || out.Text != tc.want {
			t.Errorf("%s: %q, want %q", tc.h.Spec().Name, out.Text, tc.want)
		}
	}
}
