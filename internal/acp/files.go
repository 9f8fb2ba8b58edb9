package acp

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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
// only open documents through the view, read the disk.
//
// The client is asked only about a file that is on disk or that the
// client named (namedPaths): clients answer a file that does not exist
// with an error they also show the user (acpx prints "Resource not
// found" for every AGENTS.md agent-ls looks for) or with empty content.
// A read the client cannot answer falls back to the disk, which also
// says when a file does not exist; so does an empty answer for a file
// that is not on disk: a missing file is not an empty one.
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

// text is path's text as the client has it, when the client is asked
// and answers; false sends the caller to the disk.
func (f *clientFiles) text(path string) (string, bool) {
	st, err := os.Stat(path)
	onDisk := err == nil
	switch {
	case onDisk && st.IsDir():
		return "", false
	case !onDisk && !f.s.named.has(path):
		return "", false // the client cannot hold it: not worth an error shown to the user
	}
	text, ok := f.read(path)
	if !ok || (text == "" && !onDisk) {
		return "", false
	}
	return text, true
}

func (f *clientFiles) ReadFile(path string) ([]byte, error) {
	if text, ok := f.text(path); ok {
		return []byte(text), nil
	}
	return workspace.ReadRegular(path)
}

func (f *clientFiles) Document(path string) (workspace.Doc, bool) {
	text, ok := f.text(path)
	if !ok {
		return workspace.Doc{}, false
	}
	return workspace.Doc{Path: path, URI: (&url.URL{Scheme: "file", Path: path}).String(), Text: text}, true
}

func (f *clientFiles) OpenPaths() []string { return nil }

// namedPaths are the files the client named on the connection, in any
// of its sessions: those of its prompts' resources and resource links
// (what the user attached or mentioned, which may be a buffer not saved
// yet) and those agent-ls wrote through fs/write_text_file. They are the
// files the client may hold without the disk having them, so the only
// ones not on disk the file view asks it about. Unsaved buffers are the
// editor's, not one session's: the set is the connection's.
type namedPaths struct {
	mu    sync.Mutex
	paths map[string]bool
}

// add names paths ("" is ignored).
func (n *namedPaths) add(paths ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range paths {
		if p == "" {
			continue
		}
		if n.paths == nil {
			n.paths = map[string]bool{}
		}
		n.paths[filepath.Clean(p)] = true
	}
}

// has reports whether the client named path.
func (n *namedPaths) has(path string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.paths[filepath.Clean(path)]
}

// promptPaths are the files a prompt's resources and resource links
// name (file URIs only).
func promptPaths(blocks []sdk.ContentBlock) []string {
	var out []string
	for _, b := range blocks {
		switch {
		case b.ResourceLink != nil:
			out = append(out, uriPath(b.ResourceLink.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			out = append(out, uriPath(b.Resource.Resource.TextResourceContents.Uri))
		case b.Resource != nil && b.Resource.Resource.BlobResourceContents != nil:
			out = append(out, uriPath(b.Resource.Resource.BlobResourceContents.Uri))
		}
	}
	return out
}

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
