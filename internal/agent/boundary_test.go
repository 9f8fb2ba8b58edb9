package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestPatchOutsideTheBoundaryAsks: under the default policies a change to
// a symlink that leads out of the workspace, below a folder that is such a
// symlink, or to a protected name asks the user, naming the real target;
// under "never" it is refused without asking. Nothing of it is allowed
// on its own.
func TestPatchOutsideTheBoundaryAsks(t *testing.T) {
	outside, err := os.MkdirTemp(outsideTestDir(t), "agent-ls-out-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	for _, tc := range []struct {
		name  string
		setup func(ws string)
		path  string // relative to the workspace
		real  func(ws string) string
	}{
		{"symlink to a file outside", func(ws string) { os.Symlink(filepath.Join(outside, "victim"), filepath.Join(ws, "link")) }, "link",
			func(string) string { return filepath.Join(outside, "victim") }},
		{"below a symlinked folder", func(ws string) { os.Symlink(outside, filepath.Join(ws, "dir")) }, "dir/new.go",
			func(string) string { return filepath.Join(outside, "new.go") }},
		{"git hook", func(ws string) { os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755) }, ".git/hooks/pre-commit",
			func(ws string) string { return filepath.Join(ws, ".git") }},
		{"git config", func(ws string) { os.MkdirAll(filepath.Join(ws, ".git"), 0o755) }, ".git/config",
			func(ws string) string { return filepath.Join(ws, ".git") }},
		{"agents", func(string) {}, ".agents/AGENTS.md", func(ws string) string { return filepath.Join(ws, ".agents") }},
		{"agent-ls", func(string) {}, ".agent-ls/config.toml", func(ws string) string { return filepath.Join(ws, ".agent-ls") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := &askingFrontend{recorder: newRecorder(), answers: []string{RejectOnce}}
			tr, ctx := testTurn(t, fe, policy.OnRequest, policy.WorkspaceWrite)
			ws := tr.s.info.Cwd
			tc.setup(ws)
			d, err := turnApprover{tr}.Patch(ctx, patchRequest(tr, filepath.Join(ws, tc.path)))
			if err != nil || d.Allowed || fe.count() != 1 {
				t.Fatalf("on-request: %+v, %v, asked %d", d, err, fe.count())
			}
			if want := tc.real(ws); !strings.Contains(fe.asked[0].Reason, want) {
				t.Errorf("the question does not name %s: %q", want, fe.asked[0].Reason)
			}
			if got := decisions(fe.recorder); len(got) != 1 || got[0] != RejectOnce {
				t.Errorf("decisions %q", got)
			}

			rec := newRecorder()
			tr2, ctx2 := testTurn(t, rec, policy.Never, policy.WorkspaceWrite)
			tc.setup(tr2.s.info.Cwd)
			d, _ = turnApprover{tr2}.Patch(ctx2, patchRequest(tr2, filepath.Join(tr2.s.info.Cwd, tc.path)))
			if d.Allowed || !strings.HasPrefix(d.Reason, "refused:") {
				t.Errorf("never: %+v", d)
			}
			for _, ev := range rec.all() {
				if a, ok := ev.Payload.(event.Approval); ok && a.Decision != AutoReject {
					t.Errorf("never: decision %q", a.Decision)
				}
			}
		})
	}
}

// outsideTestDir is a folder outside /tmp and $TMPDIR, which are writable
// roots themselves.
func outsideTestDir(t *testing.T) string {
	t.Helper()
	for _, d := range []string{"/var/tmp"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	d, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no folder outside /tmp")
	}
	return d
}
