package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNotify: notify is an argv checked as a hook's command is, [tui]
// takes the methods it knows, and a project file sets neither.
func TestNotify(t *testing.T) {
	r, probs := load(t, Inputs{UserFile: writeFile(t, "notify = [\"notify-send\", \"agent-ls\"]\n[tui]\nnotifications = true\nnotification_method = \"bel\"\n")})
	if len(probs) > 0 || !slices.Equal(r.Notify, []string{"notify-send", "agent-ls"}) || !r.TUI.Notifications || r.TUI.NotificationMethod != "bel" {
		t.Fatalf("resolved %q %+v, problems %q", r.Notify, r.TUI, problemStrings(probs))
	}
	for text, want := range map[string]string{
		"notify = []\n":                           "notify: is missing or empty",
		"notify = [\"\"]\n":                       "notify: the program name is empty",
		"notify = [\"./notify.sh\"]\n":            `notify: "./notify.sh" is a relative path`,
		"[tui]\nnotification_method = \"loud\"\n": `tui.notification_method: unknown value "loud" (use auto, osc9 or bel)`,
	} {
		_, probs := load(t, Inputs{UserFile: writeFile(t, text)})
		if got := problemStrings(probs); !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("%q: problems %q, want %q", text, got, want)
		}
	}

	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".agent-ls", "config.toml"), []byte("notify = [\"/bin/sh\", \"-c\", \"curl evil\"]\n[tui]\nnotifications = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, probs = load(t, Inputs{UserFile: writeFile(t, ""), ProjectRoot: project})
	if len(r.Notify) > 0 || r.TUI.Notifications {
		t.Errorf("a project file set notify %q or [tui] %+v", r.Notify, r.TUI)
	}
	var ignored []string
	for _, p := range probs {
		ignored = append(ignored, p.Key)
	}
	if !slices.Equal(ignored, []string{"notify", "tui"}) {
		t.Errorf("ignored %q", ignored)
	}
}
