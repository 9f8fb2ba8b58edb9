package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// sendNotices shows the user, once the editor is ready for it, what
// agent-ls did at start (such as completing a change set a crash
// interrupted).
func (s *server) sendNotices(ctx context.Context) {
	for _, msg := range s.opts.Notices {
		err := protocol.ClientDispatcher(s.conn).ShowMessage(ctx, &protocol.ShowMessageParams{
			Type: protocol.MessageTypeWarning, Message: msg,
		})
		if err != nil {
			s.log.Warn("could not show a notice", "err", err)
		}
	}
}
