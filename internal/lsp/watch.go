package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// watchRegistration is the id of the file watchers agent-ls registers.
const watchRegistration = "agent-ls.watchedFiles"

// Kinds of a FileSystemWatcher (LSP WatchKind).
const (
	watchCreate = 1
	watchChange = 2
	watchDelete = 4
)

// watchFiles asks a client that can register workspace/
// didChangeWatchedFiles dynamically to report the files created and
// deleted in its workspace folders, and the ignore files changed: the
// mention lists learn of what other programs do to the tree (git
// checkout, a build, a shell) as the editor's watcher sees it.
func (s *server) watchFiles(ctx context.Context) {
	watcher := func(glob string, kind int) map[string]any {
		return map[string]any{"globPattern": glob, "kind": kind}
	}
	params := map[string]any{"registrations": []any{map[string]any{
		"id":     watchRegistration,
		"method": protocol.MethodWorkspaceDidChangeWatchedFiles,
		"registerOptions": map[string]any{"watchers": []any{
			watcher("**/*", watchCreate|watchDelete),
			watcher("**/.gitignore", watchCreate|watchChange|watchDelete),
			watcher("**/.ignore", watchCreate|watchChange|watchDelete),
		}},
	}}}
	if err := s.out.drained(ctx); err != nil {
		return
	}
	if err := protocol.Call(ctx, s.conn, protocol.MethodClientRegisterCapability, params, nil); err != nil {
		s.log.Debug("the client did not register the file watchers", "err", err)
	}
}
