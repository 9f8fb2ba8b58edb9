package agent

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// Kinds of a Mention.
const (
	MentionFile   = "file"
	MentionFolder = "folder"
)

// Mention is a file or folder the user may @-mention.
type Mention struct {
	// Path is absolute.
	Path string
	// Kind is MentionFile or MentionFolder.
	Kind string
}

// CompleteMention returns the files and folders of a session's workspace
// (its cwd and other folders; without sessionID, the manager's cwd and
// the defaults' folders) that best match what the user typed after @,
// best first, at most limit (<= 0: 50). The lists are kept per folder,
// honour the ignore files and leave hidden files out (search.FileIndex);
// FilesChanged keeps them current. The first walk of a folder is waited
// for at most MentionWait: complete is false when the answer comes from
// the part of a folder listed by then (ask again for the rest).
func (m *Manager) CompleteMention(ctx context.Context, sessionID, query string, limit int) (found []Mention, complete bool, err error) {
	roots, err := m.mentionRoots(sessionID)
	if err != nil {
		return nil, false, err
	}
	entries, complete := m.mentions.FindSoon(ctx, roots, query, limit, MentionWait)
	out := make([]Mention, 0, len(entries))
	for _, e := range entries {
		kind := MentionFile
		if e.Dir {
			kind = MentionFolder
		}
		out = append(out, Mention{Path: e.Abs, Kind: kind})
	}
	return out, complete, ctx.Err()
}

// MentionWait is how long CompleteMention waits for the first listing
// of a folder before it answers from what is listed: a 100,000-file tree
// takes a few hundred milliseconds to walk, and the user is typing.
const MentionWait = 60 * time.Millisecond

// FilesChanged tells the manager that the files or folders at paths
// (absolute) were created, changed or deleted, as an editor reports
// them: the mention lists take it in at once.
func (m *Manager) FilesChanged(paths ...string) {
	m.mentions.Changed(paths...)
}

// mentionRoots are the folders whose files a mention may name.
func (m *Manager) mentionRoots(sessionID string) ([]string, error) {
	if sessionID == "" {
		d, _ := m.current()
		return append([]string{m.opts.Cwd}, sessionFolders(m.opts.Cwd, d.Folders)...), nil
	}
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{s.info.Cwd}, s.boundary.Folders()...), nil
}

// skipHiddenOwn leaves out of the mention lists agent-ls's own folders
// that sandboxed commands and the model may not read either.
func (m *Manager) skipHiddenOwn(abs string, _ bool) bool {
	d, _ := m.current()
	return slices.ContainsFunc(d.OwnFiles, func(o policy.OwnPath) bool {
		return o.Hidden && (abs == o.Path || isBelow(o.Path, abs))
	})
}

// isBelow: path lies below dir (both clean and absolute).
func isBelow(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}
