package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// A file a turn deleted that the user then made a folder (with their own
// file in it) is a conflict: the rewind neither empties the folder nor
// writes the file over it.
func TestRewindLeavesAFolderWhereTheFileWas(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	m.add(callTools(shellCall("s1", "rm b.txt")), say("m1", "done"))
	mgr, info := rewindSession(t, m, rec)
	turn := rewindTurn(t, mgr, rec, info.SessionID, "delete b")
	mine := filepath.Join(info.Cwd, "b.txt", "mine")
	os.Mkdir(filepath.Join(info.Cwd, "b.txt"), 0o755)
	write(t, mine, "user's\n")
	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, mine); got != "user's\n" {
		t.Errorf("the user's file in the folder: %q", got)
	}
	if !slices.ContainsFunc(res.Conflicts, func(c RewindIssue) bool { return c.Path == filepath.Join(info.Cwd, "b.txt") }) {
		t.Errorf("b.txt not a conflict: %+v (files %q, not restored %+v)", res.Conflicts, res.Files, res.NotRestored)
	}
}

// Two workspace folders, the cwd holding a link into the second, and a
// third folder that is only a link into the cwd: a command that changes
// files through the links is taken back once per real file.
func TestRewindAcrossLinkedWorkspaceFolders(t *testing.T) {
	other := t.TempDir()
	aliases := t.TempDir()
	write(t, filepath.Join(other, "x.txt"), "other\n")
	m := &scriptedModel{}
	rec := newRecorder()
	m.add(callTools(shellCall("s1", "sed -i s/other/OTHER/ lnk/x.txt && sed -i s/sed/SED/ "+filepath.Join(aliases, "cwd", "b.txt"))), say("m1", "done"))
	var cwd string
	mgr := managerWith(t, m, rec, func(o *Options) {
		cwd = o.Cwd
		o.Folders = []string{other, filepath.Join(aliases, "cwd")}
	})
	if err := os.Symlink(cwd, filepath.Join(aliases, "cwd")); err != nil {
		t.Fatal(err)
	}
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(cwd, "b.txt"), "sed me\n")
	if err := os.Symlink(other, filepath.Join(cwd, "lnk")); err != nil {
		t.Fatal(err)
	}
	turn := rewindTurn(t, mgr, rec, info.SessionID, "change both")
	if read(t, filepath.Join(other, "x.txt")) != "OTHER\n" || read(t, filepath.Join(cwd, "b.txt")) != "SED me\n" {
		t.Fatal("the command did not run")
	}
	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(other, "x.txt")); got != "other\n" {
		t.Errorf("the second folder's file: %q", got)
	}
	if got := read(t, filepath.Join(cwd, "b.txt")); got != "sed me\n" {
		t.Errorf("the cwd's file: %q", got)
	}
	if len(res.Files) != 2 || len(res.Conflicts) != 0 || len(res.NotRestored) != 0 {
		t.Errorf("files %q, conflicts %+v, not restored %+v", res.Files, res.Conflicts, res.NotRestored)
	}
}
