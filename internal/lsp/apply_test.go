package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// applyHarness is a harness with a workspace folder on disk.
type applyHarness struct {
	*harness
	root string
}

func newApplyHarness(t *testing.T, o editor.Options, opts ...harnessOption) *applyHarness {
	t.Helper()
	h := newHarness(t, opts...)
	root := t.TempDir()
	o.WorkspaceFolders = []string{root}
	h.initialize(o)
	return &applyHarness{harness: h, root: root}
}

func (h *applyHarness) path(name string) string { return filepath.Join(h.root, name) }

func (h *applyHarness) uri(name string) string { return string(uri.File(h.path(name))) }

func (h *applyHarness) write(name, content string) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(h.path(name)), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(h.path(name), []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// disk returns a file's content, "<none>" when it does not exist.
func (h *applyHarness) disk(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(h.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return "<none>"
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// waitStore checks, once the server has handled what the editor sent,
// that its store has the document with text.
func (h *applyHarness) waitStore(name, text string) workspace.Doc {
	h.t.Helper()
	h.sync()
	d, ok := h.agent.cfg.Files.Document(h.path(name))
	if !ok || d.Text != text {
		h.t.Fatalf("the store has %s open %v with %q, want %q", name, ok, textcut.Cut(d.Text, 80), textcut.Cut(text, 80))
	}
	return d
}

// open writes a file and opens it in the editor, as saved.
func (h *applyHarness) open(name, text string) {
	h.t.Helper()
	h.write(name, text)
	if err := h.ed.Open(h.ctx, h.uri(name), "go", text); err != nil {
		h.t.Fatal(err)
	}
	h.waitStore(name, text)
}

// type_ makes an unsaved edit in the editor: text replaces the whole
// document.
func (h *applyHarness) type_(name, text string) {
	h.t.Helper()
	if err := h.ed.Change(h.ctx, h.uri(name), editor.Change{Text: text}); err != nil {
		h.t.Fatal(err)
	}
	h.waitStore(name, text)
}

func (h *applyHarness) apply(ctx context.Context, changes ...workspace.FileChange) error {
	for i := range changes {
		changes[i].Path = h.path(changes[i].Path)
		if changes[i].NewPath != "" {
			changes[i].NewPath = h.path(changes[i].NewPath)
		}
	}
	_, err := h.agent.cfg.Frontend.ApplyChanges(ctx, &workspace.ChangeSet{Label: "agent: test", Changes: changes})
	return err
}

func (h *applyHarness) editorText(name string) string {
	h.t.Helper()
	text, _, ok := h.ed.Text(h.uri(name))
	if !ok {
		return "<not open>"
	}
	return text
}

func update(name, old, new string) workspace.FileChange {
	return workspace.FileChange{Kind: workspace.Update, Path: name, OldContent: []byte(old), NewContent: []byte(new)}
}

// textEditsOf returns the text edits the editor received for a URI.
func textEditsOf(t *testing.T, p protocol.ApplyWorkspaceEditParams, u string) (edits []protocol.TextEdit, version *int32) {
	t.Helper()
	if es, ok := p.Edit.Changes[uri.URI(u)]; ok {
		return es, nil
	}
	for _, dc := range p.Edit.DocumentChanges {
		if te, ok := dc.(*protocol.TextDocumentEdit); ok && string(te.TextDocument.URI) == u {
			for _, e := range te.Edits {
				edits = append(edits, *e.(*protocol.TextEdit))
			}
			return edits, te.TextDocument.Version
		}
	}
	t.Fatalf("no edit for %s in %+v", u, p.Edit)
	return nil, nil
}

func TestApplyOpenDocument(t *testing.T) {
	old := "package main\r\n\r\n// héllo 👋 wörld\r\nfunc main() {\r\n\tprintln(\"😀 x\")\r\n}\r\n"
	new := "package main\r\n\r\n// héllo 👋 wörld, again\r\nfunc main() {\r\n\tprintln(\"😀 y 🎉\")\r\n}\r\n"
	for _, tc := range []struct {
		name string
		opts editor.Options
	}{
		{"utf-16 documentChanges", editor.Options{ApplyEdit: true, DocumentChanges: true}},
		{"utf-8 documentChanges", editor.Options{ApplyEdit: true, DocumentChanges: true, PositionEncodings: []string{"utf-8", "utf-16"}}},
		{"utf-16 changes", editor.Options{ApplyEdit: true}},
		{"utf-8 changes", editor.Options{ApplyEdit: true, PositionEncodings: []string{"utf-8"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newApplyHarness(t, tc.opts)
			h.open("main.go", old)
			h.write("other.go", "package main\n")
			err := h.apply(h.ctx, update("main.go", old, new),
				update("other.go", "package main\n", "package main\n\nvar x = 1\n"),
				workspace.FileChange{Kind: workspace.Add, Path: "sub/dir/new.go", NewContent: []byte("package dir\n")})
			if err != nil {
				t.Fatalf("ApplyChanges: %v", err)
			}
			if got := h.editorText("main.go"); got != new {
				t.Errorf("editor text %q, want %q", got, new)
			}
			// The store has the new text as soon as ApplyChanges returns.
			if d, _ := h.agent.cfg.Files.Document(h.path("main.go")); d.Text != new {
				t.Errorf("store text %q", d.Text)
			}
			// The buffer was clean, so the disk has it too.
			if got := h.disk("main.go"); got != new {
				t.Errorf("disk main.go %q", got)
			}
			if got := h.disk("other.go"); got != "package main\n\nvar x = 1\n" {
				t.Errorf("disk other.go %q", got)
			}
			if got := h.disk("sub/dir/new.go"); got != "package dir\n" {
				t.Errorf("disk new.go %q", got)
			}
			edits := h.ed.Edits()
			if len(edits) != 1 {
				t.Fatalf("%d applyEdit requests, want 1", len(edits))
			}
			if edits[0].Label == nil || *edits[0].Label != "agent: test" {
				t.Errorf("label %v", edits[0].Label)
			}
			tes, version := textEditsOf(t, edits[0], h.uri("main.go"))
			if tc.opts.DocumentChanges && (version == nil || *version != 1) {
				t.Errorf("version %v, want 1", version)
			}
			if !tc.opts.DocumentChanges && len(edits[0].Edit.DocumentChanges) != 0 {
				t.Errorf("documentChanges sent to a client without them")
			}
			inserted := 0
			for _, e := range tes {
				inserted += len(e.NewText)
			}
			if inserted == 0 || inserted > len(" y 🎉, again") {
				t.Errorf("edits are not minimal: %+v", tes)
			}
			if len(workspace.NotOnDisk(&workspace.ChangeSet{Changes: []workspace.FileChange{update(h.path("main.go"), old, new)}})) != 0 {
				t.Errorf("NotOnDisk reports a saved file")
			}
		})
	}
}

func TestApplyDirtyBufferLeavesDiskAlone(t *testing.T) {
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true})
	h.open("a.go", "saved\n")
	h.type_("a.go", "saved\nunsaved by the user\n")
	h.open("b.go", "clean\n")
	newA := "saved\nunsaved by the user\nand the agent\n"
	err := h.apply(h.ctx, update("a.go", "saved\nunsaved by the user\n", newA), update("b.go", "clean\n", "clean too\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := h.editorText("a.go"); got != newA {
		t.Errorf("editor a.go %q", got)
	}
	if got := h.disk("a.go"); got != "saved\n" {
		t.Errorf("the dirty buffer's file was written: %q", got)
	}
	if got := h.disk("b.go"); got != "clean too\n" {
		t.Errorf("the clean buffer's file was not written: %q", got)
	}
	if _, version := textEditsOf(t, h.ed.Edits()[0], h.uri("a.go")); version == nil || *version != 2 {
		t.Errorf("version %v, want 2", version)
	}
	got := workspace.NotOnDisk(&workspace.ChangeSet{Changes: []workspace.FileChange{
		update(h.path("a.go"), "", newA), update(h.path("b.go"), "", "clean too\n"),
	}})
	if !slices.Equal(got, []string{h.path("a.go")}) {
		t.Errorf("NotOnDisk = %v", got)
	}
}

// TestApplyRevertedBufferIsSaved: edits the user took back (VS Code's
// "Revert File", or undo down to the saved text) leave a buffer that
// matches its file; the agent's edit to it is saved as to a clean one,
// while a buffer that still differs from its file is left unsaved.
func TestApplyRevertedBufferIsSaved(t *testing.T) {
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true})
	h.open("a.go", "saved\n")
	h.type_("a.go", "saved\nunsaved by the user\n")
	h.type_("a.go", "saved\n")
	h.open("b.go", "saved\n")
	h.type_("b.go", "SAVED\n") // as long as the file, other bytes
	err := h.apply(h.ctx, update("a.go", "saved\n", "saved\nand the agent\n"), update("b.go", "SAVED\n", "SAVED!\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := h.disk("a.go"); got != "saved\nand the agent\n" {
		t.Errorf("the reverted buffer's file was not written: %q", got)
	}
	if got := h.disk("b.go"); got != "saved\n" {
		t.Errorf("the dirty buffer's file was written: %q", got)
	}
}

// TestApplyCleanBufferWithoutSaving: with saveAgentEdits off, a clean
// buffer's edit stays in the editor and its file keeps the saved text,
// which NotOnDisk reports so the model is told.
func TestApplyCleanBufferWithoutSaving(t *testing.T) {
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true,
		InitializationOptions: map[string]any{"saveAgentEdits": false}})
	h.open("b.go", "clean\n")
	if err := h.apply(h.ctx, update("b.go", "clean\n", "clean too\n")); err != nil {
		t.Fatal(err)
	}
	if got := h.editorText("b.go"); got != "clean too\n" {
		t.Errorf("editor b.go %q", got)
	}
	if got := h.disk("b.go"); got != "clean\n" {
		t.Errorf("the file was written: %q", got)
	}
	got := workspace.NotOnDisk(&workspace.ChangeSet{Changes: []workspace.FileChange{update(h.path("b.go"), "", "clean too\n")}})
	if !slices.Equal(got, []string{h.path("b.go")}) {
		t.Errorf("NotOnDisk = %v", got)
	}
}

