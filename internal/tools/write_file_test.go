package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// recordingApprover answers every patch with decision and keeps the
// requests; commands are not expected.
type recordingApprover struct {
	t        *testing.T
	decision Decision
	patches  []PatchRequest
}

func (a *recordingApprover) Exec(context.Context, ExecRequest) (ExecDecision, error) {
	a.t.Error("write_file asked to run a command")
	return ExecDecision{}, nil
}

func (a *recordingApprover) RetryUnsandboxed(context.Context, ExecRequest, string) (Decision, error) {
	a.t.Error("write_file asked to run a command unsandboxed")
	return Decision{}, nil
}

func (a *recordingApprover) Patch(_ context.Context, req PatchRequest) (Decision, error) {
	a.patches = append(a.patches, req)
	return a.decision, nil
}

func (a *recordingApprover) Tool(context.Context, ToolRequest) (Decision, error) {
	a.t.Error("write_file asked to call another tool")
	return Decision{}, nil
}

// diskChanger writes change sets to disk, as the agent does without an
// editor, or fails with err; it keeps what it was given.
type diskChanger struct {
	err  error
	sets []*workspace.ChangeSet
}

func (c *diskChanger) Apply(_ context.Context, _ string, cs *workspace.ChangeSet) error {
	c.sets = append(c.sets, cs)
	if c.err != nil {
		return c.err
	}
	return workspace.WriteToDisk(cs)
}

// writeEnv is an Env whose approver decides with decision and whose
// changes go to disk.
func writeEnv(t *testing.T, decision Decision) (*Env, *workspace.Store, *recordingApprover, *diskChanger) {
	t.Helper()
	env, st := testEnv(t)
	a := &recordingApprover{t: t, decision: decision}
	c := &diskChanger{}
	env.Approver, env.Changes = a, c
	return env, st, a, c
}

func readBack(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFileCreates(t *testing.T) {
	env, _, a, c := writeEnv(t, Decision{Allowed: true})
	out := callTool(t, WriteFile{}, env, map[string]any{"file_path": "sub/dir/new.go", "content": "package dir\n\nfunc F() {}\n"})
	if out.Failed || out.Text != "Success. Updated the following files:\nA sub/dir/new.go" {
		t.Fatalf("output %+v", out)
	}
	abs := filepath.Join(env.Cwd, "sub", "dir", "new.go")
	if got := readBack(t, abs); got != "package dir\n\nfunc F() {}\n" {
		t.Errorf("on disk %q", got)
	}
	if len(a.patches) != 1 || len(c.sets) != 1 {
		t.Fatalf("%d approvals, %d change sets", len(a.patches), len(c.sets))
	}
	req := a.patches[0]
	if req.CallID != "c1" || len(req.Paths) != 1 || req.Paths[0] != abs || len(req.Targets) != 1 || !req.Targets[0].Writable {
		t.Errorf("approval request %+v", req)
	}
	for _, want := range []string{"--- /dev/null\n+++ b/sub/dir/new.go", "@@ -0,0 +1,3 @@", "+package dir", "+func F() {}"} {
		if !strings.Contains(req.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, req.Diff)
		}
	}
	if req.Summary != "agent-ls: write sub/dir/new.go" {
		t.Errorf("summary %q", req.Summary)
	}
	fc := c.sets[0].Changes[0]
	if fc.Kind != workspace.Add || fc.OldContent != nil || fc.Path != abs || fc.Real != abs {
		t.Errorf("change %+v", fc)
	}
}

