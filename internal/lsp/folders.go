package lsp

import (
	"context"
	"encoding/json"
	"slices"
)

// didChangeWorkspaceFolders applies the editor's change of its workspace
// folders: new sessions take the first folder as their cwd, as before,
// and every session's workspace holds them all from its next turn on
// (Agent.SetFolders). What the agent has to say (a folder that stays
// read-only) is shown on the side.
func (s *server) didChangeWorkspaceFolders(params json.RawMessage) {
	var raw struct {
		Event struct {
			Added   []struct{ URI string } `json:"added"`
			Removed []struct{ URI string } `json:"removed"`
		} `json:"event"`
	}
	if err := json.Unmarshal(params, &raw); err != nil {
		s.log.Warn("workspace/didChangeWorkspaceFolders: unreadable params", "err", err)
		return
	}
	s.mu.Lock()
	folders := slices.Clone(s.folders)
	for _, f := range raw.Event.Removed {
		if path, ok := filePath(f.URI); ok {
			folders = slices.DeleteFunc(folders, func(x string) bool { return x == path })
		}
	}
	for _, f := range raw.Event.Added {
		if path, ok := filePath(f.URI); ok && !slices.Contains(folders, path) {
			folders = append(folders, path)
		}
	}
	s.folders = folders
	a := s.agent
	s.mu.Unlock()
	s.log.Info("workspace folders changed", "folders", folders)
	if a == nil {
		return
	}
	msgs := a.SetFolders(slices.Clone(folders))
	go s.show(context.Background(), msgs...)
}
