package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// ignoreTree is a generated repository: files, and ignore files with
// patterns at the root, in subdirectories, in .git/info/exclude and in a
// core.excludesFile.
type ignoreTree struct {
	files    []string // slash-separated, relative to the root
	dirs     []string
	ignores  map[string][]string // .gitignore path (or "info", "excludes") → lines
	describe string
}

var (
	ignoreNames = []string{"a", "b", "ab", "c.go", "d.txt", "x.log", "build", ".hid", "[x]", "sp ace", "#h", "!b"}
	// Pattern pieces: names, wildcards, classes, escapes.
	ignoreParts = []string{"a", "b", "ab", "*", "?", "**", "*.go", "*.log", "x*", "build", "[ab]", "[!a]", "[a-c]*",
		".hid", "\\[x]", "sp ace", "\\#h", "\\!b", "a**", "**b", "*b*", "c.g?", "[[:alpha:]]", "d.[t]xt"}
)

func randomPattern(r *rand.Rand) string {
	switch r.IntN(20) {
	case 0:
		return ""
	case 1:
		return "# a comment"
	}
	n := 1 + r.IntN(3)
	segs := make([]string, n)
	for i := range segs {
		segs[i] = ignoreParts[r.IntN(len(ignoreParts))]
	}
	p := strings.Join(segs, "/")
	if r.IntN(4) == 0 {
		p = "/" + p
	}
	if r.IntN(4) == 0 {
		p += "/"
	}
	if r.IntN(4) == 0 {
		p = "!" + p
	}
	if r.IntN(10) == 0 {
		p += "  "
	}
	return p
}

func randomIgnoreTree(seed uint64) ignoreTree {
	r := rand.New(rand.NewPCG(seed, 7))
	tr := ignoreTree{ignores: map[string][]string{}}
	dirs := []string{""}
	for range 4 + r.IntN(6) {
		parent := dirs[r.IntN(len(dirs))]
		d := path2(parent, ignoreNames[r.IntN(len(ignoreNames))])
		if !slices.Contains(dirs, d) && !strings.HasPrefix(d, ".git") {
			dirs = append(dirs, d)
		}
	}
	tr.dirs = dirs[1:]
	for _, d := range dirs {
		for range r.IntN(4) {
			f := path2(d, ignoreNames[r.IntN(len(ignoreNames))])
			if !slices.Contains(dirs, f) && !slices.Contains(tr.files, f) {
				tr.files = append(tr.files, f)
			}
		}
	}
	lines := func() []string {
		out := make([]string, 1+r.IntN(4))
		for i := range out {
			out[i] = randomPattern(r)
		}
		return out
	}
	tr.ignores[".gitignore"] = lines()
	for _, d := range tr.dirs {
		if r.IntN(3) == 0 {
			tr.ignores[d+"/.gitignore"] = lines()
		}
	}
	tr.ignores["info"] = lines()
	tr.ignores["excludes"] = lines()
	var b strings.Builder
	for _, k := range slices.Sorted(mapKeys(tr.ignores)) {
		fmt.Fprintf(&b, "  %s: %q\n", k, tr.ignores[k])
	}
	tr.describe = b.String()
	return tr
}

func mapKeys(m map[string][]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func path2(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// write creates the tree in a new git repository under t's temporary
// directory; the excludes file is set in the repository's config.
func (tr ignoreTree) write(t *testing.T, git func(dir string, args ...string) []byte) string {
	t.Helper()
	root := t.TempDir()
	git(root, "init", "-q")
	for _, d := range tr.dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, data string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range tr.files {
		write(filepath.Join(root, f), "x\n")
	}
	for k, lines := range tr.ignores {
		text := strings.Join(lines, "\n") + "\n"
		switch k {
		case "info":
			write(filepath.Join(root, ".git", "info", "exclude"), text)
		case "excludes":
			ex := filepath.Join(t.TempDir(), "excludes")
			write(ex, text)
			git(root, "config", "core.excludesFile", ex)
		default:
			write(filepath.Join(root, k), text)
		}
	}
	return root
}

// hermeticGit runs git with no system or user configuration.
func hermeticGit(t *testing.T) func(dir string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	return func(dir string, args ...string) []byte {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		// check-ignore exits 1 when nothing is ignored.
		if err != nil && !(args[0] == "check-ignore" && cmd.ProcessState.ExitCode() == 1) {
			t.Fatalf("git %v: %v\n%s", args, err, stderr.String())
		}
		return out
	}
}

func nulList(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, strings.TrimSuffix(s, "/"))
		}
	}
	slices.Sort(out)
	return out
}

