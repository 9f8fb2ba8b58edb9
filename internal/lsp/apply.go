package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// settleTimeout bounds how long ApplyChanges waits, after the editor
// applied an edit, for the didChange notifications that show it.
const settleTimeout = 5 * time.Second

// ApplyChanges is the agent.Frontend duty: the server applies every change
// set itself, through the editor or to disk.
func (s *server) ApplyChanges(ctx context.Context, cs *workspace.ChangeSet) (bool, error) {
	return true, s.applyChanges(ctx, cs)
}

// applyChanges applies a change set all or nothing (protocol section 5).
//
// A client without workspace.applyEdit gets every change written to disk,
// atomically per file.
//
// Otherwise changes to documents the editor has open go out as one
// workspace/applyEdit labelled cs.Label: the minimal text edits from the
// text the server last saw to the new content, as TextDocumentEdits
// carrying that version for clients with documentChanges (so an editor
// whose document moved on refuses), else as `changes`. Deleting or moving
// an open document is a DeleteFile or RenameFile where the client lists
// the operation in resourceOperations; otherwise the file on disk is
// deleted or moved and the editor notices. If an open document's text is
// no longer what the change was computed from, nothing is sent or written
// and the result is a *workspace.RejectedError. Files that are not open
// are written to disk first; if the editor then does not apply the edit
// (applied: false, an error, or ctx ends while waiting), those writes are
// undone and the result is a *workspace.RejectedError with the editor's
// failureReason: nothing of cs remains anywhere (text edits an editor
// applied before failing on a later part are sent back reversed).
//
// After applied: true, ApplyChanges waits (a few seconds at most) until
// the editor's didChange shows each edited document's new text, so that
// later tool calls read it. A document that had no unsaved edits is then
// also saved to disk, so that commands see it too, unless saveAgentEdits
// is off: stock editors notice that the file changed behind the buffer
// and ask before the user's next save, a trade-off docs/protocol.md
// describes. One with unsaved edits keeps them in its buffer only and its
// file is left alone.
// workspace.NotOnDisk tells the caller which files commands still see the
// saved version of.
//
// ApplyChanges must not be called from a handler: it waits for the editor.
func (s *server) applyChanges(ctx context.Context, cs *workspace.ChangeSet) error {
	if err := s.out.drained(ctx); err != nil {
		return err
	}
	caps := s.capabilities()
	if !caps.ApplyEdit {
		return diskError(workspace.WriteToDisk(cs))
	}
	plan, err := s.planEdit(cs, caps)
	if err != nil {
		return err
	}
	written, err := workspace.Write(plan.disk)
	if err != nil {
		return diskError(err)
	}
	if len(plan.edit.DocumentChanges) == 0 && len(plan.edit.Changes) == 0 {
		return nil
	}
	params := &protocol.ApplyWorkspaceEditParams{Edit: plan.edit}
	if cs.Label != "" {
		params.Label = &cs.Label
	}
	res, err := s.client.ApplyEdit(ctx, params)
	if err != nil || !res.Applied {
		reason := ""
		switch {
		case err != nil && ctx.Err() != nil:
			reason = "the editor did not answer before the turn ended"
		case err != nil:
			reason = err.Error()
		case res.FailureReason != nil:
			reason = *res.FailureReason
		}
		if ctx.Err() == nil {
			s.revertPartial(ctx, plan.open)
		}
		if rbErr := written.Rollback(); rbErr != nil {
			return fmt.Errorf("the editor did not apply the change (%s), and undoing the files already written failed: %w", reason, rbErr)
		}
		return &workspace.RejectedError{Reason: reason, Paths: plan.paths, Declined: userDeclined(reason)}
	}
	if pending := s.settle(ctx, plan.open); len(pending) > 0 {
		return &workspace.UnconfirmedError{States: s.unconfirmedStates(pending)}
	}
	return nil
}

// revertPartial undoes the text edits an editor applied before it failed
// on a later part of the edit (an editor need not apply an edit as one
// transaction): documents that now show exactly the new text get the old
// one back, at the version they have now.
func (s *server) revertPartial(ctx context.Context, open []*openEdit) {
	var back protocol.WorkspaceEdit
	enc := s.store.Encoding()
	for _, oe := range open {
		if oe.edit == nil || oe.old == oe.new {
			continue
		}
		d, ok := s.store.Document(oe.path)
		if !ok || d.Text != oe.new || d.Version == *oe.edit.TextDocument.Version {
			continue
		}
		tes := textEdits(oe.new, oe.old, enc)
		te := &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: oe.uri}, Version: &d.Version,
		}}
		for j := range tes {
			te.Edits = append(te.Edits, &tes[j])
		}
		back.DocumentChanges = append(back.DocumentChanges, te)
	}
	if len(back.DocumentChanges) == 0 {
		return
	}
	label := "agent: undo a partly applied edit"
	res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: back})
	if err != nil || !res.Applied {
		s.log.Warn("a partly applied edit could not be undone", "err", err)
	}
}

// diskError turns a file that changed under the change into a rejection,
// as the editor's own version check does for an open document.
func diskError(err error) error {
	var ce *workspace.ChangedError
	if errors.As(err, &ce) {
		return &workspace.RejectedError{Reason: ce.Path + " changed on disk since it was read", Paths: []string{ce.Path}}
	}
	return err
}

