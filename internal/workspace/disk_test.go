package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// file is a file of a test tree; a mode of 0 means 0644. A name ending in
// "/" is an empty directory.
type file struct {
	content string
	mode    fs.FileMode
}

func makeTree(t *testing.T, root string, files map[string]file) {
	t.Helper()
	for name, f := range files {
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := f.mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(p, []byte(f.content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree returns every file and directory under root, directories as
// names ending in "/".
func readTree(t *testing.T, root string) map[string]file {
	t.Helper()
	got := make(map[string]file)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			got[rel+"/"] = file{}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		got[rel] = file{content: string(b), mode: fi.Mode().Perm()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// withDirs adds the parent directories of the files, as readTree lists
// them, and fills in default modes.
func withDirs(files map[string]file) map[string]file {
	out := make(map[string]file)
	for name, f := range files {
		if f.mode == 0 && !strings.HasSuffix(name, "/") {
			f.mode = 0o644
		}
		out[name] = f
		for d := filepath.Dir(strings.TrimSuffix(name, "/")); d != "."; d = filepath.Dir(d) {
			out[filepath.ToSlash(d)+"/"] = file{}
		}
	}
	return out
}

func sameTree(t *testing.T, got, want map[string]file) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s is missing", name)
			continue
		}
		if g != w {
			t.Errorf("%s = %q mode %v, want %q mode %v", name, g.content, g.mode, w.content, w.mode)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected %s", name)
		}
	}
}

func ptr(s string) []byte { return []byte(s) }

func TestWriteToDisk(t *testing.T) {
	crlf := "line one\r\nline two\r\n\r\nno newline at end"
	tests := []struct {
		name   string
		before map[string]file
		// changes use paths relative to the root.
		changes []FileChange
		// hook, when set, replaces rename for the test.
		hook    func(n int, d dirHandle, from, to string) error
		after   map[string]file // nil: unchanged
		wantErr string
		changed bool // the error is a *ChangedError
	}{
		{
			name:    "add in new directories",
			before:  map[string]file{"keep.txt": {content: "k"}},
			changes: []FileChange{{Kind: Add, Path: "a/b/new.txt", NewContent: ptr("hello\n")}},
			after:   map[string]file{"keep.txt": {content: "k"}, "a/b/new.txt": {content: "hello\n"}},
		},
		{
			name:    "add an empty file",
			changes: []FileChange{{Kind: Add, Path: "empty", NewContent: nil}},
			after:   map[string]file{"empty": {}},
		},
		{
			name:    "update keeps the mode and CRLF bytes",
			before:  map[string]file{"run.sh": {content: "#!/bin/sh\r\necho hi\r\n", mode: 0o755}},
			changes: []FileChange{{Kind: Update, Path: "run.sh", OldContent: ptr("#!/bin/sh\r\necho hi\r\n"), NewContent: ptr(crlf)}},
			after:   map[string]file{"run.sh": {content: crlf, mode: 0o755}},
		},
		{
			name:    "delete",
			before:  map[string]file{"d/gone.txt": {content: "x"}, "d/stay.txt": {content: "y"}},
			changes: []FileChange{{Kind: Delete, Path: "d/gone.txt", OldContent: ptr("x")}},
			after:   map[string]file{"d/stay.txt": {content: "y"}},
		},
		{
			name:   "move across folders keeps the mode",
			before: map[string]file{"src/tool.sh": {content: "old", mode: 0o755}},
			changes: []FileChange{{Kind: Move, Path: "src/tool.sh", NewPath: "bin/x/tool.sh",
				OldContent: ptr("old"), NewContent: ptr("new\r\n")}},
			after: map[string]file{"src/": {}, "bin/x/tool.sh": {content: "new\r\n", mode: 0o755}},
		},
		{
			name:   "move over an existing file",
			before: map[string]file{"a.txt": {content: "a"}, "b.txt": {content: "b", mode: 0o600}},
			changes: []FileChange{{Kind: Move, Path: "a.txt", NewPath: "b.txt",
				OldContent: ptr("a"), NewContent: ptr("a2")}},
			after: map[string]file{"b.txt": {content: "a2"}},
		},
		{
			name:   "the same file twice",
			before: map[string]file{"f": {content: "1"}},
			changes: []FileChange{
				{Kind: Update, Path: "f", OldContent: ptr("1"), NewContent: ptr("2")},
				{Kind: Update, Path: "f", OldContent: ptr("2"), NewContent: ptr("3")},
			},
			after: map[string]file{"f": {content: "3"}},
		},
		{
			name:    "add over an existing file with its content",
			before:  map[string]file{"f": {content: "same", mode: 0o600}},
			changes: []FileChange{{Kind: Add, Path: "f", OldContent: ptr("same"), NewContent: ptr("replaced")}},
			after:   map[string]file{"f": {content: "replaced", mode: 0o600}},
		},
		{
			name:   "add over a file that appeared",
			before: map[string]file{"a": {content: "a"}, "f": {content: "someone else's"}},
			changes: []FileChange{
				{Kind: Update, Path: "a", OldContent: ptr("a"), NewContent: ptr("A")},
				{Kind: Add, Path: "f", NewContent: ptr("mine")},
			},
			wantErr: "f changed since it was read (it exists now)",
			changed: true,
		},
		{
			name:   "update of a file changed meanwhile",
			before: map[string]file{"a": {content: "a"}, "b": {content: "b edited by the user"}},
			changes: []FileChange{
				{Kind: Update, Path: "a", OldContent: ptr("a"), NewContent: ptr("A")},
				{Kind: Update, Path: "b", OldContent: ptr("b"), NewContent: ptr("B")},
			},
			wantErr: "b changed since it was read (its content differs)",
			changed: true,
		},
		{
			name:    "delete of a file already gone",
			before:  map[string]file{"a": {content: "a"}},
			changes: []FileChange{{Kind: Delete, Path: "gone", OldContent: ptr("x")}},
			wantErr: "gone changed since it was read (it does not exist any more)",
			changed: true,
		},
		{
			name:    "CRLF differs from LF",
			before:  map[string]file{"a": {content: "x\r\n"}},
			changes: []FileChange{{Kind: Update, Path: "a", OldContent: ptr("x\n"), NewContent: ptr("y\n")}},
			wantErr: "its content differs",
			changed: true,
		},
		{
			name:   "the second write fails: its parent is a file",
			before: map[string]file{"a.txt": {content: "a", mode: 0o755}, "plain": {content: "p"}, "gone.txt": {content: "g", mode: 0o600}},
			changes: []FileChange{
				{Kind: Update, Path: "a.txt", OldContent: ptr("a"), NewContent: ptr("A")},
				{Kind: Delete, Path: "gone.txt", OldContent: ptr("g")},
				{Kind: Add, Path: "new/dir/n.txt", NewContent: ptr("n")},
				{Kind: Add, Path: "plain/sub.txt", NewContent: ptr("s")},
			},
			wantErr: "plain is not a directory; nothing was changed",
		},
		{
			name:   "a rename fails after a move",
			before: map[string]file{"m/from.txt": {content: "f", mode: 0o750}, "u.txt": {content: "u"}, "dest.txt": {content: "d", mode: 0o600}},
			changes: []FileChange{
				{Kind: Move, Path: "m/from.txt", NewPath: "dest.txt", OldContent: ptr("f"), NewContent: ptr("F")},
				{Kind: Add, Path: "deep/er/x.txt", NewContent: ptr("x")},
				{Kind: Update, Path: "u.txt", OldContent: ptr("u"), NewContent: ptr("U")},
			},
			hook: func(n int, d dirHandle, from, to string) error {
				if n == 3 {
					return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.New("disk full")}
				}
				return d.rename(from, to)
			},
			wantErr: "u.txt: disk full; nothing was changed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			makeTree(t, root, tc.before)
			if tc.hook != nil {
				n := 0
				saved := renameAt
				renameAt = func(d dirHandle, from, to string) error {
					n++
					return tc.hook(n, d, from, to)
				}
				t.Cleanup(func() { renameAt = saved })
			}
			cs := &ChangeSet{Label: tc.name}
			for _, c := range tc.changes {
				c.Path = filepath.Join(root, c.Path)
				if c.NewPath != "" {
					c.NewPath = filepath.Join(root, c.NewPath)
				}
				cs.Changes = append(cs.Changes, c)
			}
			err := WriteToDisk(cs)
			want := tc.after
			if tc.wantErr != "" {
				want = tc.before
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				var ce *ChangedError
				if errors.As(err, &ce) != tc.changed {
					t.Errorf("error %v (%T): ChangedError %v, want %v", err, err, !tc.changed, tc.changed)
				}
				if tc.changed && !strings.HasPrefix(ce.Path, root) {
					t.Errorf("ChangedError.Path %q is not the file's absolute path", ce.Path)
				}
			} else if err != nil {
				t.Fatalf("WriteToDisk: %v", err)
			}
			sameTree(t, readTree(t, root), withDirs(want))
		})
	}
}

func TestWriteRollback(t *testing.T) {
	root := t.TempDir()
	before := map[string]file{"a.sh": {content: "a\r\n", mode: 0o755}, "b": {content: "b", mode: 0o600}, "c": {content: "c"}}
	makeTree(t, root, before)
	j := func(p string) string { return filepath.Join(root, p) }
	w, err := Write(&ChangeSet{Changes: []FileChange{
		{Kind: Update, Path: j("a.sh"), OldContent: ptr("a\r\n"), NewContent: ptr("A\r\n")},
		{Kind: Delete, Path: j("b"), OldContent: ptr("b")},
		{Kind: Move, Path: j("c"), NewPath: j("x/y/c"), OldContent: ptr("c"), NewContent: ptr("C")},
		{Kind: Add, Path: j("n/new"), NewContent: ptr("N")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, readTree(t, root), withDirs(map[string]file{
		"a.sh": {content: "A\r\n", mode: 0o755}, "x/y/c": {content: "C"}, "n/new": {content: "N"},
	}))
	if err := w.Rollback(); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	sameTree(t, readTree(t, root), withDirs(before))
}

func TestRollbackLeavesOthersChangesAlone(t *testing.T) {
	root := t.TempDir()
	makeTree(t, root, map[string]file{"a": {content: "a"}, "b": {content: "b"}})
	j := func(p string) string { return filepath.Join(root, p) }
	w, err := Write(&ChangeSet{Changes: []FileChange{
		{Kind: Update, Path: j("a"), OldContent: ptr("a"), NewContent: ptr("A")},
		{Kind: Update, Path: j("b"), OldContent: ptr("b"), NewContent: ptr("B")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(j("b"), []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = w.Rollback()
	if err == nil || !strings.Contains(err.Error(), j("b")) {
		t.Fatalf("Rollback error %v, want one naming b", err)
	}
	sameTree(t, readTree(t, root), withDirs(map[string]file{"a": {content: "a"}, "b": {content: "the user's"}}))
}

func TestWriteToDiskRefusesRelativePaths(t *testing.T) {
	err := WriteToDisk(&ChangeSet{Changes: []FileChange{{Kind: Add, Path: "rel.txt", NewContent: ptr("x")}}})
	if err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat("rel.txt"); err == nil {
		os.Remove("rel.txt")
		t.Fatal("a relative path was written")
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	root := t.TempDir()
	makeTree(t, root, map[string]file{"real.txt": {content: "r", mode: 0o640}})
	link := filepath.Join(root, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteToDisk(&ChangeSet{Changes: []FileChange{{Kind: Update, Path: link, OldContent: ptr("r"), NewContent: ptr("R")}}}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "real.txt")); string(b) != "R" {
		t.Fatalf("real.txt = %q", b)
	}
}

func TestNotOnDisk(t *testing.T) {
	root := t.TempDir()
	makeTree(t, root, map[string]file{"saved": {content: "new"}, "unsaved": {content: "old"}, "moved": {content: "m2"}, "stays": {content: "s"}})
	j := func(p string) string { return filepath.Join(root, p) }
	got := NotOnDisk(&ChangeSet{Changes: []FileChange{
		{Kind: Update, Path: j("saved"), OldContent: ptr("old"), NewContent: ptr("new")},
		{Kind: Update, Path: j("unsaved"), OldContent: ptr("old"), NewContent: ptr("new")},
		{Kind: Move, Path: j("src"), NewPath: j("moved"), OldContent: ptr("m"), NewContent: ptr("m2")},
		{Kind: Delete, Path: j("stays"), OldContent: ptr("s")},
		{Kind: Delete, Path: j("gone"), OldContent: ptr("g")},
	}})
	want := []string{j("unsaved"), j("stays")}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("NotOnDisk = %v, want %v", got, want)
	}
}
