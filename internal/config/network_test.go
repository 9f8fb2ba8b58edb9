package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

func TestNetworkSetting(t *testing.T) {
	for _, c := range []struct {
		file string
		want policy.NetworkMode
	}{
		{"", policy.NetworkAsk},
		{"[sandbox_workspace_write]\nnetwork_access = true\n", policy.NetworkOn},
		{"[sandbox_workspace_write]\nnetwork_access = false\n", policy.NetworkOff},
		{"[sandbox_workspace_write]\nnetwork_access = true\nnetwork = \"ask\"\n", policy.NetworkAsk},
		{"[sandbox_workspace_write]\nnetwork = \"off\"\n", policy.NetworkOff},
	} {
		r, probs := load(t, Inputs{UserFile: writeFile(t, c.file)})
		if len(probs) > 0 || r.SandboxWorkspaceWrite.NetworkMode() != c.want {
			t.Errorf("%q: %q %q, want %q", c.file, r.SandboxWorkspaceWrite.NetworkMode(), problemStrings(probs), c.want)
		}
	}
	_, probs := load(t, Inputs{UserFile: writeFile(t, "[sandbox_workspace_write]\nnetwork = \"maybe\"\nallowed_domains = [\"*\", \"ok.example\"]\n")})
	got := strings.Join(problemStrings(probs), "\n")
	if !strings.Contains(got, `network: unknown value "maybe"`) || !strings.Contains(got, "allowed_domains[0]") || strings.Contains(got, "allowed_domains[1]") {
		t.Errorf("problems: %s", got)
	}
}

// TestProjectNetworkOnlyNarrowsAndAddsDenials: a project file may make
// the network narrower and deny more hosts, never allow one.
func TestProjectNetworkOnlyNarrowsAndAddsDenials(t *testing.T) {
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".agent-ls"), 0o755)
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(project, ProjectFile), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	user := writeFile(t, "[sandbox_workspace_write]\nnetwork = \"ask\"\nallowed_domains = [\"pypi.org\"]\ndenied_domains = [\"a.example\"]\n")
	write("[sandbox_workspace_write]\nnetwork = \"on\"\nallowed_domains = [\"evil.example\"]\ndenied_domains = [\"b.example\"]\n")
	r, probs := load(t, Inputs{UserFile: user, ProjectRoot: project})
	sw := r.SandboxWorkspaceWrite
	if sw.NetworkMode() != policy.NetworkAsk || !slices.Equal(sw.AllowedDomains, []string{"pypi.org"}) || !slices.Equal(sw.DeniedDomains, []string{"a.example", "b.example"}) {
		t.Errorf("after the project file: %+v", sw)
	}
	var keys []string
	for _, p := range probs {
		if p.Ignored {
			keys = append(keys, p.Key)
		}
	}
	if !slices.Equal(keys, []string{"sandbox_workspace_write.allowed_domains", "sandbox_workspace_write.network"}) {
		t.Errorf("ignored %q, want allowed_domains and network", problemStrings(probs))
	}
	write("[sandbox_workspace_write]\nnetwork = \"off\"\n")
	if r, probs := load(t, Inputs{UserFile: user, ProjectRoot: project}); r.SandboxWorkspaceWrite.NetworkMode() != policy.NetworkOff || len(probs) > 0 {
		t.Errorf("a narrower network from the project: %q %q", r.SandboxWorkspaceWrite.NetworkMode(), problemStrings(probs))
	}
}

// TestEditorNetworkOnlyNarrows: initializationOptions and
// didChangeConfiguration may only narrow the network setting.
func TestEditorNetworkOnlyNarrows(t *testing.T) {
	user := writeFile(t, "[sandbox_workspace_write]\nnetwork = \"ask\"\n")
	for _, c := range []struct {
		set     string
		want    policy.NetworkMode
		ignored bool
	}{{"off", policy.NetworkOff, false}, {"ask", policy.NetworkAsk, false}, {"on", policy.NetworkAsk, true}} {
		raw, _ := json.Marshal(map[string]string{"network": c.set})
		ed, probs := EditorLayer(raw, "initializationOptions")
		if len(probs) > 0 {
			t.Fatalf("%s: %q", c.set, problemStrings(probs))
		}
		r, probs := load(t, Inputs{UserFile: user, Editor: ed})
		if r.SandboxWorkspaceWrite.NetworkMode() != c.want || (len(probs) == 1) != c.ignored {
			t.Errorf("editor network %s: %q %q", c.set, r.SandboxWorkspaceWrite.NetworkMode(), problemStrings(probs))
		}
	}
	if _, probs := EditorLayer(json.RawMessage(`{"network":"wide"}`), "initializationOptions"); len(probs) != 1 {
		t.Errorf("a bad network value: %q", problemStrings(probs))
	}
}
