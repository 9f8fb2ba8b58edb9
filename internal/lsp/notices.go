package lsp

import (
	"context"
)

// sendNotices shows the user, once the editor is ready for it, what
// agent-ls did at start (such as completing a change set a crash
// interrupted).
func (s *server) sendNotices(ctx context.Context) {
	msgs := make([]Message, 0, len(s.opts.Notices))
	for _, text := range s.opts.Notices {
		msgs = append(msgs, Message{Text: text})
	}
	s.mu.Lock()
	s.ready = true
	msgs = append(msgs, s.pending...)
	s.pending = nil
	s.mu.Unlock()
	s.show(ctx, msgs...)
}
