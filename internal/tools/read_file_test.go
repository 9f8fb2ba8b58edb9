package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	env, st := testEnv(t)
	long := strings.Repeat("é", 400) // 800 bytes
	huge := strings.Repeat("x", 200<<10)
	writeFiles(t, env.Cwd, map[string]string{
		"ten.txt":        numbered(1, 10),
		"empty.txt":      "",
		"crlf.txt":       "a\r\nb\r\n",
		"nonl.txt":       "one\ntwo",
		"long.txt":       "short\n" + long + "\nend\n",
		"huge.txt":       huge + "\nafter\n",
		"dir/ünïcode.md": "héllo\n",
		"bin.dat":        "abc\x00def",
		"img.png":        "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"open.go":        "package disk\n",
	})
	st.Open(workspace.Doc{Path: filepath.Join(env.Cwd, "open.go"), Text: "package editor\n// unsaved\n", Dirty: true})
	st.Open(workspace.Doc{Path: filepath.Join(env.Cwd, "new.go"), Text: "package unsaved\n"})

	cutLong := strings.Repeat("é", 250) + " [… line cut: 300 more bytes]"
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		failed  bool
		limits  OutputLimits
		wantSub string
	}{
		{name: "whole", args: map[string]any{"file_path": "ten.txt"}, want: strings.Join([]string{"L1: line 1", "L2: line 2", "L3: line 3", "L4: line 4", "L5: line 5", "L6: line 6", "L7: line 7", "L8: line 8", "L9: line 9", "L10: line 10"}, "\n")},
		{name: "offset and limit", args: map[string]any{"file_path": "ten.txt", "offset": 3, "limit": 2}, want: "L3: line 3\nL4: line 4\n[Showed lines 3-4 of 10 (stopped at the limit of 2 lines). Call read_file with offset=5 to read on.]"},
		{name: "last line", args: map[string]any{"file_path": "ten.txt", "offset": 10}, want: "L10: line 10"},
		{name: "past the end", args: map[string]any{"file_path": "ten.txt", "offset": 11}, failed: true, want: "read_file: offset 11 is past the end of ten.txt, which has 10 lines"},
		{name: "empty", args: map[string]any{"file_path": "empty.txt"}, want: "empty.txt is empty."},
		{name: "crlf", args: map[string]any{"file_path": "crlf.txt"}, want: "L1: a\nL2: b"},
		{name: "no final newline", args: map[string]any{"file_path": "nonl.txt", "offset": 2}, want: "L2: two"},
		{name: "long line", args: map[string]any{"file_path": "long.txt"}, want: "L1: short\nL2: " + cutLong + "\nL3: end"},
		{name: "line over the buffer", args: map[string]any{"file_path": "huge.txt"}, want: "L1: " + strings.Repeat("x", 500) + fmt.Sprintf(" [… line cut: %d more bytes]", 200<<10-500) + "\nL2: after"},
		{name: "unicode path", args: map[string]any{"file_path": "dir/ünïcode.md"}, want: "L1: héllo"},
		{name: "absolute path", args: map[string]any{"file_path": filepath.Join(env.Cwd, "nonl.txt")}, want: "L1: one\nL2: two"},
		{name: "binary", args: map[string]any{"file_path": "bin.dat"}, failed: true, want: "read_file: bin.dat is a binary file (7 bytes, application/octet-stream); it cannot be shown as text"},
		{name: "image", args: map[string]any{"file_path": "img.png"}, failed: true, want: "read_file: img.png is a binary file (16 bytes, image/png); it cannot be shown as text; use view_image to look at it"},
		{name: "editor text", args: map[string]any{"file_path": "open.go"}, want: "L1: package editor\nL2: // unsaved"},
		{name: "only in the editor", args: map[string]any{"file_path": "new.go"}, want: "L1: package unsaved"},
		{name: "missing", args: map[string]any{"file_path": "nope.txt"}, failed: true, want: "read_file: nope.txt: no such file or directory"},
		{name: "directory", args: map[string]any{"file_path": "dir"}, failed: true, want: "read_file: dir is a directory; use list_dir to see what it holds"},
		{name: "byte cap", args: map[string]any{"file_path": "ten.txt"}, limits: OutputLimits{MaxBytes: reserve + 24}, want: "L1: line 1\nL2: line 2\n[Showed lines 1-2 of 10 (stopped at the output limit of 424 bytes). Call read_file with offset=3 to read on.]"},
		{name: "line cap", args: map[string]any{"file_path": "ten.txt", "offset": 4}, limits: OutputLimits{MaxLines: 1}, want: "L4: line 4\n[Showed lines 4-4 of 10 (stopped at the output limit of 1 lines). Call read_file with offset=5 to read on.]"},
		{name: "offset zero", args: map[string]any{"file_path": "ten.txt", "offset": 0}, failed: true, wantSub: "at /offset (argument `offset`): minimum: got 0, want 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := *env
			e.Limits = tc.limits
			out := callTool(t, ReadFile{}, &e, tc.args)
			if out.Failed != tc.failed {
				t.Fatalf("failed = %v, want %v: %s", out.Failed, tc.failed, out.Text)
			}
			if tc.wantSub != "" {
				if !strings.Contains(out.Text, tc.wantSub) {
					t.Fatalf("got %q, want it to contain %q", out.Text, tc.wantSub)
				}
				return
			}
			if out.Text != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out.Text, tc.want)
			}
		})
	}
}

func TestReadFileSymlinks(t *testing.T) {
	env, _ := testEnv(t)
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.txt": "outside\n"})
	writeFiles(t, env.Cwd, map[string]string{"real.txt": "real\n"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("real.txt", filepath.Join(env.Cwd, "link.txt")))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(env.Cwd, "out.txt")))
	must(os.Symlink("loop2", filepath.Join(env.Cwd, "loop1")))
	must(os.Symlink("loop1", filepath.Join(env.Cwd, "loop2")))

	if out := callTool(t, ReadFile{}, env, map[string]any{"file_path": "link.txt"}); out.Text != "L1: real" {
		t.Errorf("link: %+v", out)
	}
	if out := callTool(t, ReadFile{}, env, map[string]any{"file_path": "loop1"}); !out.Failed || out.Text != "read_file: loop1: symlink loop" {
		t.Errorf("loop: %+v", out)
	}
	// workspace-write reads everywhere, as Codex's sandbox does.
	if out := callTool(t, ReadFile{}, env, map[string]any{"file_path": "out.txt"}); out.Text != "L1: outside" {
		t.Errorf("outside under workspace-write: %+v", out)
	}
}

// BenchmarkReadFileNearEnd reads the last lines of a 100 MB file: the cost
// is one streaming scan, not the file's size in memory.
func BenchmarkReadFileNearEnd(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "big.txt")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("abcdefghij", 9) + "\n" // 91 bytes
	lines := 0
	buf := strings.Repeat(line, 10000)
	for size := 0; size < 100<<20; size += len(buf) {
		f.WriteString(buf)
		lines += 10000
	}
	f.Close()
	env := &Env{Cwd: dir, Files: DiskView{}}
	args := fmt.Sprintf(`{"file_path":"big.txt","offset":%d,"limit":100}`, lines-50)
	c := &Call{Name: "read_file", Type: Function, Arguments: []byte(args)}
	b.ReportAllocs()
	for b.Loop() {
		out, err := ReadFile{}.Handle(b.Context(), env, c)
		if err != nil || !strings.HasPrefix(out.Text, fmt.Sprintf("L%d: abc", lines-50)) {
			b.Fatalf("%v %.100q", err, out.Text)
		}
	}
}
