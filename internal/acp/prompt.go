package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
)

// Prompt runs one turn and answers how it stopped. The turn's updates
// are all out before the answer.
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	a, err := s.theAgent()
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	in, err := promptInput(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	// What the user attached may be a buffer not saved yet.
	s.named.add(promptPaths(p.Prompt)...)
	if cmd, args, ok := slashCommand(in, s.commandList()); ok {
		return s.runCommand(ctx, ss, cmd, args)
	}
	if err := s.authRequired(); err != nil {
		return sdk.PromptResponse{}, err
	}

	return s.runTurn(ss, true, func(agentID string) (*agent.Turn, error) { return startOrQueue(a, agentID, in) })
}

// startOrQueue starts a turn of in, or, while one runs, queues the
// prompt (promptQueueing): its handle ends when its own turn does.
func startOrQueue(a Agent, agentID string, in agent.TurnInput) (*agent.Turn, error) {
	t, err := a.StartTurn(agentID, in)
	if !errors.Is(err, agent.ErrTurnRunning) {
		return t, err
	}
	sub, err := a.Submit(agentID, in)
	if err != nil {
		return nil, err
	}
	return sub.Turn, nil
}

// runTurn starts a turn with start (a prompt's, or a compaction's),
// waits for it and answers how it stopped, once its updates are out.
// While a turn runs, a prompt (queue) waits for it in the session's
// queue and answers when its own turn ends; anything else is refused.
func (s *server) runTurn(ss *session, queue bool, start func(agentID string) (*agent.Turn, error)) (sdk.PromptResponse, error) {
	a, err := s.theAgent()
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	ss.mu.Lock()
	if ss.turn != nil && !queue {
		ss.mu.Unlock()
		return sdk.PromptResponse{}, requestError(fmt.Errorf("%w; send session/cancel or wait for its answer", agent.ErrTurnRunning))
	}
	if ss.turn == nil {
		ss.cancel = false
	}
	agentID := ss.agentID
	ss.mu.Unlock()

	t, err := start(agentID)
	if err != nil {
		return sdk.PromptResponse{}, requestError(err)
	}
	ss.mu.Lock()
	ss.turn = t
	cancelled := ss.cancel // session/cancel came while the turn started
	ss.mu.Unlock()
	if cancelled {
		stop(a, agentID)
	}
	// The SDK ends the request's context when another prompt for the
	// session arrives, which must not stop this one: only session/cancel
	// and the end of the connection do.
	select {
	case <-t.Done():
	case <-s.conn.Done():
		stop(a, agentID)
		<-t.Done()
	}
	res := t.Result()
	ss.mu.Lock()
	cancelled = ss.cancel
	if ss.turn == t {
		ss.turn = nil
	}
	ss.mu.Unlock()
	s.out.flush(context.Background())
	switch {
	case cancelled || res.Status == event.StatusInterrupted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case res.Status == event.StatusCompleted && res.Refused:
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	case res.Status == event.StatusCompleted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	case res.RequestLimit:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	}
	msg := res.Error
	if msg == "" {
		msg = "the turn failed"
	}
	return sdk.PromptResponse{}, &sdk.RequestError{Code: -32603, Message: msg}
}

// Cancel stops the session's turn: its prompt answers cancelled, its
// commands are killed, its pending permission requests end.
func (s *server) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	ss, err := s.session(p.SessionId)
	if err != nil {
		s.log.Warn("acp: session/cancel for an unknown session", "session", p.SessionId)
		return nil
	}
	// Off the SDK's notification loop: interrupting waits for the turn.
	go s.interrupt(ss)
	return nil
}

// interrupt ends the session's running turn, if any, and the prompts
// that wait for it (each answers cancelled).
func (s *server) interrupt(ss *session) {
	ss.mu.Lock()
	ss.cancel = true
	t, id := ss.turn, ss.agentID
	ss.mu.Unlock()
	if t == nil {
		return
	}
	if a, err := s.theAgent(); err == nil {
		stop(a, id)
	}
}

