//go:build linux

package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A directory swapped for a symbolic link to outside the tree between
// its parent's listing and its own opening is not followed: the walk
// opens it by its name in its parent, without following a link, and
// notes it.
func TestWalkRefusesDirectorySwappedForLink(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.txt": "needle secret\n"})
	for _, ordered := range []bool{false, true} {
		root := t.TempDir()
		writeFiles(t, root, map[string]string{"a/sub/inside.txt": "needle inside\n", "a/kept.txt": "needle kept\n"})
		sub := filepath.Join(root, "a", "sub")
		var once sync.Once
		swap := func(abs string, link bool) bool {
			if abs == sub && !link {
				once.Do(func() {
					// Out of the walk's way: "a" is listed already.
					if err := os.Rename(sub, filepath.Join(root, "a", "moved")); err != nil {
						t.Error(err)
					}
					if err := os.Symlink(outside, sub); err != nil {
						t.Error(err)
					}
				})
			}
			return false
		}
		g, err := NewGrep(Query{Pattern: "needle", CaseSensitive: true, Limit: 100, MaxLineBytes: 500, MaxFileSize: 8 << 20, StopAtLimit: ordered}, noDocs{})
		if err != nil {
			t.Fatal(err)
		}
		g.SetSkip(swap)
		if err := g.Tree(t.Context(), root, root); err != nil {
			t.Fatal(err)
		}
		res := g.Result()
		var files []string
		for _, f := range res.Files {
			files = append(files, f.Rel)
		}
		if !slices.Equal(files, []string{"a/kept.txt"}) {
			t.Errorf("ordered=%v: found %q, want only a/kept.txt", ordered, files)
		}
		// O_DIRECTORY|O_NOFOLLOW on a link: ENOTDIR (ELOOP without
		// O_DIRECTORY).
		if len(res.Skipped) != 1 || res.Skipped[0].Rel != "a/sub" || !(errors.Is(res.Skipped[0].Err, syscall.ENOTDIR) || errors.Is(res.Skipped[0].Err, syscall.ELOOP)) {
			t.Errorf("ordered=%v: skipped %v, want a/sub: %v", ordered, res.Skipped, syscall.ENOTDIR)
		}
	}
}

// A file swapped for a symbolic link after the listing is not opened
// through it.
func TestWalkFileOpenRefusesLinkSwappedIn(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"f.txt": "mine\n", "g.txt": "mine too\n"})
	writeFiles(t, outside, map[string]string{"secret.txt": "secret\n"})
	var mu sync.Mutex
	opened := map[string]error{}
	walk(context.Background(), walkOptions{Root: root}, func(f walkFile) {
		if f.name == "f.txt" {
			if err := os.Remove(f.Abs); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(filepath.Join(outside, "secret.txt"), f.Abs); err != nil {
				t.Error(err)
			}
		}
		file, _, err := f.open(1 << 20)
		if err == nil {
			file.close()
		}
		mu.Lock()
		opened[f.Rel] = err
		mu.Unlock()
	})
	if err := opened["f.txt"]; !errors.Is(err, syscall.ELOOP) {
		t.Errorf("f.txt swapped for a link: opened with %v, want %v", err, syscall.ELOOP)
	}
	if err, ok := opened["g.txt"]; !ok || err != nil {
		t.Errorf("g.txt: %v (visited %v)", err, ok)
	}
}

// The walk finds what a plain walk of the tree with pathIgnored's rules
// finds: hidden and ignored entries left out (here or in an ignore file
// above), links followed to files only, never to directories.
func TestWalkAgreesWithPathRules(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".gitignore":         "*.o\nbuild/\n/top.txt\n",
		"top.txt":            "",
		"a/top.txt":          "",
		"a/x.o":              "",
		"a/x.c":              "",
		"a/.hidden":          "",
		"a/.gitignore":       "deep*\n!deeper.c\n",
		"a/deep.c":           "",
		"a/b/deeper.c":       "",
		"a/b/c/d/e/f.c":      "",
		"build/out.c":        "",
		"a/build/out.c":      "",
		".dot/in.c":          "",
		"empty/.keep":        "",
		"many/" + "n.c":      "",
		"sp ace/ü n.c":       "",
		"a/b/c/d/e/.ignore":  "f.c\n",
		"a/b/c/d/e/other.go": "",
	})
	for _, l := range [][2]string{{"a/x.c", "a/link.c"}, {"a/b", "linkdir"}, {"missing", "dangling"}} {
		if err := os.Symlink(filepath.Join(root, l[0]), filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	for _, hidden := range []bool{false, true} {
		opts := walkOptions{Root: root, Base: root, Hidden: hidden}
		var mu sync.Mutex
		var got []string
		walk(context.Background(), opts, func(f walkFile) {
			mu.Lock()
			got = append(got, f.Rel)
			mu.Unlock()
		})
		slices.Sort(got)
		var want []string
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || p == root {
				return err
			}
			if pathIgnored(opts, p, d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				rel, _ := filepath.Rel(root, p)
				want = append(want, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("hidden=%v: the walk found\n%s\nwant\n%s", hidden, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// An entry whose type the directory does not hold is asked of the entry
// itself, without following a link.
func TestDirentTypeUnknown(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"f": "", "d/x": ""})
	if err := os.Symlink("d", filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	d, err := openDirJob(dirJob{abs: root})
	if err != nil {
		t.Fatal(err)
	}
	defer d.release()
	for name, want := range map[string]os.FileMode{"f": 0, "d": os.ModeDir, "l": os.ModeSymlink, "none": os.ModeIrregular} {
		if got := d.direntType(name, syscall.DT_UNKNOWN); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
