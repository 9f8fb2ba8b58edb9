package app

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-ls/agent-ls/internal/mcp"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// TestMCPRoots: the configured servers are offered the folders of every
// manager's sessions, each once, until the manager is closed; a manager
// without a session yet offers its own folder.
func TestMCPRoots(t *testing.T) {
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	set, err := mcp.NewSet([]mcp.ServerConfig{{Name: "x", Command: "x"}}, mcp.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	m := &mcpRoots{set: set}
	w, s, other := t.TempDir(), t.TempDir(), t.TempDir()
	uris := func() []string {
		var out []string
		for _, r := range set.Roots() {
			out = append(out, r.URI)
		}
		return out
	}
	want := func(dirs ...string) []string {
		var out []string
		for _, r := range mcp.RootsOf(dirs...) {
			out = append(out, r.URI)
		}
		return out
	}
	serve := m.owner(w)
	if got := uris(); !slices.Equal(got, want(w)) {
		t.Errorf("roots before a session %q", got)
	}
	serve.add(w)
	serve.add(s)
	serve.add(w)
	if got := uris(); !slices.Equal(got, want(w, s)) {
		t.Errorf("roots %q", got)
	}
	acp := m.owner(other)
	if got := uris(); !slices.Equal(got, want(w, s, other)) {
		t.Errorf("roots of two managers %q", got)
	}
	acp.add(s)
	if got := uris(); !slices.Equal(got, want(w, s)) {
		t.Errorf("roots once the second manager has a session %q", got)
	}
	serve.drop()
	if got := uris(); !slices.Equal(got, want(s)) {
		t.Errorf("roots after a manager closed %q", got)
	}
	if r := mcp.RootsOf(filepath.Join(w, "a b")); r[0].Name != "a b" || r[0].URI != "file://"+filepath.ToSlash(w)+"/a%20b" {
		t.Errorf("root %+v", r[0])
	}
	// Without servers nothing is kept.
	(&mcpRoots{}).owner(w).add(s)
}
