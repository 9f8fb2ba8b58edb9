package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// fullDisk passes writes to w until it is told to fail; then each write
// puts half its bytes out (as a disk filling up does) and fails with
// ENOSPC, until it is told to work again.
type fullDisk struct {
	w    io.Writer
	full bool
}

// told collects what the store tells the user (Store.Notify).
type told struct {
	mu    sync.Mutex
	wg    sync.WaitGroup
	texts []string
}

func (c *told) watch(st *Store, n int) {
	c.wg.Add(n)
	st.Notify(func(text string) {
		c.mu.Lock()
		c.texts = append(c.texts, text)
		c.mu.Unlock()
		c.wg.Done()
	})
}

func (c *told) all() string {
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.texts, "\n")
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if !d.full {
		return d.w.Write(p)
	}
	n, _ := d.w.Write(p[:len(p)/2])
	return n, &os.PathError{Op: "write", Path: "record", Err: syscall.ENOSPC}
}

// TestRecordWrittenAgainAfterAFullDisk: lines that could not be written
// while the disk was full are appended, in order, once writing works
// again, no cut line stays in the record, and the log says what happened.
func TestRecordWrittenAgainAfterAFullDisk(t *testing.T) {
	var logs bytes.Buffer
	st := New(stateDir(t), slog.New(slog.NewTextHandler(&logs, nil)))
	var user told
	user.watch(st, 2)
	obs, err := st.Observe(agent.SessionInfo{SessionID: "s-full", Cwd: t.TempDir()}, false)
	if err != nil {
		t.Fatal(err)
	}
	w := obs.(*writer)
	disk := &fullDisk{w: w.f}
	w.out = disk
	var want []string
	for i := range 30 {
		disk.full = i >= 10 && i < 20
		turn := fmt.Sprintf("turn-%d", i)
		w.Undone(turn)
		want = append(want, turn)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	data, err := os.ReadFile(st.path("s-full"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")[1:] {
		var ln line
		if err := json.Unmarshal([]byte(l), &ln); err != nil {
			t.Fatalf("line %d is not whole: %q", i+2, l)
		}
		got = append(got, ln.Turn)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("record holds\n%v\nwant\n%v", got, want)
	}
	if ld, err := st.Load("s-full"); err != nil || len(ld.Problems) > 0 {
		t.Errorf("load: %v %q", err, ld.Problems)
	}
	log := logs.String()
	if !strings.Contains(log, "the session record cannot be written") || !strings.Contains(log, "the session record is written again") {
		t.Errorf("log:\n%s", log)
	}
	if got := user.all(); !strings.Contains(got, "record of session s-full cannot be written") || !strings.Contains(got, "is written again; nothing was lost") {
		t.Errorf("the user was told:\n%s", got)
	}
}

// TestRecordGapIsSaid: lines still held when the session ends are lost,
// and the log says the record has a gap.
func TestRecordGapIsSaid(t *testing.T) {
	var logs bytes.Buffer
	st := New(stateDir(t), slog.New(slog.NewTextHandler(&logs, nil)))
	var user told
	user.watch(st, 2)
	obs, err := st.Observe(agent.SessionInfo{SessionID: "s-gap", Cwd: t.TempDir()}, false)
	if err != nil {
		t.Fatal(err)
	}
	w := obs.(*writer)
	w.out = &fullDisk{w: w.f, full: true}
	w.Undone("turn-1")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "the session record has a gap") {
		t.Errorf("log:\n%s", logs.String())
	}
	if got := user.all(); !strings.Contains(got, "record of session s-gap has a gap: 1 line since") {
		t.Errorf("the user was told:\n%s", got)
	}
}
