package acp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// clientTimeout bounds a file read or write through the client: a client
// that never answers must not hold a turn forever (reads then go to the
// disk; a write counts as failed).
const clientTimeout = 30 * time.Second

// clientFiles is the file view of a client that offers fs/read_text_file:
// read_file reads what the user sees in the editor, unsaved edits
// included, as the language server's open documents do (every file
// counts as open: Document asks the client). ACP does not say which
// files are open, so OpenPaths is empty and the search tools, which read
// only open documents through the view, read the disk. A read the client
// cannot answer falls back to the disk, which also says when a file does
// not exist.
type clientFiles struct{ s *server }

// read asks the client for path's text.
func (f *clientFiles) read(path string) (string, bool) {
	ss := f.s.sessionFor(path)
	if ss == nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	resp, err := f.s.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(ss.id), Path: path})
	if err != nil {
		f.s.log.Debug("acp: fs/read_text_file failed; reading the disk", "path", path, "err", err)
		return "", false
	}
	if strings.ContainsRune(resp.Content, 0) {
		return "", false // not text: the disk's bytes are what the tools want
	}
	return resp.Content, true
}

func (f *clientFiles) ReadFile(path string) ([]byte, error) {
	if text, ok := f.read(path); ok {
		return []byte(text), nil
	}
	return workspace.ReadRegular(path)
}

func (f *clientFiles) Document(path string) (workspace.Doc, bool) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return workspace.Doc{}, false
	}
	text, ok := f.read(path)
	if !ok {
		return workspace.Doc{}, false
	}
	return workspace.Doc{Path: path, URI: (&url.URL{Scheme: "file", Path: path}).String(), Text: text}, true
}

func (f *clientFiles) OpenPaths() []string { return nil }

// sessionFor is the session a file operation belongs to: the protocol's
// file methods name one, the agent's file view does not. A session with
// a running turn whose directory holds path first, then any session
// whose directory holds it, then any running one.
func (s *server) sessionFor(path string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var inside, running *session
	for _, ss := range s.sessions {
		ss.mu.Lock()
		busy, cwd := ss.turn != nil, ss.info.Cwd
		ss.mu.Unlock()
		in := cwd != "" && (path == cwd || strings.HasPrefix(path, cwd+string(filepath.Separator)))
		switch {
		case busy && in:
			return ss
		case in && inside == nil:
			inside = ss
		case busy && running == nil:
			running = ss
		}
	}
	if inside != nil {
		return inside
	}
	return running
}

// ApplyChanges writes a change set through the client's
// fs/write_text_file when it offers it (agent.Frontend), file by file, so
// the client's review and format-on-save apply. Deletions, moves and
// content that is not text are left to the agent, which writes them to
// disk with its crash-safe journal. Writes through the client cannot be
// atomic: when one fails, the files already written get their old
// content back, and the error says which file holds what.
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
		var err error
		if fc.OldContent == nil {
			// The client created it; it cannot delete: the disk can.
			err = os.Remove(target(fc))
		} else {
			err = s.writeThroughClient(context.WithoutCancel(ctx), ss, target(fc), string(fc.OldContent))
		}
		if err != nil {
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
		return &workspace.RejectedError{Reason: reason, Paths: append(paths, failed.Path)}
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
