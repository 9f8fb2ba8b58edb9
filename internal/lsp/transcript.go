package lsp

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/event"
)

// transcripts keep each session's conversation as a Markdown file outside
// the workspace, so that an editor with no agent-specific code can show
// the whole conversation as a document (protocol section 7.1). Only the
// outbox goroutine writes them, in event order.
type transcripts struct {
	dir     string // "" keeps none
	now     func() time.Time
	started map[string]bool // sessions whose file has its heading
	// stale are the resumed sessions whose file is to be written anew
	// from their events before it is next shown or added to.
	stale map[string]transcriptRewrite
}

func newTranscripts(dir string) *transcripts {
	return &transcripts{dir: dir, now: time.Now, started: make(map[string]bool), stale: make(map[string]transcriptRewrite)}
}

// settle writes a resumed session's transcript anew, if it waits for
// that.
func (t *transcripts) settle(session string) error {
	rw, ok := t.stale[session]
	if !ok {
		return nil
	}
	delete(t.stale, session)
	return t.rewrite(rw)
}

// path is where a session's transcript is kept ("" when none are).
func (t *transcripts) path(session string) string {
	if t.dir == "" || session == "" {
		return ""
	}
	return filepath.Join(t.dir, session+".md")
}

// record appends what an event adds to the conversation. Deltas add
// nothing: the whole message follows them.
func (t *transcripts) record(ev event.Event) error {
	path := t.path(ev.SessionID)
	if path == "" {
		return nil
	}
	if err := t.settle(ev.SessionID); err != nil {
		return err
	}
	var b strings.Builder
	if !t.started[ev.SessionID] {
		t.started[ev.SessionID] = true
		if _, err := os.Stat(path); err != nil {
			t.heading(&b, ev.SessionID)
		}
	}
	writeEvent(&b, ev)
	if b.Len() == 0 {
		return nil
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (t *transcripts) heading(b *strings.Builder, session string) {
	fmt.Fprintf(b, "# agent-ls conversation %s\n\nStarted %s.\n", session, t.now().Format("2006-01-02 15:04"))
}

// transcriptRewrite asks for a session's transcript to be written anew
// from its kept events (a session brought back after a restart).
type transcriptRewrite struct {
	session string
	items   []json.RawMessage
}

// rewrite writes a session's transcript anew from its events, replacing
// the file at once, so that one a crash left short is whole again.
func (t *transcripts) rewrite(rw transcriptRewrite) error {
	path := t.path(rw.session)
	if path == "" {
		return nil
	}
	var b strings.Builder
	t.heading(&b, rw.session)
	for _, raw := range rw.items {
		ev, err := event.Parse(raw)
		if err != nil {
			return fmt.Errorf("transcript of %s: %w", rw.session, err)
		}
		writeEvent(&b, ev)
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	tmp, err := os.CreateTemp(t.dir, "."+rw.session+"-*.md")
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	_, err = tmp.WriteString(b.String())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("transcript: %w", err)
	}
	t.started[rw.session] = true
	return nil
}

// writeEvent adds what ev shows of the conversation to b.
func writeEvent(b *strings.Builder, ev event.Event) {
	switch e := ev.Payload.(type) {
	case event.TurnStarted:
		fmt.Fprintf(b, "\n## You\n\n%s\n\n## Agent\n\n", strings.TrimSpace(e.Prompt))
	case event.Message:
		fmt.Fprintf(b, "%s\n\n", strings.TrimSpace(e.Text))
	case event.ToolCall:
		title := e.Title
		if title == "" {
			title = e.Tool
		}
		fmt.Fprintf(b, "- %s\n\n", textcut.FirstLine(title, 0))
	case event.ToolResult:
		if e.Status != event.ToolCompleted {
			fmt.Fprintf(b, "- %s: %s\n\n", e.Tool, e.Status)
		}
	case event.FileChange:
		if e.Status != event.ChangeApplied {
			break
		}
		for _, c := range e.Changes {
			fmt.Fprintf(b, "- %s %s (+%d -%d)\n\n", c.Kind, displayPath(c.URI), c.Additions, c.Deletions)
		}
	case event.Steered:
		fmt.Fprintf(b, "**You, while it worked:** %s\n\n", strings.TrimSpace(e.Text))
	case event.WebSearch:
		if e.Status == event.WebSearchSearching && e.Query == "" {
			break // its end follows, with the query
		}
		fmt.Fprintf(b, "- Web search: %s (%s)\n\n", textcut.FirstLine(e.Query, 200), e.Status)
	case event.Compacted:
		b.WriteString("_Older history was summarised to fit the model's context._\n\n")
	case event.TurnCompleted:
		fmt.Fprintf(b, "_Turn %s", e.Status)
		if e.Error != "" {
			fmt.Fprintf(b, ": %s", textcut.FirstLine(e.Error, 0))
		}
		b.WriteString("._\n")
	}
}

// displayPath shows a file URI as a path.
func displayPath(u string) string {
	if p, ok := filePath(u); ok {
		return p
	}
	return u
}

type showConversationParams struct {
	SessionID string `json:"sessionId"`
}

type showConversationResult struct {
	URI   string `json:"uri"`
	Shown bool   `json:"shown"`
}

// showConversation opens a session's transcript (the current session's by
// default) with window/showDocument where the client can; elsewhere it
// tells the user where the file is.
func (s *server) showConversation(ctx context.Context, p showConversationParams) (any, error) {
	session := p.SessionID
	if session == "" {
		session = s.currentSession(ctx)
	}
	if session == "" {
		s.notice(ctx, protocol.MessageTypeInfo, "Agent: no conversation yet")
		return showConversationResult{}, nil
	}
	tr := s.out.transcripts
	path := tr.path(session)
	if path == "" {
		return nil, jsonrpc2.NewError(codeRequestFailed, "conversations are not kept (no state directory)")
	}
	// The transcript is written in line with the events: wait until
	// everything reported so far is in it, and a resumed session's is
	// written anew.
	s.out.push(outItem{settle: session})
	if err := s.out.drained(ctx); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		s.notice(ctx, protocol.MessageTypeInfo, "Agent: this conversation has no turn yet")
		return showConversationResult{}, nil
	}
	res := showConversationResult{URI: string(uri.File(path))}
	if s.capabilities().ShowDocument {
		shown, err := s.client.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: ptr(true)})
		if err != nil {
			return nil, fmt.Errorf("window/showDocument: %w", err)
		}
		res.Shown = shown != nil && shown.Success
	}
	if !res.Shown {
		s.showMessage(ctx, protocol.MessageTypeInfo, "Agent: the conversation is in "+path)
	}
	return res, nil
}