func TestApplyRejectedRollsBackDisk(t *testing.T) {
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true}, func(_ *Options, c *editor.Config) {
		c.ApplyEdit = func(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
			reason := "the user said no"
			return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
		}
	})
	h.open("open.go", "x\n")
	h.write("disk.go", "d\n")
	err := h.apply(h.ctx, update("open.go", "x\n", "y\n"), update("disk.go", "d\n", "D\n"),
		workspace.FileChange{Kind: workspace.Add, Path: "new/n.go", NewContent: []byte("n")})
	var rej *workspace.RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("error %v, want a RejectedError", err)
	}
	if rej.Reason != "the user said no" || !slices.Equal(rej.Paths, []string{h.path("open.go")}) {
		t.Errorf("rejection %+v", rej)
	}
	if len(h.ed.Edits()) != 1 {
		t.Fatalf("the edit was not sent")
	}
	if got := h.disk("disk.go"); got != "d\n" {
		t.Errorf("disk.go %q: not rolled back", got)
	}
	if got := h.disk("new/n.go"); got != "<none>" {
		t.Errorf("new file left behind: %q", got)
	}
	if _, err := os.Stat(h.path("new")); err == nil {
		t.Errorf("created directory left behind")
	}
	if got := h.disk("open.go"); got != "x\n" {
		t.Errorf("open.go on disk %q", got)
	}
}

