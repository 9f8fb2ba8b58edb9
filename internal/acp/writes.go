package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// ApplyChanges writes a change set through the client's
// fs/write_text_file when it offers it (agent.Frontend), file by file, so
// the client's review and format-on-save apply. Deletions, moves and
// content that is not text are left to the agent, which writes them to
// disk with its crash-safe journal. Writes through the client cannot be
// atomic: when one fails, the files already written get their old
// content back (a file written back through the client is shown first
// as a tool call of its own), and the error says which file holds what.
func (s *server) ApplyChanges(ctx context.Context, cs *workspace.ChangeSet) (bool, error) {
	s.mu.Lock()
	canWrite := s.client.Fs.WriteTextFile
	s.mu.Unlock()
	if !canWrite || len(cs.Changes) == 0 {
		return false, nil
	}
	for _, fc := range cs.Changes {
		if (fc.Kind != workspace.Add && fc.Kind != workspace.Update) || !utf8.Valid(fc.NewContent) || !utf8.Valid(fc.OldContent) {
			return false, nil
		}
	}
	ss := s.sessionFor(cs.Changes[0].Path)
	if ss == nil {
		return false, nil
	}
	// The client must have the tool call before its files change.
	if err := s.out.flush(ctx); err != nil {
		return false, err
	}
	for i, fc := range cs.Changes {
		if err := s.writeThroughClient(ctx, ss, target(fc), string(fc.NewContent)); err != nil {
			return false, s.rollBack(ctx, ss, cs.Changes[:i], fc, cs.Changes[i+1:], err)
		}
		// The client may hold it unsaved now.
		s.named.add(fc.Path, target(fc))
	}
	return true, nil
}

// target is where a change lands: its path with links resolved when it
// was decided.
func target(fc workspace.FileChange) string {
	if fc.Real != "" {
		return fc.Real
	}
	return fc.Path
}

func (s *server) writeThroughClient(ctx context.Context, ss *session, path, content string) error {
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	_, err := s.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(ss.id), Path: path, Content: content})
	return err
}

// rollBack gives the files already written their old content back after
// failed could not be written, and returns the error that says what
// each file holds now: nothing changed when every restore worked.
func (s *server) rollBack(ctx context.Context, ss *session, written []workspace.FileChange, failed workspace.FileChange, rest []workspace.FileChange, cause error) error {
	var restored, stuck []string
	for i := len(written) - 1; i >= 0; i-- {
		fc := written[i]
		if err := s.restore(context.WithoutCancel(ctx), ss, fc, failed, declined(cause)); err != nil {
			stuck = append(stuck, fc.Path)
		} else {
			restored = append(restored, fc.Path)
		}
	}
	reason := fmt.Sprintf("the editor could not write %s (%v)", failed.Path, cause)
	if len(stuck) == 0 {
		var paths []string
		for _, fc := range written {
			paths = append(paths, fc.Path)
		}
		if len(restored) > 0 {
			reason += "; " + strings.Join(restored, ", ") + " got their content before the change back"
		}
		return &workspace.RejectedError{Reason: reason, Paths: append(paths, failed.Path), Declined: declined(cause)}
	}
	var notWritten []string
	for _, fc := range rest {
		notWritten = append(notWritten, fc.Path)
	}
	msg := reason + "; these files hold the NEW content and could not be restored: " + strings.Join(stuck, ", ")
	if len(restored) > 0 {
		msg += "; restored to their content before: " + strings.Join(restored, ", ")
	}
	msg += "; unchanged: " + strings.Join(append([]string{failed.Path}, notWritten...), ", ")
	return errors.New(msg)
}

// declined reports whether a client's error for a write says that the
// user, or the client's own policy, refused it rather than that it
// failed: the model is then told not to make the change again unasked,
// instead of to read the file again and redo it. The protocol has no
// error code for a refusal, so the error's words are read (acpx answers
// "Permission denied for fs/write_text_file").
func declined(err error) bool {
	text := strings.ToLower(err.Error())
	for _, w := range []string{"denied", "refused", "rejected", "declined"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// restoreCalls numbers the restores' tool calls.
var restoreCalls atomic.Uint64

// restore gives fc's file its content from before the change back after
// the client refused failed (refused), or failed to write it. A file the
// change set created is removed from the disk (the protocol has no
// delete); any other is written through the client, which may ask the
// user again. Either way the client is shown the restore as a tool call
// of its own first, so the user knows what a second question is about,
// and then how it ended.
func (s *server) restore(ctx context.Context, ss *session, fc, failed workspace.FileChange, refused bool) error {
	cwd := ss.cwdOf()
	id := sdk.ToolCallId(fmt.Sprintf("agent-ls-restore-%d", restoreCalls.Add(1)))
	name := textcut.VisibleLine(shownPath(fc.Path, cwd))
	verb, title := "could not write", "the change set could not be written"
	if refused {
		verb, title = "refused", "the change set was refused"
	}
	action, undo := "Restore ", "puts back the content "+name+" had before the change"
	if fc.OldContent == nil {
		action, undo = "Remove ", "removes "+name+", which the change set created"
	}
	what := textContent(fmt.Sprintf("This %s: the editor %s the change set's next file, %s, so agent-ls undoes the files of the set it already wrote.",
		undo, verb, textcut.VisibleLine(shownPath(failed.Path, cwd))))
	s.push(ss, sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: id,
		Title: action + name + ": " + title, Kind: sdk.ToolKindEdit, Status: sdk.ToolCallStatusInProgress,
		Content: []sdk.ToolCallContent{what}, Locations: []sdk.ToolCallLocation{{Path: fc.Path}}}})
	var err error
	if fc.OldContent == nil {
		// The protocol has no delete: the file goes from the disk.
		err = os.Remove(target(fc))
	} else {
		// The client must have the tool call before the write it is
		// about.
		fctx, cancel := context.WithTimeout(ctx, clientTimeout)
		err = s.out.flush(fctx)
		cancel()
		if err == nil {
			err = s.writeThroughClient(ctx, ss, target(fc), string(fc.OldContent))
		}
	}
	end := &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: id, Status: sdk.Ptr(sdk.ToolCallStatusCompleted)}
	if err != nil {
		end.Status = sdk.Ptr(sdk.ToolCallStatusFailed)
		end.Content = []sdk.ToolCallContent{what, textContent(fmt.Sprintf("It did not work (%s): %s keeps the change set's new content.", textcut.Visible(err.Error()), name))}
	}
	s.push(ss, sdk.SessionUpdate{ToolCallUpdate: end})
	return err
}

// shownPath is path as the user knows it: relative to the session's
// directory when inside it.
func shownPath(path, cwd string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && cwd != "" && filepath.IsLocal(rel) {
		return rel
	}
	return path
}
