package patch

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"
)

// files is an in-memory Reader.
type files map[string]string

func (f files) ReadFile(path string) ([]byte, error) {
	if s, ok := f[path]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
}

// after returns the files as a change set leaves them.
func after(f files, cs ChangeSet) files {
	out := files{}
	for k, v := range f {
		out[k] = v
	}
	for _, c := range cs {
		switch c.Kind {
		case Delete:
			delete(out, c.Path)
		case Add:
			out[c.Path] = string(c.NewContent)
		case Update:
			delete(out, c.Path)
			out[c.NewPath()] = string(c.NewContent)
		}
	}
	return out
}

func TestApply(t *testing.T) {
	wrap := func(body string) string { return "*** Begin Patch\n" + body + "\n*** End Patch\n" }
	tests := []struct {
		name  string
		files files
		patch string
		want  files
	}{
		{
			name:  "byte order mark kept when the first line changes",
			files: files{"f": "\uFEFFone\ntwo\n"},
			patch: wrap("*** Update File: f\n@@\n-one\n+uno"),
			want:  files{"f": "\uFEFFuno\ntwo\n"},
		},
		{
			name:  "mixed endings: kept lines keep theirs, new lines take the dominant one",
			files: files{"f": "a\r\nb\nc\r\nd\r\n"},
			patch: wrap("*** Update File: f\n@@\n a\n-b\n+B\n c"),
			want:  files{"f": "a\r\nB\r\nc\r\nd\r\n"},
		},
		{
			name:  "empty last old line stands for the final newline",
			files: files{"f": "x\ny\n"},
			patch: wrap("*** Update File: f\n@@\n x\n-y\n+z\n"),
			want:  files{"f": "x\nz\n"},
		},
		{
			name:  "trailing blank context line that is not in the file",
			files: files{"f": "x\ny"},
			patch: wrap("*** Update File: f\n@@\n-x\n+X\n y\n"),
			want:  files{"f": "X\ny"},
		},
		{
			name:  "pure insertion goes to the end even with a scope, as in Codex",
			files: files{"f": "class A:\n    pass\nother\n"},
			patch: wrap("*** Update File: f\n@@ class A:\n+    x = 1"),
			want:  files{"f": "class A:\n    pass\nother\n    x = 1\n"},
		},
		{
			name:  "insertion then an earlier change",
			files: files{"f": "a\nb\nc\n"},
			patch: wrap("*** Update File: f\n@@\n+end\n@@\n-a\n+A"),
			want:  files{"f": "A\nb\nc\nend\n"},
		},
		{
			name:  "empty file gets a line",
			files: files{"f": ""},
			patch: wrap("*** Update File: f\n@@\n+x"),
			want:  files{"f": "x\n"},
		},
		{
			name:  "removing every line leaves an empty file",
			files: files{"f": "a\nb\n"},
			patch: wrap("*** Update File: f\n@@\n-a\n-b"),
			want:  files{"f": ""},
		},
		{
			name:  "no final newline kept when the last line is context",
			files: files{"f": "a\nb\nc"},
			patch: wrap("*** Update File: f\n@@\n-b\n+B\n c"),
			want:  files{"f": "a\nB\nc"},
		},
		{
			name:  "no final newline: appended lines end with one",
			files: files{"f": "a"},
			patch: wrap("*** Update File: f\n@@\n+b"),
			want:  files{"f": "a\nb\n"},
		},
		{
			name:  "add overwrites, then update sees the new content",
			files: files{"f": "old\n"},
			patch: wrap("*** Add File: f\n+new\n*** Update File: f\n@@\n-new\n+newer"),
			want:  files{"f": "newer\n"},
		},
		{
			name:  "move onto itself is no move",
			files: files{"f": "1\n"},
			patch: wrap("*** Update File: f\n*** Move to: ./f\n@@\n-1\n+2"),
			want:  files{"f": "2\n"},
		},
		{
			name:  "unified: insertion without context lands at its line",
			files: files{"f": "1\n2\n3\n4\n"},
			patch: "--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+2.5\n",
			want:  files{"f": "1\n2\n2.5\n3\n4\n"},
		},
		{
			name:  "unified: a consistent drift settles a later tie",
			files: files{"f": "pad\npad\npad\nx\nk\nk\ny\nk\nk\nz\nk\nk\n"},
			// Both hunks are stated 2 lines too early; the second
			// one's context occurs three times.
			patch: "--- a/f\n+++ b/f\n@@ -2,1 +2,1 @@\n-x\n+X\n@@ -6,2 +6,2 @@\n-k\n+K\n k\n",
			want:  files{"f": "pad\npad\npad\nX\nk\nk\ny\nK\nk\nz\nk\nk\n"},
		},
		{
			name:  "unified: new side without final newline",
			files: files{"f": "a\nb\n"},
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n",
			want:  files{"f": "a\nc"},
		},
		{
			name:  "plain diff: the new name exists",
			files: files{"x": "1\n"},
			patch: "--- x.orig\n+++ x\n@@ -1 +1 @@\n-1\n+2\n",
			want:  files{"x": "2\n"},
		},
		{
			name:  "plain diff: only the old name exists",
			files: files{"x": "1\n"},
			patch: "--- x\n+++ x.new\n@@ -1 +1 @@\n-1\n+2\n",
			want:  files{"x": "2\n"},
		},
		{
			name:  "plain diff: the longer name when it alone exists",
			files: files{"x.new": "1\n"},
			patch: "--- x\n+++ x.new\n@@ -1 +1 @@\n-1\n+2\n",
			want:  files{"x.new": "2\n"},
		},
		{
			name:  "unified: pure rename keeps the bytes",
			files: files{"a": "x\r\ny"},
			patch: "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n",
			want:  files{"b": "x\r\ny"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := ApplyText(tt.patch, tt.files)
			if err != nil {
				t.Fatal(err)
			}
			if got := after(tt.files, cs); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	wrap := func(body string) string { return "*** Begin Patch\n" + body + "\n*** End Patch\n" }
	tests := []struct {
		name  string
		files files
		patch string
		is    error
		msg   string
	}{
		{
			name:  "no operations",
			patch: wrap(""),
			is:    ErrNoChanges,
			msg:   "No files were modified.",
		},
		{
			name:  "context",
			files: files{"f": "a\n"},
			patch: wrap("*** Update File: f\n@@ def g():\n-a"),
			is:    ErrContextNotFound,
			msg:   "Failed to find context 'def g():' in f",
		},
		{
			name:  "stacked context: the inner one must follow the outer",
			files: files{"f": "inner\nouter\nx\n"},
			patch: wrap("*** Update File: f\n@@ outer\n@@ inner\n-x"),
			is:    ErrContextNotFound,
			msg:   "Failed to find context 'inner' in f",
		},
		{
			name:  "lines",
			files: files{"f": "a\nb\n"},
			patch: wrap("*** Update File: f\n@@\n a\n-c\n+d"),
			is:    ErrLinesNotFound,
			msg:   "Failed to find expected lines in f:\na\nc",
		},
		{
			name:  "chunks out of order",
			files: files{"f": "a\nb\n"},
			patch: wrap("*** Update File: f\n@@\n-b\n+B\n@@\n-a\n+A"),
			is:    ErrLinesNotFound,
			msg:   "Failed to find expected lines in f:\na",
		},
		{
			name:  "update of a file deleted earlier",
			files: files{"f": "a\n"},
			patch: wrap("*** Delete File: f\n*** Update File: f\n@@\n-a"),
			is:    fs.ErrNotExist,
			msg:   "Failed to read file to update f: open f: file does not exist",
		},
		{
			name:  "update of a file moved away earlier",
			files: files{"f": "a\n"},
			patch: wrap("*** Update File: f\n*** Move to: g\n@@\n-a\n+b\n*** Update File: f\n@@\n-b"),
			is:    fs.ErrNotExist,
			msg:   "Failed to read file to update f: open f: file does not exist",
		},
		{
			name:  "delete of a missing file",
			patch: wrap("*** Delete File: nope"),
			is:    fs.ErrNotExist,
			msg:   "Failed to delete file nope: open nope: file does not exist",
		},
		{
			name:  "not UTF-8",
			files: files{"f": "\xff\xfe\n"},
			patch: wrap("*** Update File: f\n@@\n+x"),
			is:    ErrNotUTF8,
			msg:   "Failed to read file to update f: file is not valid UTF-8 text; apply_patch only edits UTF-8 text files",
		},
		{
			name:  "unified ambiguity",
			files: files{"f": "a\nb\na\nb\n"},
			patch: "--- a/f\n+++ b/f\n@@ -9 +9 @@\n-a\n+A\n",
			is:    ErrAmbiguous,
			msg:   "Ambiguous hunk in f: the expected lines occur at line 1 and line 3, and the hunk's line number 9 points at neither; add more context lines to the hunk:\na",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := ApplyText(tt.patch, tt.files)
			if err == nil {
				t.Fatalf("no error; changes %+v", cs)
			}
			if cs != nil {
				t.Errorf("changes returned with the error: %+v", cs)
			}
			var ae *ApplyError
			if !errors.As(err, &ae) || !errors.Is(err, tt.is) || err.Error() != tt.msg {
				t.Fatalf("error %T %q; want an *ApplyError matching %v, %q", err, err, tt.is, tt.msg)
			}
		})
	}
}

// A Patch built by hand, without the parser's bookkeeping, applies too.
func TestApplyHandBuiltPatch(t *testing.T) {
	p := &Patch{Ops: []FileOp{{Kind: Update, Path: "f", Chunks: []Chunk{
		{Old: []string{"a", "b"}, New: []string{"a", "B"}},
	}}}}
	cs, err := Apply(p, files{"f": "a\nb\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(cs[0].NewContent); got != "a\nB\n" {
		t.Fatalf("got %q", got)
	}
}

func TestApplyReportsOldContent(t *testing.T) {
	f := files{"over": "was\n", "gone": "bye\n", "up": "1\n"}
	cs, err := ApplyText("*** Begin Patch\n*** Add File: over\n+is\n*** Add File: fresh\n+new\n*** Delete File: gone\n"+
		"*** Update File: up\n*** Move to: moved\n@@\n-1\n+2\n*** End Patch", f)
	if err != nil {
		t.Fatal(err)
	}
	want := ChangeSet{
		{Kind: Add, Path: "over", OldContent: []byte("was\n"), NewContent: []byte("is\n")},
		{Kind: Add, Path: "fresh", NewContent: []byte("new\n")},
		{Kind: Delete, Path: "gone", OldContent: []byte("bye\n")},
		{Kind: Update, Path: "up", MovePath: "moved", OldContent: []byte("1\n"), NewContent: []byte("2\n")},
	}
	if !reflect.DeepEqual(cs, want) {
		t.Fatalf("got  %+v\nwant %+v", cs, want)
	}
}

func TestApplyPathSpellingsShareState(t *testing.T) {
	cs, err := ApplyText("*** Begin Patch\n*** Update File: d/f\n@@\n-1\n+2\n*** Update File: ./d/f\n@@\n-2\n+3\n*** End Patch", files{"d/f": "1\n"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[1].Path != "./d/f" || string(cs[1].OldContent) != "2\n" || string(cs[1].NewContent) != "3\n" {
		t.Fatalf("got %+v", cs)
	}
}

// An emptied file is empty, not deleted: it has content and can be patched
// again.
func TestApplyEmptiedFileStillExists(t *testing.T) {
	cs, err := ApplyText("*** Begin Patch\n*** Update File: f\n@@\n-a\n*** Update File: f\n@@\n+b\n*** End Patch", files{"f": "a\n"})
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].NewContent == nil || len(cs[0].NewContent) != 0 || string(cs[1].NewContent) != "b\n" {
		t.Fatalf("got %+v", cs)
	}
}
