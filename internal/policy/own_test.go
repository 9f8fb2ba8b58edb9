package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

// agent-ls's own folders stay protected wherever the workspace is: a
// change to the config folder inside the project (through a link too)
// is not writable without asking, and says why.
func TestOwnPathsAreNotWritable(t *testing.T) {
	home := realTemp(t)
	cfg := filepath.Join(home, ".config", "agent-ls")
	state := filepath.Join(home, ".local", "state", "agent-ls")
	mustMkdir(t, cfg, state, filepath.Join(home, "proj"))
	mustSymlink(t, cfg, filepath.Join(home, "proj", "cfglink"))
	b, err := NewBoundary(WorkspaceWrite, home, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b = b.WithOwn([]OwnPath{{Path: cfg, What: "agent-ls's config folder"}, {Path: state, What: "agent-ls's state folder"}})
	for _, p := range []string{
		filepath.Join(cfg, "config.toml"),
		filepath.Join(home, "proj", "cfglink", "config.toml"),
		filepath.Join(state, "sessions", "x.jsonl"),
		cfg,
	} {
		tg := b.Target(p)
		if tg.Writable {
			t.Errorf("%s is writable without asking", p)
			continue
		}
		if !strings.Contains(tg.Why, "agent-ls reads, runs or trusts it") || !strings.Contains(tg.Why, "agent-ls's") {
			t.Errorf("%s: why = %q", p, tg.Why)
		}
		if b.ProtectedAt(p) == "" {
			t.Errorf("ProtectedAt(%s) is empty", p)
		}
	}
	if tg := b.Target(filepath.Join(home, "proj", "main.go")); !tg.Writable {
		t.Errorf("a project file is not writable: %s", tg.Why)
	}
	if got := b.Own(); len(got) != 2 || got[0].Real != cfg {
		t.Errorf("Own() = %+v", got)
	}
}

func TestHomeWorkspace(t *testing.T) {
	base := realTemp(t)
	home := filepath.Join(base, "home", "me")
	mustMkdir(t, filepath.Join(home, "proj"))
	mustSymlink(t, home, filepath.Join(base, "homelink"))
	for _, c := range []struct {
		root string
		want bool
	}{
		{home, true},
		{filepath.Join(base, "homelink"), true},
		{filepath.Join(base, "home"), true},
		{"/", true},
		{filepath.Join(home, "proj"), false},
		{filepath.Join(base, "elsewhere"), false},
	} {
		if got := HomeWorkspace(c.root, home); got != c.want {
			t.Errorf("HomeWorkspace(%s) = %v, want %v", c.root, got, c.want)
		}
	}
	if HomeWorkspace(home, "") {
		t.Error("no home: every workspace is a home workspace")
	}
}
