package app

import (
	"github.com/agent-ls/agent-ls/internal/agent"
	"slices"

	"github.com/agent-ls/agent-ls/internal/lsp"
)

// SetFolders makes folders the editor's workspace folders (the first is
// the workspace root) for every session of the connection, from their
// next turn on (lsp.Agent; workspace/didChangeWorkspaceFolders). It
// returns what the user should be told: a new folder that stays
// read-only.
func (a *editorAgent) SetFolders(folders []string) []lsp.Message {
	folders = slices.Clone(folders)
	a.mu.Lock()
	a.folders = folders
	a.mu.Unlock()
	if err := a.Manager.UpdateDefaults(func(d *agent.Defaults) { d.Folders = slices.Clone(folders) }); err != nil {
		return []lsp.Message{{Error: true, Text: "agent-ls: the workspace folders cannot apply: " + err.Error()}}
	}
	return a.folderNotices(folders)
}

// folderNotices are the warnings, not told before, for the folders
// beyond the workspace root that stay read-only in the current sandbox
// mode (agent.Manager.FolderNotice).
func (a *editorAgent) folderNotices(folders []string) []lsp.Message {
	if a.Manager == nil {
		return nil
	}
	mode := a.root.currentSettings().SandboxMode
	var out []lsp.Message
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, f := range folders {
		if f == a.cwd || a.toldFolders[f] {
			continue
		}
		msg := a.Manager.FolderNotice(f, mode)
		if msg == "" {
			continue
		}
		if a.toldFolders == nil {
			a.toldFolders = map[string]bool{}
		}
		a.toldFolders[f] = true
		a.log.Warn(msg)
		out = append(out, lsp.Message{Text: msg})
	}
	return out
}