// settle waits until the store shows what the editor applied, then saves
// the documents that were clean before. It returns those whose new text
// the editor did not report in time.
func (s *server) settle(ctx context.Context, open []*openEdit) []*openEdit {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	pending := slices.Clone(open)
	s.mu.Lock()
	saveEdits := s.saveEdits
	s.mu.Unlock()
	for len(pending) > 0 {
		pending = slices.DeleteFunc(pending, func(oe *openEdit) bool {
			d, ok := s.store.Document(oe.path)
			if !ok || d.Text != oe.new {
				return false
			}
			if saveEdits && oe.clean && oe.old != oe.new {
				s.save(oe, d)
			}
			return true
		})
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			for _, oe := range pending {
				s.log.Warn("the editor applied an edit but did not report the new text", "path", oe.path)
			}
			return pending
		case <-tick.C:
		}
	}
	return nil
}

// save writes a document that had no unsaved edits to disk, if the disk
// still holds the text it had, and records it as saved.
func (s *server) save(oe *openEdit, d workspace.Doc) {
	err := workspace.WriteToDisk(&workspace.ChangeSet{Changes: []workspace.FileChange{
		{Kind: workspace.Update, Path: oe.path, OldContent: []byte(oe.old), NewContent: []byte(oe.new)},
	}})
	if err != nil {
		s.log.Info("edited document left unsaved", "path", oe.path, "err", err)
		return
	}
	if now, ok := s.store.Document(oe.path); ok && now.Version == d.Version {
		s.store.Save(oe.path)
	}
}

func ptrTo[T any](v T) *T { return &v }

// textEdits returns the minimal edits from old to new, in positions of
// enc. Positions cannot point inside a character or between "\r" and
// "\n", so edits that start or end there are widened to whole characters.
func textEdits(old, new string, enc workspace.Encoding) []protocol.TextEdit {
	raw := udiff.Strings(old, new)
	// A span is a widened range and the raw edits inside it.
	type span struct {
		start, end int
		raw        []udiff.Edit
	}
	var spans []*span
	for _, e := range raw {
		start, end := e.Start, e.End
		for start > 0 && start < len(old) && (!utf8.RuneStart(old[start]) || (old[start] == '\n' && old[start-1] == '\r')) {
			start--
		}
		for end > 0 && end < len(old) && (!utf8.RuneStart(old[end]) || (old[end] == '\n' && old[end-1] == '\r')) {
			end++
		}
		if n := len(spans); n > 0 && start <= spans[n-1].end {
			sp := spans[n-1]
			sp.end = max(sp.end, end)
			sp.raw = append(sp.raw, e)
			continue
		}
		spans = append(spans, &span{start: start, end: end, raw: []udiff.Edit{e}})
	}
	edits := make([]protocol.TextEdit, 0, len(spans))
	pos := newPositioner(old, enc)
	for _, sp := range spans {
		edits = append(edits, protocol.TextEdit{
			Range:   protocol.Range{Start: pos.at(sp.start), End: pos.at(sp.end)},
			NewText: spanText(old, sp.start, sp.end, sp.raw),
		})
	}
	if applyEdits(old, edits, enc) != new {
		// Text udiff cannot split cleanly (invalid UTF-8): replace it all.
		return []protocol.TextEdit{{
			Range:   protocol.Range{End: toProtocolPosition(workspace.PositionAt(old, len(old), enc))},
			NewText: new,
		}}
	}
	return edits
}

// spanText is old[start:end] with the raw edits inside it applied.
func spanText(old string, start, end int, raw []udiff.Edit) string {
	var b strings.Builder
	at := start
	for _, e := range raw {
		b.WriteString(old[at:e.Start])
		b.WriteString(e.New)
		at = e.End
	}
	b.WriteString(old[at:end])
	return b.String()
}

// applyEdits applies non-overlapping edits sorted by position, last first
// so that each leaves the positions of the ones before it valid.
func applyEdits(text string, edits []protocol.TextEdit, enc workspace.Encoding) string {
	changes := make([]workspace.Change, 0, len(edits))
	for _, e := range slices.Backward(edits) {
		r := fromProtocolRange(e.Range)
		changes = append(changes, workspace.Change{Range: &r, Text: e.NewText})
	}
	return workspace.Apply(text, enc, changes...)
}

// positioner converts rising byte offsets of a text to positions in one
// pass over it.
type positioner struct {
	text      string
	enc       workspace.Encoding
	off       int // scanned up to here
	line      int
	lineStart int
}

func newPositioner(text string, enc workspace.Encoding) *positioner {
	return &positioner{text: text, enc: enc}
}

// at returns the position of off, which must not be less than the offset
// before and not between "\r" and "\n".
func (p *positioner) at(off int) protocol.Position {
	for ; p.off < off; p.off++ {
		switch p.text[p.off] {
		case '\n':
			p.line++
			p.lineStart = p.off + 1
		case '\r':
			if p.off+1 < len(p.text) && p.text[p.off+1] == '\n' {
				continue // the "\n" ends the line
			}
			p.line++
			p.lineStart = p.off + 1
		}
	}
	seg := p.text[p.lineStart:off]
	return protocol.Position{Line: uint32(p.line), Character: uint32(workspace.PositionAt(seg, len(seg), p.enc).Character)}
}

func toProtocolPosition(p workspace.Position) protocol.Position {
	return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
}
