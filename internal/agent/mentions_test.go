package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCompleteMention: mentions complete over the session's folders, and
// a file the agent adds is listed at once.
func TestCompleteMention(t *testing.T) {
	ws1, ws2 := t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(ws1, "app", "config.go"), filepath.Join(ws2, "lib", "config.go")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mgr := managerWith(t, &scriptedModel{}, newRecorder(), func(o *Options) { o.Cwd = ws1 })
	ctx := context.Background()
	got, err := wholeMentions(ctx, mgr, "", "config", 10)
	if err != nil || len(got) != 1 || got[0] != (Mention{Path: filepath.Join(ws1, "app", "config.go"), Kind: MentionFile}) {
		t.Errorf("the workspace of one folder: %v, %v", got, err)
	}
	info, err := mgr.NewSession(SessionOptions{Cwd: ws1, Folders: []string{ws2}})
	if err != nil {
		t.Fatal(err)
	}
	got, err = wholeMentions(ctx, mgr, info.SessionID, "lib", 10)
	want := []Mention{{Path: filepath.Join(ws2, "lib"), Kind: MentionFolder}, {Path: filepath.Join(ws2, "lib", "config.go"), Kind: MentionFile}}
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("the session's second folder: %v, %v", got, err)
	}
	if _, err := wholeMentions(ctx, mgr, "s-nope", "x", 1); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("an unknown session: %v", err)
	}
	fresh := filepath.Join(ws2, "lib", "fresh.go")
	if err := os.WriteFile(fresh, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mgr.FilesChanged(fresh)
	if got, _ := wholeMentions(ctx, mgr, info.SessionID, "fresh", 10); len(got) != 1 || got[0].Path != fresh {
		t.Errorf("a new file: %v", got)
	}
}

// wholeMentions is CompleteMention asked again until its answer is
// complete (a folder's first listing done), as a client does.
func wholeMentions(ctx context.Context, mgr *Manager, sessionID, query string, limit int) ([]Mention, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, complete, err := mgr.CompleteMention(ctx, sessionID, query, limit)
		if err != nil || complete || time.Now().After(deadline) {
			return got, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
