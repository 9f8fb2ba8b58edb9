package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestACPMentionsReachTheModel: what an ACP client attaches to a prompt
// reaches the model: a resource link as the file it names (the model
// reads it itself), an embedded resource with its text and lines; and a
// session's additionalDirectories are in the environment context.
func TestACPMentionsReachTheModel(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		block sdk.ContentBlock
		want  []string
	}{
		{"resource link", sdk.ResourceLinkBlock("main.go", "file://"+filepath.Join(dir, "main.go")),
			[]string{"Referenced file: " + filepath.Join(dir, "main.go")}},
		{"embedded resource", sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{
			Uri: "file://" + filepath.Join(dir, "util.go") + "#L3-4", Text: "func helperMarker() {}"}}),
			[]string{"Selected from util.go, lines 3-4", "func helperMarker() {}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fakemodel.New(fakemodel.Say("ok"))
			t.Cleanup(m.Close)
			r := startACP(t, m, dir, t.TempDir(), &acpClient{})
			r.initialize(false)
			res, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, AdditionalDirectories: []string{other}, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatal(err)
			}
			pr, err := r.conn.Prompt(r.ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("look"), tc.block}})
			if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("prompt: %+v %v", pr, err)
			}
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d model requests", len(reqs))
			}
			body := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\"`, `"`, `\n`, "\n").Replace(string(reqs[0].Body))
			for _, want := range append(tc.want, `<folder access="writable">`+other+`</folder>`) {
				if !strings.Contains(body, want) {
					t.Errorf("the request lacks %q:\n%s", want, body)
				}
			}
		})
	}
}