// stop empties the session's queue, then interrupts its running turn:
// nothing that waited starts after it. The steers the turn had not taken
// yet wait in the queue once it has ended, and go too.
func stop(a Agent, agentID string) {
	a.ClearQueue(agentID)
	a.Interrupt(agentID, "")
	a.ClearQueue(agentID)
}

// promptInput turns the prompt's content blocks into a turn's input:
// text and links into the prompt, embedded resources (selections, files)
// into its context, images into its images.
func promptInput(blocks []sdk.ContentBlock) (agent.TurnInput, error) {
	var in agent.TurnInput
	var text strings.Builder
	add := func(s string) {
		if text.Len() > 0 && !strings.HasSuffix(text.String(), "\n") {
			text.WriteString("\n")
		}
		text.WriteString(s)
	}
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			add(b.Text.Text)
		case b.ResourceLink != nil:
			l := b.ResourceLink
			if p := uriPath(l.Uri); p != "" {
				add("Referenced file: " + p)
			} else {
				add("Referenced: " + l.Uri)
			}
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil && uriPath(r.TextResourceContents.Uri) == "":
				add("Attached " + r.TextResourceContents.Uri + ":\n" + r.TextResourceContents.Text)
			case r.TextResourceContents != nil:
				in.Context = append(in.Context, contextItem(r.TextResourceContents.Uri, r.TextResourceContents.Text))
			case r.BlobResourceContents != nil:
				bl := r.BlobResourceContents
				mime := ""
				if bl.MimeType != nil {
					mime = *bl.MimeType
				}
				if !strings.HasPrefix(mime, "image/") {
					add("Attached (binary, not shown): " + bl.Uri)
					continue
				}
				if _, err := base64.StdEncoding.DecodeString(bl.Blob); err != nil {
					return in, invalidParams("prompt block %d: the image is not base64", i)
				}
				in.Images = append(in.Images, "data:"+mime+";base64,"+bl.Blob)
			}
		case b.Image != nil:
			im := b.Image
			if !strings.HasPrefix(im.MimeType, "image/") {
				return in, invalidParams("prompt block %d: %q is not an image type", i, im.MimeType)
			}
			if _, err := base64.StdEncoding.DecodeString(im.Data); err != nil {
				return in, invalidParams("prompt block %d: the image is not base64", i)
			}
			in.Images = append(in.Images, "data:"+im.MimeType+";base64,"+im.Data)
		case b.Audio != nil:
			return in, invalidParams("prompt block %d: agent-ls does not take audio", i)
		}
	}
	in.Prompt = text.String()
	if strings.TrimSpace(in.Prompt) == "" && len(in.Context) == 0 && len(in.Images) == 0 {
		return in, invalidParams("the prompt is empty")
	}
	if strings.TrimSpace(in.Prompt) == "" {
		in.Prompt = "See the attached context."
	}
	return in, nil
}

// contextItem is an embedded resource: a file, or the lines of one when
// the URI's fragment names them (#L10, #L10-20, #L10:20, #L10-L20).
func contextItem(uri, text string) agent.ContextItem {
	it := agent.ContextItem{Text: text}
	u, err := url.Parse(uri)
	if err != nil {
		return it
	}
	it.Path = u.Path
	f := strings.TrimPrefix(u.Fragment, "L")
	if f == u.Fragment || f == "" {
		return it
	}
	start, end, found := strings.Cut(strings.ReplaceAll(f, ":", "-"), "-")
	a, err1 := strconv.Atoi(start)
	if err1 != nil || a < 1 {
		return it
	}
	b := a
	if found {
		if n, err := strconv.Atoi(strings.TrimPrefix(end, "L")); err == nil && n >= a {
			b = n
		}
	}
	it.StartLine, it.EndLine = a, b
	return it
}
