package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// checkpointSession starts a session of mgr that may run commands, and
// runs one turn whose command is script.
func checkpointSession(t *testing.T, mgr *Manager, m *scriptedModel, rec *recorder, script string) (SessionInfo, string) {
	t.Helper()
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	m.add(callTools(shellCall("s-"+info.SessionID, script)), say("m-"+info.SessionID, "done"))
	return info, rewindTurn(t, mgr, rec, info.SessionID, "run it")
}

// TestCheckpointsLeaveOutTheirStateInTheWorkspace: the state folder
// lies inside the workspace; a second session's snapshots hold none of
// the first session's store (nor its own).
func TestCheckpointsLeaveOutTheirStateInTheWorkspace(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	var state string
	mgr := managerWith(t, m, rec, func(o *Options) {
		state = filepath.Join(o.Cwd, ".local", "state", "agent-ls", "sessions")
		o.CheckpointDir = func(id string) string { return filepath.Join(state, id+".checkpoints") }
	})
	cwd := mgr.opts.Cwd
	for i := range 5 {
		write(t, filepath.Join(cwd, fmt.Sprintf("f%d.txt", i)), strings.Repeat("x", 100+i))
	}
	// A session's record lies beside its store.
	must(t, os.MkdirAll(state, 0o700))
	write(t, filepath.Join(state, "record.jsonl"), "{}\n")
	first, _ := checkpointSession(t, mgr, m, rec, "touch one.txt")
	if err := mgr.Forget(first.SessionID); err != nil {
		t.Fatal(err)
	}
	second, _ := checkpointSession(t, mgr, m, rec, "touch two.txt")
	s, err := mgr.session(second.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	for p := range s.checkpoints.tracker.Last() {
		if strings.HasPrefix(p, filepath.Join(cwd, ".local")) {
			t.Errorf("the second session's snapshot holds %s", p)
		}
	}
	if n := s.checkpoints.store.Size(); n > 1000 {
		t.Errorf("the second session's store holds %d bytes, more than the workspace", n)
	}
}

// TestFirstSnapshotWithinCheckpointMaxBytes: with a small budget the
// first snapshot leaves files out, and a rewind of a command that
// changed one of them names it in notRestored.
func TestFirstSnapshotWithinCheckpointMaxBytes(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	mgr := managerWith(t, m, rec, func(o *Options) { o.CheckpointMaxBytes = 3000 })
	cwd := mgr.opts.Cwd
	for i := range 10 {
		write(t, filepath.Join(cwd, fmt.Sprintf("f%d.txt", i)), strings.Repeat("x", 1000))
	}
	info, turn := checkpointSession(t, mgr, m, rec, "for f in f*.txt; do echo changed > $f; done")
	s, err := mgr.session(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.checkpoints.store.Size(); n > 3000+200 {
		t.Errorf("the store holds %d bytes, budget 3000", n)
	}
	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "")
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, nr := range res.NotRestored {
		if strings.Contains(nr.Reason, "checkpoint_max_bytes") {
			lost++
		}
	}
	if lost < 7 {
		t.Errorf("%d files named in notRestored for the budget, want at least 7: %+v", lost, res.NotRestored)
	}
}
