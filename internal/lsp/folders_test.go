package lsp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// SetFolders records the folders the server gave and tells about the
// ones named "readonly".
func (a *fakeAgent) SetFolders(folders []string) []Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.folders = append(a.folders, slices.Clone(folders))
	var msgs []Message
	for _, f := range folders {
		if strings.HasSuffix(f, "readonly") {
			msgs = append(msgs, Message{Text: "read-only: " + f})
		}
	}
	return msgs
}

func (a *fakeAgent) folderChanges() [][]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.folders)
}

// TestWorkspaceFolders: the agent is built with every workspace folder,
// the server says it takes their changes, and a change reaches the agent
// in order, its notice shown to the user.
func TestWorkspaceFolders(t *testing.T) {
	h := newHarness(t)
	one, two, ro := t.TempDir(), t.TempDir(), t.TempDir()+"/readonly"
	res, err := h.ed.Initialize(h.ctx, editor.Options{WorkspaceFolders: []string{one, two}})
	if err != nil {
		t.Fatal(err)
	}
	h.agent = <-h.agents
	if got := h.agent.cfg.Folders; !slices.Equal(got, []string{one, two}) || h.agent.cfg.Cwd != one {
		t.Errorf("the agent was built with folders %v, cwd %s", got, h.agent.cfg.Cwd)
	}
	caps, _ := json.Marshal(res.Capabilities.Workspace)
	if !strings.Contains(string(caps), `"workspaceFolders":{"supported":true,"changeNotifications":true}`) {
		t.Errorf("workspace capabilities %s", caps)
	}
	change := func(added, removed []string) {
		t.Helper()
		wf := func(paths []string) []protocol.WorkspaceFolder {
			out := []protocol.WorkspaceFolder{}
			for _, p := range paths {
				out = append(out, protocol.WorkspaceFolder{URI: uri.File(p), Name: p})
			}
			return out
		}
		if err := h.ed.Notify(h.ctx, protocol.MethodWorkspaceDidChangeWorkspaceFolders, map[string]any{
			"event": map[string]any{"added": wf(added), "removed": wf(removed)}}); err != nil {
			t.Fatal(err)
		}
		h.sync()
	}
	change([]string{ro}, []string{two})
	change([]string{two}, nil)
	got := h.agent.folderChanges()
	if want := [][]string{{one, ro}, {one, ro, two}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("the agent's folders went %v, want %v", got, want)
	}
	if _, err := h.ed.WaitMessage(h.ctx, func(m protocol.ShowMessageParams) bool { return m.Message == "read-only: "+ro }); err != nil {
		t.Errorf("the notice was not shown: %v (shown %v)", err, h.ed.Shown())
	}
}