func TestApplyVersionMovedOn(t *testing.T) {
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true})
	h.open("a.go", "one\n")
	h.write("b.go", "b\n")
	cs := []workspace.FileChange{update("a.go", "one\n", "two\n"), update("b.go", "b\n", "B\n")}
	h.type_("a.go", "one\nthe user typed\n") // after the change was computed
	err := h.apply(h.ctx, cs...)
	var rej *workspace.RejectedError
	if !errors.As(err, &rej) || !strings.Contains(rej.Reason, "a.go") {
		t.Fatalf("error %v, want a RejectedError naming a.go", err)
	}
	if len(h.ed.Edits()) != 0 {
		t.Errorf("an edit was sent")
	}
	if got := h.disk("b.go"); got != "b\n" {
		t.Errorf("b.go was written: %q", got)
	}
	if got := h.editorText("a.go"); got != "one\nthe user typed\n" {
		t.Errorf("editor text %q", got)
	}
}

func TestApplyWithoutApplyEdit(t *testing.T) {
	h := newApplyHarness(t, editor.Options{})
	h.open("a.go", "a\n")
	if err := h.apply(h.ctx, update("a.go", "a\n", "A\n"),
		workspace.FileChange{Kind: workspace.Add, Path: "n.go", NewContent: []byte("n\n")}); err != nil {
		t.Fatal(err)
	}
	if len(h.ed.Edits()) != 0 {
		t.Errorf("applyEdit sent to a client without it")
	}
	if h.disk("a.go") != "A\n" || h.disk("n.go") != "n\n" {
		t.Errorf("disk a.go %q n.go %q", h.disk("a.go"), h.disk("n.go"))
	}
	// A file changed on disk since it was read is refused, and nothing
	// else is written.
	h.write("c.go", "changed\n")
	err := h.apply(h.ctx, update("n.go", "n\n", "N\n"), update("c.go", "c\n", "C\n"))
	var rej *workspace.RejectedError
	if !errors.As(err, &rej) || !strings.Contains(err.Error(), "c.go changed on disk") {
		t.Fatalf("error %v", err)
	}
	if h.disk("n.go") != "n\n" {
		t.Errorf("n.go written despite the refusal")
	}
}

