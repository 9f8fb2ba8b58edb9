package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// testEnv returns an Env rooted at a fresh directory, reading through an
// editor store (nothing open yet).
func testEnv(t *testing.T) (*Env, *workspace.Store) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := workspace.NewStore()
	return &Env{Cwd: dir, Emit: func(event.Payload) {}, Files: st, Boundary: testBoundary(t, policy.WorkspaceWrite, dir)}, st
}

// testBoundary is the boundary of a session rooted at dir.
func testBoundary(t *testing.T, mode policy.SandboxMode, dir string) *policy.Boundary {
	t.Helper()
	b, err := policy.NewBoundary(mode, dir, nil, policy.TempRoots(os.Getenv("TMPDIR")))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFiles creates files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// call runs h through a registry, so arguments are validated as the model's
// would be.
func callTool(t *testing.T, h Handler, env *Env, args any) Output {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRegistry(h)
	if err != nil {
		t.Fatal(err)
	}
	c := &Call{CallID: "c1", Name: h.Spec().Name, Type: Function, Arguments: raw}
	res := r.Run(context.Background(), env, []*Call{c}, func(*Call, Handler, Result) {})
	return res[0].Output
}
