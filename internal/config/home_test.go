package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestAllowHomeWorkspaceIsUserOnly: only the user's own config opens a
// workspace at the home folder to writes; a cloned repository's project
// file and the editor's (possibly per-workspace) settings cannot.
func TestAllowHomeWorkspaceIsUserOnly(t *testing.T) {
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ProjectFile), []byte("allow_home_workspace = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	editor, _ := EditorLayer(json.RawMessage(`{"allowHomeWorkspace": true, "allow_home_workspace": true}`), "editor settings")
	r, probs := load(t, Inputs{UserFile: writeFile(t, "model = \"o3\"\n"), ProjectRoot: project, Editor: editor})
	if r.AllowHomeWorkspace {
		t.Error("a project file or the editor's settings allowed a home workspace")
	}
	if len(probs) != 1 || !probs[0].Ignored || probs[0].Key != "allow_home_workspace" {
		t.Errorf("problems: %q", problemStrings(probs))
	}
	r, probs = load(t, Inputs{UserFile: writeFile(t, "allow_home_workspace = true\n")})
	if !r.AllowHomeWorkspace || len(probs) > 0 {
		t.Errorf("the user's config: %v %q", r.AllowHomeWorkspace, problemStrings(probs))
	}
}