func TestApplyResourceOperations(t *testing.T) {
	for _, withOps := range []bool{true, false} {
		name := "without resourceOperations"
		opts := editor.Options{ApplyEdit: true, DocumentChanges: true}
		if withOps {
			name = "with resourceOperations"
			opts.ResourceOperations = []string{"create", "rename", "delete"}
		}
		t.Run(name, func(t *testing.T) {
			h := newApplyHarness(t, opts)
			h.open("del.go", "delete me\n")
			h.open("src/mv.go", "move me\n")
			h.write("closed.go", "closed\n")
			err := h.apply(h.ctx,
				workspace.FileChange{Kind: workspace.Delete, Path: "del.go", OldContent: []byte("delete me\n")},
				workspace.FileChange{Kind: workspace.Move, Path: "src/mv.go", NewPath: "dst/mv.go", OldContent: []byte("move me\n"), NewContent: []byte("moved\n")},
				workspace.FileChange{Kind: workspace.Move, Path: "closed.go", NewPath: "dst/closed.go", OldContent: []byte("closed\n"), NewContent: []byte("closed\n")},
				workspace.FileChange{Kind: workspace.Add, Path: "created/c.go", NewContent: []byte("created\n")})
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{
				"del.go": "<none>", "src/mv.go": "<none>", "dst/mv.go": "moved\n",
				"closed.go": "<none>", "dst/closed.go": "closed\n", "created/c.go": "created\n",
			} {
				if got := h.disk(name); got != want {
					t.Errorf("disk %s = %q, want %q", name, got, want)
				}
			}
			var kinds []string
			for _, p := range h.ed.Edits() {
				for _, dc := range p.Edit.DocumentChanges {
					switch dc := dc.(type) {
					case *protocol.DeleteFile:
						kinds = append(kinds, "delete "+string(dc.URI))
					case *protocol.RenameFile:
						kinds = append(kinds, "rename "+string(dc.OldURI)+" "+string(dc.NewURI))
					case *protocol.CreateFile:
						kinds = append(kinds, "create "+string(dc.URI))
					}
				}
			}
			if withOps {
				want := []string{"delete " + h.uri("del.go"), "rename " + h.uri("src/mv.go") + " " + h.uri("dst/mv.go")}
				if !slices.Equal(kinds, want) {
					t.Errorf("resource operations %v, want %v", kinds, want)
				}
				// The buffer followed its file and has the new text.
				if got := h.editorText("dst/mv.go"); got != "moved\n" {
					t.Errorf("editor dst/mv.go %q", got)
				}
				if d, ok := h.agent.cfg.Files.Document(h.path("dst/mv.go")); !ok || d.Text != "moved\n" {
					t.Errorf("store dst/mv.go %+v", d)
				}
			} else {
				if len(kinds) != 0 {
					t.Errorf("resource operations sent to a client without them: %v", kinds)
				}
				if len(h.ed.Edits()) != 0 {
					t.Errorf("an applyEdit was sent with nothing for the editor to do")
				}
			}
		})
	}
}

func TestApplyNeverAnswered(t *testing.T) {
	// The editor takes the request and never answers, as one without a
	// handler for it does; asked says it has the request.
	asked := make(chan struct{})
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true}, func(_ *Options, c *editor.Config) {
		c.ApplyEdit = func(ctx context.Context, _ *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
			close(asked)
			<-ctx.Done()
			return nil, protocol.ErrRequestCancelled
		}
	})
	h.open("a.go", "a\n")
	h.write("b.go", "b\n")
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() { done <- h.apply(ctx, update("a.go", "a\n", "A\n"), update("b.go", "b\n", "B\n")) }()
	select {
	case err := <-done:
		t.Fatalf("ApplyChanges returned %v before the editor answered", err)
	case <-asked:
	}
	// The files not open are written before the edit is sent.
	if got := h.disk("b.go"); got != "B\n" {
		t.Fatalf("b.go holds %q while the editor has the edit, want it written", got)
	}
	cancel() // the turn is interrupted
	err := <-done
	var rej *workspace.RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("error %v, want a RejectedError", err)
	}
	if got := h.disk("b.go"); got != "b\n" {
		t.Errorf("b.go not rolled back: %q", got)
	}
}

