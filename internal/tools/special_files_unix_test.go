//go:build unix

package tools

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// returns runs call and fails the test if it does not return. A call
// that hangs (the bug) is released by release (again and again) after a generous grace, so
// the test fails instead of running into the test binary's timeout; no
// duration is asserted.
func returns(t *testing.T, release func(), call func() Output) Output {
	t.Helper()
	done := make(chan Output, 1)
	go func() { done <- call() }()
	select {
	case out := <-done:
		return out
	case <-time.After(20 * time.Second):
		for {
			release()
			select {
			case out := <-done:
				t.Fatalf("the call hung on a special file until it was released; it answered %+v", out)
				return out
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// mkfifo makes a named pipe at path and returns what unblocks a reader
// waiting in its open: a writer that opens and closes it.
func mkfifo(t *testing.T, path string) func() {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
}

// A named pipe the model names (or the repository plants, a .gitignore)
// is refused at once by every tool that reads it, instead of hanging the
// turn until some writer opens it.
func TestSpecialFilesFIFO(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool Handler
		args map[string]any
		path string // the pipe, relative to the work dir
		want string // in the output; "" for a call that succeeds
	}{
		{"read_file", ReadFile{}, map[string]any{"file_path": "pipe"}, "pipe", "pipe is a named pipe (FIFO), not a regular file; it was not read"},
		{"view_image", ViewImage{}, map[string]any{"path": "pipe.png"}, "pipe.png", "pipe.png is a named pipe (FIFO), not an image file"},
		{"grep_files on the pipe", GrepFiles{}, map[string]any{"pattern": "x", "path": "pipe"}, "pipe", "named pipe"},
		{"grep_files under a planted .gitignore", GrepFiles{}, map[string]any{"pattern": "needle"}, ".gitignore", ""},
		{"write_file over the pipe", WriteFile{}, map[string]any{"file_path": "pipe", "content": "x\n"}, "pipe", "named pipe (FIFO), not a regular file"},
		{"apply_patch updating the pipe", ApplyPatch{}, map[string]any{"input": "*** Begin Patch\n*** Update File: pipe\n@@\n-a\n+b\n*** End Patch\n"}, "pipe", "named pipe (FIFO), not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _, _ := writeEnv(t, Decision{Allowed: true})
			writeFiles(t, env.Cwd, map[string]string{"a.txt": "needle\n"})
			release := mkfifo(t, filepath.Join(env.Cwd, tc.path))
			out := returns(t, release, func() Output { return callTool(t, tc.tool, env, tc.args) })
			if tc.want == "" {
				if out.Failed || !strings.Contains(out.Text, "a.txt") {
					t.Errorf("output %+v", out)
				}
				return
			}
			if !strings.Contains(out.Text, tc.want) {
				t.Errorf("output %+v, want it to say %q", out, tc.want)
			}
			if tc.tool.Mutating(nil) && !out.Failed {
				t.Errorf("a change over a pipe succeeded: %+v", out)
			}
		})
	}
}

// A socket cannot be opened at all; the model is told what it is.
func TestSpecialFilesSocket(t *testing.T) {
	env, _ := testEnv(t)
	env.Boundary = testBoundary(t, policy.WorkspaceWrite, env.Cwd)
	// Socket paths are short (108 bytes); a relative name from the work
	// dir keeps it so.
	wd, _ := os.Getwd()
	if err := os.Chdir(env.Cwd); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	l, err := net.Listen("unix", "sock")
	if err != nil {
		t.Skip("no unix sockets here:", err)
	}
	defer l.Close()
	out := callTool(t, ReadFile{}, env, map[string]any{"file_path": "sock"})
	if !out.Failed || !strings.Contains(out.Text, "sock is a socket, not a regular file") {
		t.Errorf("output %+v", out)
	}
}
