package app

import (
	"log/slog"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// recoverChangeSets finishes the change sets an agent-ls that died left
// half applied (see workspace.Recover) and returns, once, what the user
// must be told about them.
func recoverChangeSets(log *slog.Logger) []string {
	done, err := workspace.Recover()
	if err != nil {
		log.Warn("recovering unfinished change sets", "err", err)
	}
	var notices []string
	for _, r := range done {
		log.Info("recovered an unfinished change set", "label", r.Label, "forward", r.Forward,
			"files", len(r.Files), "conflicts", r.Conflicts)
		notices = append(notices, r.Message())
	}
	return notices
}
