package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

func TestStoreExcerptLimit(t *testing.T) {
	const text = "one\ntwo\nthree\n😀😀😀😀\nfive"
	dir := t.TempDir()
	open, onDisk := filepath.Join(dir, "open.txt"), filepath.Join(dir, "disk.txt")
	if err := os.WriteFile(onDisk, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewStore()
	s.Open(Doc{Path: open, Text: text})
	tests := []struct {
		name  string
		r     *Range
		limit int
		want  Excerpt
	}{
		{"whole text within the limit", nil, 100, Excerpt{text, 1, 5, 0, 0}},
		{"whole text cut after whole lines", nil, 10, Excerpt{"one\ntwo\n", 1, 2, len(text) - 8, 5}},
		{"a range cut after whole lines", rng(1, 0, 4, 0), 9, Excerpt{"two\n", 2, 2, 27 - 8 + 4, 4}},
		{"a long first line cut at a character", rng(3, 0, 3, 8), 6, Excerpt{"😀", 4, 4, 12, 4}},
		{"no limit", rng(1, 0, 2, 0), -1, Excerpt{"two\n", 2, 2, 0, 0}},
	}
	for _, path := range []string{open, onDisk} {
		for _, tt := range tests {
			got, err := s.Excerpt(path, tt.r, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s of %s: %+v, want %+v", tt.name, filepath.Base(path), got, tt.want)
			}
		}
	}
}

// An excerpt of an open document is a copy: keeping it does not keep the
// document's text alive.
func TestStoreExcerptIsACopy(t *testing.T) {
	text := strings.Repeat("line\n", 1000)
	s := NewStore()
	s.Open(Doc{Path: "/ws/a.txt", Text: text})
	ex, err := s.Excerpt("/ws/a.txt", rng(10, 0, 11, 0), 100)
	if err != nil || ex.Text != "line\n" {
		t.Fatalf("excerpt %+v, %v", ex, err)
	}
	d, _ := s.Document("/ws/a.txt")
	p, start := uintptr(unsafe.Pointer(unsafe.StringData(ex.Text))), uintptr(unsafe.Pointer(unsafe.StringData(d.Text)))
	if p >= start && p < start+uintptr(len(d.Text)) {
		t.Error("the excerpt points into the document's text")
	}
}

func TestStoreView(t *testing.T) {
	s := NewStore()
	s.Open(Doc{Path: "/ws/a.txt", Text: "a\r\nbé\rc"})
	if s.View("/ws/missing", func(TextView) { t.Error("called for a document that is not open") }) {
		t.Error("View of a document that is not open")
	}
	var lines []string
	var pos Position
	ok := s.View("/ws/a.txt", func(v TextView) {
		for i := range v.LineCount() {
			lines = append(lines, v.Line(i))
		}
		pos = v.Position(v.LineStart(1) + 3)
	})
	if !ok || strings.Join(lines, "|") != "a\r\n|bé\r|c" || pos != (Position{Line: 1, Character: 2}) {
		t.Errorf("View: %v %q %+v", ok, lines, pos)
	}
}
