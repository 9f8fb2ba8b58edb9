package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestStoreReadFileShadowsDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.go")
	if err := os.WriteFile(path, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewStore()

	read := func() string {
		t.Helper()
		b, err := s.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read(); got != "on disk\n" {
		t.Fatalf("before open: %q", got)
	}

	s.Open(Doc{Path: path, URI: "file://" + path, LanguageID: "go", Version: 1, Text: "in editor\n"})
	if got := read(); got != "in editor\n" {
		t.Fatalf("after open: %q", got)
	}
	if err := s.Change(path, 2, []Change{{Range: rng(0, 0, 0, 2), Text: "unsaved"}}); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "unsaved editor\n" {
		t.Fatalf("after change: %q", got)
	}
	d, ok := s.Document(path)
	if !ok || d.Version != 2 || !d.Dirty || d.LanguageID != "go" {
		t.Fatalf("document = %+v, %v", d, ok)
	}
	s.Save(path)
	if d, _ := s.Document(path); d.Dirty {
		t.Error("still dirty after save")
	}

	s.Close(path)
	if got := read(); got != "on disk\n" {
		t.Fatalf("after close: %q", got)
	}
	if err := s.Change(path, 3, nil); !errors.Is(err, ErrNotOpen) {
		t.Errorf("change of a closed document: %v", err)
	}
	if _, err := s.ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestStorePathsAreCleaned(t *testing.T) {
	s := NewStore()
	s.Open(Doc{Path: "/ws/a/../b.go", Text: "b"})
	s.Open(Doc{Path: "untitled:Untitled-1", Text: "u"})
	if _, ok := s.Document("/ws/b.go"); !ok {
		t.Error("cleaned path not found")
	}
	if got := s.OpenPaths(); !slices.Equal(got, []string{"/ws/b.go", "untitled:Untitled-1"}) {
		t.Errorf("OpenPaths = %q", got)
	}
}

func TestStoreEncoding(t *testing.T) {
	s := NewStore()
	if s.Encoding() != UTF16 {
		t.Fatalf("default encoding %v", s.Encoding())
	}
	s.SetEncoding(UTF8)
	s.Open(Doc{Path: "/x", Text: "😀a"})
	if err := s.Change("/x", 2, []Change{{Range: rng(0, 4, 0, 5), Text: "b"}}); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Document("/x"); d.Text != "😀b" {
		t.Errorf("text = %q", d.Text)
	}
}

// TestStoreConcurrent edits one document while other goroutines read it;
// run with -race. Every read must see a whole version of the text.
func TestStoreConcurrent(t *testing.T) {
	s := NewStore()
	s.Open(Doc{Path: "/doc", Text: ""})
	const edits = 5000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				b, err := s.ReadFile("/doc")
				if err != nil {
					t.Error(err)
					return
				}
				if strings.Trim(string(b), "x") != "" {
					t.Errorf("torn read %q", b)
					return
				}
				s.OpenPaths()
			}
		})
	}
	for i := range edits {
		if err := s.Change("/doc", int32(i+2), []Change{{Range: rng(0, i, 0, i), Text: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	d, _ := s.Document("/doc")
	if len(d.Text) != edits || d.Version != edits+1 {
		t.Errorf("len %d version %d", len(d.Text), d.Version)
	}
}

// BenchmarkBurst measures a burst of 5,000 single-character edits spread
// over a 2,000-line document, the way fast typing arrives.
func BenchmarkBurst(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		sb.WriteString("\tfmt.Println(\"line\", ")
		sb.WriteString(strings.Repeat("😀", i%3))
		sb.WriteString(")\r\n")
	}
	base := sb.String()
	s := NewStore()
	for b.Loop() {
		s.Open(Doc{Path: "/bench.go", Text: base})
		for i := range 5000 {
			line := (i * 7919) % 2000
			if err := s.Change("/bench.go", int32(i), []Change{{Range: rng(line, 5, line, 6), Text: "y"}}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
