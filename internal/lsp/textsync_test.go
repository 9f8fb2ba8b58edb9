package lsp

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// burstDoc is the document as the client sees it, kept in UTF-16 code
// units, independently of the workspace package.
type burstDoc struct {
	lines [][]uint16
	brks  []string // the break after each line; the last is ""
}

func newBurstDoc(text string) *burstDoc {
	d := &burstDoc{}
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			d.lines = append(d.lines, utf16.Encode([]rune(text)))
			d.brks = append(d.brks, "")
			return d
		}
		brk := text[i : i+1]
		if strings.HasPrefix(text[i:], "\r\n") {
			brk = "\r\n"
		}
		d.lines = append(d.lines, utf16.Encode([]rune(text[:i])))
		d.brks = append(d.brks, brk)
		text = text[i+len(brk):]
	}
}

func (d *burstDoc) String() string {
	var b strings.Builder
	for i, l := range d.lines {
		b.WriteString(string(utf16.Decode(l)))
		b.WriteString(d.brks[i])
	}
	return b.String()
}

// boundary moves a unit offset off the second half of a surrogate pair.
func boundary(l []uint16, p int) int {
	if p > 0 && p < len(l) && utf16.IsSurrogate(rune(l[p])) && l[p] >= 0xDC00 {
		return p + 1
	}
	return p
}

// randomEdit changes d and returns the same change in LSP terms.
func (d *burstDoc) randomEdit(r *rand.Rand) editor.Change {
	pieces := []string{"a", "xy", "é", "€", "😀", "𝄞", " ", "\t"}
	i := r.IntN(len(d.lines))
	l := d.lines[i]
	switch k := r.IntN(10); {
	case k == 0 && i+1 < len(d.lines): // join line i and i+1
		rng := protocol.Range{
			Start: protocol.Position{Line: uint32(i), Character: uint32(len(l))},
			End:   protocol.Position{Line: uint32(i + 1)},
		}
		d.lines[i] = append(append([]uint16{}, l...), d.lines[i+1]...)
		d.brks[i] = d.brks[i+1]
		d.lines = append(d.lines[:i+1], d.lines[i+2:]...)
		d.brks = append(d.brks[:i+1], d.brks[i+2:]...)
		return editor.Change{Range: &rng, Text: ""}
	case k == 1: // split line i with "\n"
		p := boundary(l, r.IntN(len(l)+1))
		rng := protocol.Range{Start: protocol.Position{Line: uint32(i), Character: uint32(p)}, End: protocol.Position{Line: uint32(i), Character: uint32(p)}}
		head, tail := append([]uint16{}, l[:p]...), append([]uint16{}, l[p:]...)
		d.lines = append(d.lines[:i], append([][]uint16{head, tail}, d.lines[i+1:]...)...)
		d.brks = append(d.brks[:i], append([]string{"\n", d.brks[i]}, d.brks[i+1:]...)...)
		return editor.Change{Range: &rng, Text: "\n"}
	default: // replace a few units within line i
		p := boundary(l, r.IntN(len(l)+1))
		q := boundary(l, min(len(l), p+r.IntN(4)))
		text := ""
		if len(l) < 200 || r.IntN(2) == 0 {
			text = pieces[r.IntN(len(pieces))]
		}
		rng := protocol.Range{Start: protocol.Position{Line: uint32(i), Character: uint32(p)}, End: protocol.Position{Line: uint32(i), Character: uint32(q)}}
		nl := append(append(append([]uint16{}, l[:p]...), utf16.Encode([]rune(text))...), l[q:]...)
		d.lines[i] = nl
		return editor.Change{Range: &rng, Text: text}
	}
}

// TestIncrementalBurst sends 5,000 incremental changes as fast as the pipe
// takes them; the document the server holds must be exactly the client's,
// and a request sent right after the burst must see the final text.
func TestIncrementalBurst(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	dir := t.TempDir()
	docURI := string(uri.File(filepath.Join(dir, "main.go")))
	initial := "package main\r\n\r\nfunc main() {\r\n\tprintln(\"😀 héllo\")\n}\r"
	if err := h.ed.Open(h.ctx, docURI, "go", initial); err != nil {
		t.Fatal(err)
	}
	model := newBurstDoc(initial)
	if model.String() != initial {
		t.Fatalf("model %q", model.String())
	}
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 5000 {
		if err := h.ed.Change(h.ctx, docURI, model.randomEdit(r)); err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	want := model.String()

	h.startTurn(map[string]any{"prompt": "look", "context": []map[string]any{{"uri": docURI}}})
	in := h.agent.lastTurn()
	if len(in.Context) != 1 || in.Context[0].Text != want {
		t.Fatalf("the turn saw\n%q\nwant\n%q", in.Context[0].Text, want)
	}
	if text, version, _ := h.ed.Text(docURI); text != want || version != 5001 {
		t.Errorf("the editor's own copy: version %d\n%q", version, text)
	}
	d, ok := h.agent.cfg.Files.Document(filepath.Join(dir, "main.go"))
	if !ok || d.Version != 5001 || !d.Dirty {
		t.Errorf("store document: %+v", d)
	}
}

func TestDocumentLifecycle(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{PositionEncodings: []string{"utf-8"}})
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte("disk 😀\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	docURI := string(uri.File(path))
	files := h.agent.cfg.Files
	read := func() string {
		t.Helper()
		b, err := files.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	if err := h.ed.Open(h.ctx, docURI, "plaintext", "buffer 😀\n"); err != nil {
		t.Fatal(err)
	}
	// UTF-8 positions: the emoji is 4 units wide.
	change := editor.Change{Range: &protocol.Range{
		Start: protocol.Position{Line: 0, Character: 7},
		End:   protocol.Position{Line: 0, Character: 11},
	}, Text: "!"}
	if err := h.ed.Change(h.ctx, docURI, change); err != nil {
		t.Fatal(err)
	}
	if err := h.ed.Save(h.ctx, docURI); err != nil {
		t.Fatal(err)
	}
	// A request orders after the notifications before it.
	h.startTurn(map[string]any{"prompt": "x"})
	if got := read(); got != "buffer !\n" {
		t.Errorf("open document reads %q", got)
	}
	if d, _ := files.Document(path); d.Dirty || d.LanguageID != "plaintext" || d.Version != 2 || d.URI != docURI {
		t.Errorf("document after save: %+v", d)
	}

	if err := h.ed.Close(h.ctx, docURI); err != nil {
		t.Fatal(err)
	}
	h.startTurn(map[string]any{"prompt": "x"})
	if got := read(); got != "disk 😀\n" {
		t.Errorf("closed document reads %q", got)
	}
	if paths := files.OpenPaths(); len(paths) != 0 {
		t.Errorf("open paths %q", paths)
	}
}
