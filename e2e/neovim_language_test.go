//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// The Go module the language flow works on: Greet is defined in a.go
// and used twice in b.go.
const (
	langGoMod = "module example.com/greet\n\ngo 1.21\n"
	langA     = "package greet\n\n// Greet says hello.\nfunc Greet(name string) string { return \"Hello, \" + name }\n"
	langB     = "package greet\n\nfunc Both() string { return Greet(\"x\") + Greet(\"y\") }\n"
)

// gopls is the gopls `make test` installs (make gopls) into .cache/bin;
// outside CI the language tests skip without it.
func gopls(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".cache", "bin", "gopls"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("gopls is not installed (make gopls): %v", err)
		}
		t.Skip("gopls is not installed (make gopls installs it)")
	}
	return p
}

// TestNeovimPluginLanguage: the model asks Neovim's other language
// server, gopls, through the plugin (testdata/plugin_language.lua):
// the definition of a symbol used in b.go is found in a.go; from 0.10
// on also its references, a rename applied across both files (b.go open
// in a buffer, a.go not) and undone with :AgentUndo; then the
// diagnostics of an unsaved edit of b.go.
func TestNeovimPluginLanguage(t *testing.T) {
	gp := gopls(t)
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			full := name != "system" // Debian 12's 0.7.2: definition and diagnostics
			flow := "basic"
			steps := []fakemodel.Step{
				fakemodel.Answer(fakemodel.FunctionCall("d1", "lsp_definition", `{"path":"b.go","line":3,"symbol":"Greet"}`)),
				fakemodel.Say("Found it."),
			}
			if full {
				flow = "full"
				steps = []fakemodel.Step{
					fakemodel.Answer(fakemodel.FunctionCall("d1", "lsp_definition", `{"path":"b.go","line":3,"symbol":"Greet"}`),
						fakemodel.FunctionCall("r1", "lsp_references", `{"path":"a.go","line":4,"column":6}`)),
					fakemodel.Answer(fakemodel.FunctionCall("n1", "lsp_rename", `{"path":"a.go","line":4,"column":6,"new_name":"Hello"}`)),
					fakemodel.Say("Renamed."),
				}
			}
			steps = append(steps, fakemodel.Answer(fakemodel.FunctionCall("g1", "lsp_diagnostics", `{"path":"b.go"}`)), fakemodel.Say("It is broken."))
			m := fakemodel.New(steps...)
			t.Cleanup(m.Close)
			r, ws := startPluginDriverEnv(t, nvim, "plugin_language.lua", m, flow, []string{"AGENT_LS_TEST_GOPLS=" + gp}, func(ws string) {
				for name, text := range map[string]string{"go.mod": langGoMod, "a.go": langA, "b.go": langB} {
					if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			if testing.Verbose() {
				t.Logf("editor output:\n%s", r.out.String())
			}
			reqs := m.Requests()
			if len(reqs) != len(steps) {
				t.Fatalf("%d model requests, want %d", len(reqs), len(steps))
			}
			if !strings.Contains(string(reqs[0].Body), `"name":"lsp_rename"`) {
				t.Errorf("the lsp tools are not offered")
			}
			check := func(req int, callID string, want ...string) {
				t.Helper()
				out := toolOutput(t, reqs[req].Body, callID)
				for _, w := range want {
					if !strings.Contains(out, w) {
						t.Errorf("%s: the model read\n%s\nwant %q", callID, out, w)
					}
				}
			}
			check(1, "d1", `a.go:4:6: func Greet(name string) string { return "Hello, " + name }`)
			if full {
				check(1, "r1", "3 references:\na.go:4:6: func Greet", `b.go:3:29: func Both() string { return Greet("x") + Greet("y") }`, "b.go:3:42:")
				// gopls renames the doc comment too.
				check(2, "n1", "Renamed to Hello in 2 files:\n", "M a.go (2 edits)", "M b.go (2 edits)")
			}
			check(len(steps)-1, "g1", `b.go:4:18: error: cannot use "s"`)
			for name, text := range map[string]string{"a.go": langA, "b.go": langB} {
				if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != text {
					t.Errorf("%s after the undo:\n%s", name, b)
				}
			}
		})
	}
}

// toolOutput is the output of call callID in a model request's body.
func toolOutput(t *testing.T, body []byte, callID string) string {
	t.Helper()
	var req struct {
		Input []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Output string `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, it := range req.Input {
		if it.Type == "function_call_output" && it.CallID == callID {
			return it.Output
		}
	}
	return ""
}