// TestIgnoreAgreesWithGit generates repositories (files, .gitignore files
// at several depths, .git/info/exclude, a core.excludesFile) and checks
// that the walk finds exactly the files `git ls-files --others
// --exclude-standard` lists, and that pathIgnored says of every file and
// directory what `git check-ignore` says.
func TestIgnoreAgreesWithGit(t *testing.T) {
	git := hermeticGit(t)
	n := 200
	if testing.Short() {
		n = 30
	}
	failures := 0
	for seed := range uint64(n) {
		tr := randomIgnoreTree(seed)
		root := tr.write(t, git)
		opts := walkOptions{Root: root, Base: ignoreBase(root, root), Hidden: true}

		want := nulList(git(root, "ls-files", "-z", "--others", "--exclude-standard"))
		var mu sync.Mutex
		var got []string
		walk(context.Background(), opts, func(f walkFile) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, f.Rel)
		})
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("seed %d: the walk found %q\ngit lists %q\nignore files:\n%s", seed, got, want, tr.describe)
			failures++
		}

		all := append(slices.Clone(tr.files), tr.dirs...)
		slices.Sort(all)
		stdin := strings.Join(all, "\x00")
		cmd := exec.Command("git", "check-ignore", "-z", "--stdin", "--no-index")
		cmd.Dir, cmd.Stdin = root, strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil && cmd.ProcessState.ExitCode() != 1 {
			t.Fatalf("git check-ignore: %v", err)
		}
		gitIgnored := nulList(out)
		for _, p := range all {
			isDir := slices.Contains(tr.dirs, p)
			ours := pathIgnored(opts, filepath.Join(root, filepath.FromSlash(p)), isDir)
			if theirs := slices.Contains(gitIgnored, p); ours != theirs {
				t.Errorf("seed %d: %s (dir %v): ignored %v, git says %v\nignore files:\n%s", seed, p, isDir, ours, theirs, tr.describe)
				failures++
			}
		}
		if failures > 10 {
			t.Fatal("too many differences")
		}
	}
}

// Where git's excludes come from: a linked worktree's .git file leads to
// the shared info/exclude; core.excludesFile is read from the global
// config (GIT_CONFIG_GLOBAL, else XDG and ~/.gitconfig), the repository's
// overriding it, with ~ expanded; unset, it defaults to
// $XDG_CONFIG_HOME/git/ignore.
func TestGitExcludesSources(t *testing.T) {
	home, common, root := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, common, map[string]string{
		"info/exclude":           "from-info\n",
		"worktrees/wt/commondir": "../..\n",
	})
	writeFiles(t, root, map[string]string{".git": "gitdir: " + filepath.Join(common, "worktrees", "wt") + "\n"})
	writeFiles(t, home, map[string]string{
		".gitignore_global":    "from-global\n",
		"xdg/git/ignore":       "from-xdg-default\n",
		"custom.ignore":        "from-repo-config\n",
		".gitconfig":           "[user]\n\tname = x\n[core]\n\texcludesFile = \"~/.gitignore_global\" ; comment\n",
		"alt/gitconfig-global": "[Core]\n\tEXCLUDESFILE = " + filepath.Join(home, "custom.ignore") + "\n",
	})
	env := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"}
	getenv := func(k string) string { return env[k] }
	ignored := func(name string) bool {
		return gitExcludes(root, getenv).ignored(filepath.Join(root, name), false)
	}
	check := func(when string, want map[string]bool) {
		t.Helper()
		for name, w := range want {
			if got := ignored(name); got != w {
				t.Errorf("%s: %s ignored %v, want %v", when, name, got, w)
			}
		}
	}
	check("~/.gitconfig", map[string]bool{"from-info": true, "from-global": true, "from-xdg-default": false, "other": false})
	env["GIT_CONFIG_GLOBAL"] = filepath.Join(home, "alt", "gitconfig-global")
	check("GIT_CONFIG_GLOBAL", map[string]bool{"from-global": false, "from-repo-config": true})
	delete(env, "GIT_CONFIG_GLOBAL")
	if err := os.Remove(filepath.Join(home, ".gitconfig")); err != nil {
		t.Fatal(err)
	}
	env["XDG_CONFIG_HOME"] = filepath.Join(home, "xdg")
	check("default", map[string]bool{"from-xdg-default": true, "from-global": false, "from-info": true})
	writeFiles(t, common, map[string]string{"config": "[core]\n\texcludesfile = " + filepath.Join(home, "custom.ignore") + "\n"})
	check("repository config", map[string]bool{"from-repo-config": true, "from-xdg-default": false})
	if gitExcludes(t.TempDir(), getenv) != nil {
		t.Error("excludes outside a repository")
	}
}