func TestTextEdits(t *testing.T) {
	for _, tc := range []struct{ name, old, new string }{
		{"insert after emoji", "a👋b\n", "a👋xb\n"},
		{"replace emoji", "a👋b\n", "a🎉b\n"},
		{"CRLF to LF", "a\r\nb\r\n", "a\nb\n"},
		{"LF to CRLF", "a\nb\n", "a\r\nb\r\n"},
		{"split CRLF", "x\r\ny", "x\rz\ny"},
		{"lone CR", "a\rb\rc", "a\rB\rc"},
		{"invalid UTF-8", "a\xff\xfeb", "a\xfe\xffb"},
		{"empty to text", "", "hello\n"},
		{"text to empty", "hello\n", ""},
		{"same", "same\n", "same\n"},
	} {
		for _, enc := range []workspace.Encoding{workspace.UTF16, workspace.UTF8, workspace.UTF32} {
			edits := textEdits(tc.old, tc.new, enc)
			if got := applyEdits(tc.old, edits, enc); got != tc.new {
				t.Errorf("%s %v: edits %+v give %q, want %q", tc.name, enc, edits, got, tc.new)
			}
			if tc.old == tc.new && len(edits) != 0 {
				t.Errorf("%s: edits for no change: %+v", tc.name, edits)
			}
		}
	}
	// Minimal: one character changed in a long text is one short edit.
	long := strings.Repeat("line 👋\r\n", 1000)
	changed := strings.Replace(long, "line 👋\r\n", "line 🎉\r\n", 1)
	edits := textEdits(long, changed, workspace.UTF16)
	if len(edits) != 1 || len(edits[0].NewText) > len("🎉") || edits[0].Range.Start.Character != 5 {
		t.Errorf("edits %+v", edits)
	}
}

func TestApplyPartlyAppliedIsUndone(t *testing.T) {
	var h *applyHarness
	h = newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true}, func(_ *Options, c *editor.Config) {
		c.ApplyEdit = func(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
			if len(h.ed.Edits()) > 1 {
				return &protocol.ApplyWorkspaceEditResult{Applied: true}, h.applyRevert(ctx, p)
			}
			// The first document is changed, then the editor gives up on
			// the second, as an editor without transactions does.
			if err := h.ed.Change(ctx, h.uri("a.go"), editor.Change{Text: "A\n"}); err != nil {
				return nil, err
			}
			reason := "b.go changed"
			return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
		}
	})
	h.open("a.go", "a\n")
	h.open("b.go", "b\n")
	err := h.apply(h.ctx, update("a.go", "a\n", "A\n"), update("b.go", "b\n", "B\n"))
	var rej *workspace.RejectedError
	if !errors.As(err, &rej) || rej.Reason != "b.go changed" {
		t.Fatalf("error %v", err)
	}
	edits := h.ed.Edits()
	if len(edits) != 2 {
		t.Fatalf("%d applyEdit requests, want the edit and its undo", len(edits))
	}
	if got := h.editorText("a.go"); got != "a\n" {
		t.Errorf("a.go left as %q", got)
	}
	if tes, version := textEditsOf(t, edits[1], h.uri("a.go")); version == nil || *version != 2 || len(tes) == 0 {
		t.Errorf("undo edit %+v version %v", tes, version)
	}
}

// applyRevert applies the undo edit of TestApplyPartlyAppliedIsUndone the
// way the editor's default handler would, for one whole-document change.
func (h *applyHarness) applyRevert(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) error {
	te := p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	text, _, _ := h.ed.Text(string(te.TextDocument.URI))
	var edits []protocol.TextEdit
	for _, e := range te.Edits {
		edits = append(edits, *e.(*protocol.TextEdit))
	}
	return h.ed.Change(ctx, string(te.TextDocument.URI), editor.Change{Text: applyEdits(text, edits, workspace.UTF16)})
}
