//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHostileProjectFiles: a project's config file that is a link to
// /dev/zero, a named pipe or too large is reported, never waited on or
// read whole, and the rest of the configuration holds.
func TestHostileProjectFiles(t *testing.T) {
	for name, make := range map[string]func(path string) error{
		"link to /dev/zero": func(path string) error { return os.Symlink("/dev/zero", path) },
		"named pipe":        func(path string) error { return syscall.Mkfifo(path, 0o644) },
		"too large": func(path string) error {
			return os.WriteFile(path, []byte("model = \"o3\"\n#"+strings.Repeat("x", MaxFileBytes)+"\n"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.Mkdir(filepath.Join(root, ".agent-ls"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := make(filepath.Join(root, ProjectFile)); err != nil {
				t.Skip("SKIPPING: cannot make it here:", err)
			}
			r, probs := load(t, Inputs{UserFile: writeFile(t, "model = \"mine\"\n"), ProjectRoot: root})
			if r.Model != "mine" || len(probs) != 2 || !strings.Contains(probs[0].Message, "not a regular file") && !strings.Contains(probs[0].Message, "over the limit") {
				t.Errorf("model %q, problems %q", r.Model, problemStrings(probs))
			}
		})
	}
}
