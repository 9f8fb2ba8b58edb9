package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUseUnifiedExec: use_unified_exec is unset by default (the model
// family decides), set by the user file, a profile over it, and -c over
// both; a project file cannot set it.
func TestUseUnifiedExec(t *testing.T) {
	r, probs := load(t, Inputs{UserFile: writeFile(t, "model = \"m\"\n")})
	if len(probs) > 0 || r.UseUnifiedExec != nil {
		t.Fatalf("default: %v %v", r.UseUnifiedExec, probs)
	}
	user := writeFile(t, "use_unified_exec = true\n[profiles.classic]\nuse_unified_exec = false\n")
	r, probs = load(t, Inputs{UserFile: user})
	if len(probs) > 0 || r.UseUnifiedExec == nil || !*r.UseUnifiedExec {
		t.Errorf("user file: %v %v", r.UseUnifiedExec, probs)
	}
	flags := &Layer{Source: "flags"}
	flags.Set("profile", "classic", "--profile")
	r, _ = load(t, Inputs{UserFile: user, Flags: flags})
	if r.UseUnifiedExec == nil || *r.UseUnifiedExec {
		t.Errorf("profile: %v", r.UseUnifiedExec)
	}
	flags.Merge(override(t, "use_unified_exec=true"), "-c use_unified_exec=true")
	r, _ = load(t, Inputs{UserFile: user, Flags: flags})
	if r.UseUnifiedExec == nil || !*r.UseUnifiedExec || !strings.HasPrefix(r.Sources["use_unified_exec"], "-c") {
		t.Errorf("-c: %v from %q", r.UseUnifiedExec, r.Sources["use_unified_exec"])
	}
	project := t.TempDir()
	writeProject(t, project, "use_unified_exec = true\n")
	r, probs = load(t, Inputs{UserFile: writeFile(t, "use_unified_exec = false\n"), ProjectRoot: project})
	if r.UseUnifiedExec == nil || *r.UseUnifiedExec || len(probs) != 1 || probs[0].Key != "use_unified_exec" || !probs[0].Ignored {
		t.Errorf("project file: %v %v", r.UseUnifiedExec, probs)
	}
}

// writeProject writes root's project file .agent-ls/config.toml.
func writeProject(t *testing.T, root, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".agent-ls", "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
