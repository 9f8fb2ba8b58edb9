package patch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// addScenarioSeeds adds every scenario's patch (ours and, when present,
// Codex's) to the fuzz corpus, with the content of its first input file.
func addScenarioSeeds(f *testing.F, add func(patch, file string)) {
	for _, dir := range []string{filepath.Join("testdata", "scenarios"), codexSuite} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			p, err := os.ReadFile(filepath.Join(dir, e.Name(), "patch.txt"))
			if err != nil {
				continue
			}
			file := ""
			inputs, _ := filepath.Glob(filepath.Join(dir, e.Name(), "input", "*"))
			for _, in := range inputs {
				if b, err := os.ReadFile(in); err == nil {
					file = string(b)
					break
				}
			}
			add(string(p), file)
		}
	}
}

func FuzzParse(f *testing.F) {
	addScenarioSeeds(f, func(patch, _ string) { f.Add(patch) })
	f.Add("*** Begin Patch\n*** Update File: a\n@@ x\n@@ y\n y\n-z\n+w\n*** End of File\n*** End Patch")
	f.Add("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			if p != nil {
				t.Fatal("a patch and an error")
			}
			return
		}
		checkPatch(t, p)
	})
}

// checkPatch checks what the applier relies on in a parsed patch.
func checkPatch(t *testing.T, p *Patch) {
	if p.Format != FormatApplyPatch && p.Format != FormatUnified {
		t.Fatalf("format %d", p.Format)
	}
	for _, op := range p.Ops {
		if op.Path == "" {
			t.Fatalf("operation without a path: %+v", op)
		}
		if op.Kind != Update && len(op.Chunks) > 0 {
			t.Fatalf("%v with chunks", op.Kind)
		}
		for _, c := range op.Chunks {
			if len(c.ctx) != len(c.New) {
				t.Fatalf("context map of %d for %d new lines", len(c.ctx), len(c.New))
			}
			last := -1
			for i, j := range c.ctx {
				if j < 0 {
					continue
				}
				if j <= last || j >= len(c.Old) || c.Old[j] != c.New[i] {
					t.Fatalf("bad context map %v for old %q new %q", c.ctx, c.Old, c.New)
				}
				last = j
			}
			for _, l := range append(append([]string(nil), c.Old...), c.New...) {
				if strings.Contains(l, "\n") {
					t.Fatalf("line with a newline: %q", l)
				}
			}
		}
	}
}

// oneFile is a Reader that gives the same content for every path.
type oneFile string

func (f oneFile) ReadFile(string) ([]byte, error) { return []byte(f), nil }

func FuzzApply(f *testing.F) {
	addScenarioSeeds(f, func(patch, file string) { f.Add(patch, file) })
	f.Add("*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\n*** End Patch", "a\r\nb\r\n")
	f.Add("--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-x\n+y\n", "x\nz\nx\n")
	f.Fuzz(func(t *testing.T, patch, file string) {
		cs, err := ApplyText(patch, oneFile(file))
		if err != nil {
			if cs != nil {
				t.Fatal("changes and an error")
			}
			return
		}
		for _, c := range cs {
			c.Stats()
			c.UnifiedDiff()
		}
		// A single update's reported diff must reproduce it. Lone '\r'
		// and paths with control characters or surrounding spaces are left
		// out: unified diffs cannot carry them faithfully.
		if len(cs) != 1 || cs[0].Kind != Update || cs[0].MovePath != "" ||
			strings.IndexFunc(cs[0].Path, unicode.IsControl) >= 0 || cs[0].Path != strings.TrimSpace(cs[0].Path) ||
			string(cs[0].OldContent) == string(cs[0].NewContent) ||
			strings.Contains(file, "\r") || strings.Contains(patch, "\r") || !utf8.ValidString(patch) {
			return
		}
		diff := cs[0].UnifiedDiff()
		again, err := ApplyText(diff, oneFile(file))
		if err != nil {
			t.Fatalf("re-applying our diff: %v\n%s", err, diff)
		}
		if len(again) != 1 || string(again[0].NewContent) != string(cs[0].NewContent) {
			t.Fatalf("our diff gives %+v, want %q\n%s", again, cs[0].NewContent, diff)
		}
	})
}
