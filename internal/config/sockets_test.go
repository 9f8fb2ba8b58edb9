package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAllowProjectSocketsIsTheUsers: allow_project_sockets, which lets
// sandboxed commands reach sockets made outside the sandbox, is set by
// the user's config and ignored in a project's, even where the user's
// config turned it off.
func TestAllowProjectSocketsIsTheUsers(t *testing.T) {
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ProjectFile), []byte("[sandbox_workspace_write]\nallow_project_sockets = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, probs := load(t, Inputs{UserFile: writeFile(t, "[sandbox_workspace_write]\nallow_project_sockets = false\n"), ProjectRoot: project})
	if r.SandboxWorkspaceWrite.AllowProjectSockets {
		t.Errorf("a project file turned allow_project_sockets on")
	}
	if len(probs) != 1 || !probs[0].Ignored || probs[0].Key != "sandbox_workspace_write.allow_project_sockets" {
		t.Errorf("want the project's sandbox_workspace_write ignored, got %q", problemStrings(probs))
	}
	r, probs = load(t, Inputs{UserFile: writeFile(t, "[sandbox_workspace_write]\nallow_project_sockets = true\n")})
	if !r.SandboxWorkspaceWrite.AllowProjectSockets || len(probs) > 0 {
		t.Errorf("the user's allow_project_sockets = true: %v %q", r.SandboxWorkspaceWrite.AllowProjectSockets, problemStrings(probs))
	}
	if r.Sources["sandbox_workspace_write.allow_project_sockets"] == "" {
		t.Errorf("no source for allow_project_sockets: %v", r.Sources)
	}
}