func TestWriteFileReplaces(t *testing.T) {
	env, _, a, c := writeEnv(t, Decision{Allowed: true})
	writeFiles(t, env.Cwd, map[string]string{"a.txt": "one\ntwo\n"})
	if err := os.Chmod(filepath.Join(env.Cwd, "a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := callTool(t, WriteFile{}, env, map[string]any{"file_path": "a.txt", "content": "one\nthree\n"})
	if out.Failed || out.Text != "Success. Updated the following files:\nM a.txt" {
		t.Fatalf("output %+v", out)
	}
	abs := filepath.Join(env.Cwd, "a.txt")
	if got := readBack(t, abs); got != "one\nthree\n" {
		t.Errorf("on disk %q", got)
	}
	if fi, err := os.Stat(abs); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after the write: %v %v", fi.Mode(), err)
	}
	if d := a.patches[0].Diff; !strings.Contains(d, "-two\n") || !strings.Contains(d, "+three\n") || strings.Contains(d, "-one") {
		t.Errorf("diff:\n%s", d)
	}
	if fc := c.sets[0].Changes[0]; fc.Kind != workspace.Update || string(fc.OldContent) != "one\ntwo\n" {
		t.Errorf("change %+v", fc)
	}
}

// The file as the user sees it is the editor's buffer: the change is
// computed against its unsaved text, and writing that text again does
// nothing.
func TestWriteFileOverEditorBuffer(t *testing.T) {
	env, st, a, c := writeEnv(t, Decision{Allowed: true})
	writeFiles(t, env.Cwd, map[string]string{"open.go": "package disk\n"})
	abs := filepath.Join(env.Cwd, "open.go")
	st.Open(workspace.Doc{Path: abs, Text: "package editor\n", Dirty: true})

	out := callTool(t, WriteFile{}, env, map[string]any{"file_path": "open.go", "content": "package editor\n"})
	if out.Failed || out.Text != "open.go already has this content; nothing to do." {
		t.Fatalf("same content: %+v", out)
	}
	if len(a.patches) != 0 || len(c.sets) != 0 {
		t.Fatalf("same content asked %d approvals, applied %d change sets", len(a.patches), len(c.sets))
	}

	// Without an editor to take the change, the disk write refuses to
	// replace a file whose content is not the one the change was computed
	// from: the unsaved buffer is never overwritten behind the user's back.
	out = callTool(t, WriteFile{}, env, map[string]any{"file_path": "open.go", "content": "package both\n"})
	if !out.Rejected || !strings.Contains(out.Text, "changed since it was read") {
		t.Fatalf("output %+v", out)
	}
	if got := readBack(t, abs); got != "package disk\n" {
		t.Errorf("disk holds %q", got)
	}
	if fc := c.sets[0].Changes[0]; string(fc.OldContent) != "package editor\n" {
		t.Errorf("old content %q, want the editor's", fc.OldContent)
	}
	if d := a.patches[0].Diff; !strings.Contains(d, "-package editor") {
		t.Errorf("diff not against the editor's text:\n%s", d)
	}
}

func TestWriteFileRefused(t *testing.T) {
	t.Run("by the user", func(t *testing.T) {
		env, _, _, c := writeEnv(t, Decision{Reason: "rejected by the user"})
		writeFiles(t, env.Cwd, map[string]string{"a.txt": "keep\n"})
		out := callTool(t, WriteFile{}, env, map[string]any{"file_path": "a.txt", "content": "lost\n"})
		if !out.Failed || !out.Rejected || out.Text != "patch rejected by the user" {
			t.Errorf("output %+v", out)
		}
		if len(c.sets) != 0 || readBack(t, filepath.Join(env.Cwd, "a.txt")) != "keep\n" {
			t.Error("a refused write changed the file")
		}
	})
	t.Run("by the editor", func(t *testing.T) {
		env, _, _, c := writeEnv(t, Decision{Allowed: true})
		c.err = &workspace.RejectedError{Reason: "document changed"}
		out := callTool(t, WriteFile{}, env, map[string]any{"file_path": "b.txt", "content": "x"})
		if !out.Failed || !out.Rejected || !strings.Contains(out.Text, "the editor did not apply the change (document changed)") {
			t.Errorf("output %+v", out)
		}
		if _, err := os.Stat(filepath.Join(env.Cwd, "b.txt")); !os.IsNotExist(err) {
			t.Errorf("file exists after a rejected edit: %v", err)
		}
	})
	t.Run("no way to change files", func(t *testing.T) {
		env, _ := testEnv(t)
		out := callTool(t, WriteFile{}, env, map[string]any{"file_path": "c.txt", "content": "x"})
		if !out.Rejected || out.Text != "rejected: files cannot be changed in this session" {
			t.Errorf("output %+v", out)
		}
	})
}

func TestWriteFileBadArguments(t *testing.T) {
	env, _, a, _ := writeEnv(t, Decision{Allowed: true})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"file_path": "", "content": "x"}, "write_file: `file_path` is empty"},
		{map[string]any{"file_path": "a"}, "content"},
		{map[string]any{"file_path": "a", "content": "x", "mode": "0755"}, "mode"},
		{map[string]any{"file_path": 3, "content": "x"}, "file_path"},
	} {
		out := callTool(t, WriteFile{}, env, tc.args)
		if !out.Failed || !strings.Contains(out.Text, tc.want) {
			t.Errorf("%v: output %+v, want a failure mentioning %q", tc.args, out, tc.want)
		}
	}
	if len(a.patches) != 0 {
		t.Errorf("%d approvals for bad calls", len(a.patches))
	}
}

// A write through a symbolic link is decided and made on the link's
// target, and the link stays.
func TestWriteFileThroughSymlink(t *testing.T) {
	env, _, a, c := writeEnv(t, Decision{Allowed: true})
	writeFiles(t, env.Cwd, map[string]string{"real/target.txt": "old\n"})
	link := filepath.Join(env.Cwd, "link.txt")
	if err := os.Symlink(filepath.Join("real", "target.txt"), link); err != nil {
		t.Fatal(err)
	}
	out := callTool(t, WriteFile{}, env, map[string]any{"file_path": "link.txt", "content": "new\n"})
	if out.Failed {
		t.Fatalf("output %+v", out)
	}
	real := filepath.Join(env.Cwd, "real", "target.txt")
	if a.patches[0].Targets[0].Real != real || c.sets[0].Changes[0].Real != real {
		t.Errorf("target %+v, change %+v", a.patches[0].Targets[0], c.sets[0].Changes[0])
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if got := readBack(t, real); got != "new\n" {
		t.Errorf("target holds %q", got)
	}
}

func TestWriteFileDescribes(t *testing.T) {
	w := WriteFile{}
	if w.Kind() != event.KindEdit || !w.Mutating(nil) || w.Spec().Name != "write_file" {
		t.Errorf("kind %q, mutating %v, name %q", w.Kind(), w.Mutating(nil), w.Spec().Name)
	}
	for args, want := range map[string]string{`{"file_path":"x/y.go","content":""}`: "Write x/y.go", `{}`: "Write a file", `nope`: "Write a file"} {
		if got := w.Title(&Call{Arguments: json.RawMessage(args)}); got != want {
			t.Errorf("Title(%s) = %q, want %q", args, got, want)
		}
	}
}
