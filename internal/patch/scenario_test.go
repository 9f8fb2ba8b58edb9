package patch

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// codexSuite is Codex's own apply_patch scenarios, read from ../shared beside
// the repository (the repository root is two levels up from this package).
var codexSuite = filepath.Join("..", "..", "..", "shared", "conformance", "codex-apply-patch")

// A scenario folder holds input/ (optional), patch.txt, and either
// expected/ (the tree after the patch) or expected_error.txt (the exact
// error; the tree must then be left as input/ was).
func TestCodexConformance(t *testing.T) {
	if _, err := os.Stat(codexSuite); err != nil {
		t.Skipf("Codex conformance suite not available (../shared must sit beside the repository): %v", err)
	}
	runScenarios(t, codexSuite, map[string]bool{
		// Codex applies file operations one by one, so the Add that comes
		// before the failing Update stays. agent-ls applies a patch all or
		// nothing: a patch that fails part-way changes nothing, so for us
		// the expected tree is the input tree (empty) plus the error.
		"015_failure_after_partial_success_leaves_changes": true,
	})
}

func TestScenarios(t *testing.T) {
	runScenarios(t, filepath.Join("testdata", "scenarios"), nil)
}

// runScenarios runs every scenario folder of dir. failsUnchanged names the
// scenarios whose expected/ tree we deliberately do not follow: they must
// fail and leave the input as it was.
func runScenarios(t *testing.T, dir string, failsUnchanged map[string]bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		ran++
		t.Run(e.Name(), func(t *testing.T) {
			runScenario(t, filepath.Join(dir, e.Name()), failsUnchanged[e.Name()])
		})
	}
	if ran == 0 {
		t.Fatalf("no scenarios in %s", dir)
	}
}

func runScenario(t *testing.T, dir string, failsUnchanged bool) {
	patchText, err := os.ReadFile(filepath.Join(dir, "patch.txt"))
	if err != nil {
		t.Fatal(err)
	}
	inputDir := filepath.Join(dir, "input")
	input := readTree(t, inputDir)
	reader := FSReader(os.DirFS(inputDir))
	cs, applyErr := ApplyText(string(patchText), reader)

	work := copyTree(t, input)
	if applyErr == nil {
		writeChanges(t, work, cs)
	}
	got := readTree(t, work)

	wantErr, err := os.ReadFile(filepath.Join(dir, "expected_error.txt"))
	hasWantErr := err == nil
	var want map[string][]byte
	switch {
	case hasWantErr || failsUnchanged:
		want = input
	default:
		want = readTree(t, filepath.Join(dir, "expected"))
	}

	rejected := hasWantErr || failsUnchanged || sameTree(input, want)
	switch {
	case rejected && applyErr == nil:
		t.Fatalf("patch applied, want an error; changes:\n%s", cs.UnifiedDiff())
	case !rejected && applyErr != nil:
		t.Fatalf("unexpected error: %v", applyErr)
	case hasWantErr && applyErr.Error() != strings.TrimRight(string(wantErr), "\n"):
		t.Fatalf("error:\n%s\nwant:\n%s", applyErr, wantErr)
	}
	compareTrees(t, got, want)

	if applyErr == nil {
		// The diff we report for the change set is itself a patch that
		// must have the same effect.
		diff := cs.UnifiedDiff()
		again, err := ApplyText(diff, reader)
		if err != nil {
			t.Fatalf("re-applying our own diff: %v\n%s", err, diff)
		}
		work := copyTree(t, input)
		writeChanges(t, work, again)
		compareTrees(t, readTree(t, work), want)
	}
}

// readTree reads every file under root (none if root does not exist),
// keyed by slash-separated relative path.
func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	tree := map[string][]byte{}
	if _, err := os.Stat(root); os.IsNotExist(err) {
		return tree
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		tree[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// copyTree writes tree into a new temporary directory.
func copyTree(t *testing.T, tree map[string][]byte) string {
	t.Helper()
	root := t.TempDir()
	for p, b := range tree {
		writeFile(t, filepath.Join(root, filepath.FromSlash(p)), b)
	}
	return root
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeChanges writes a change set under root the way a caller would.
func writeChanges(t *testing.T, root string, cs ChangeSet) {
	t.Helper()
	abs := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	for _, c := range cs {
		switch c.Kind {
		case Add:
			writeFile(t, abs(c.Path), c.NewContent)
		case Delete:
			if err := os.Remove(abs(c.Path)); err != nil {
				t.Fatal(err)
			}
		case Update:
			writeFile(t, abs(c.NewPath()), c.NewContent)
			if c.MovePath != "" {
				if err := os.Remove(abs(c.Path)); err != nil {
					t.Fatal(err)
				}
			}
		default:
			t.Fatalf("unknown change kind %v", c.Kind)
		}
	}
}

func sameTree(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func compareTrees(t *testing.T, got, want map[string][]byte) {
	t.Helper()
	var problems []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			problems = append(problems, "missing "+p)
		case !bytes.Equal(g, w):
			problems = append(problems, "content of "+p+":\n got: "+quote(g)+"\nwant: "+quote(w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			problems = append(problems, "unexpected file "+p)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Fatal(strings.Join(problems, "\n"))
	}
}

func quote(b []byte) string { return strings.ReplaceAll(string(b), "\n", "⏎\n      ") }
