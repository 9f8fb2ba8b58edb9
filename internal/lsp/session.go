package lsp

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"github.com/agent-ls/agent-ls/internal/policy"

	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// The agent methods of protocol section 2.
const (
	methodNewSession = "agent/newSession"
	methodStartTurn  = "agent/startTurn"
	methodInterrupt  = "agent/interrupt"
)

// maxImageBytes bounds one image attached to a prompt.
const maxImageBytes = 20 << 20

type newSessionParams struct {
	Cwd            string                `json:"cwd"`
	Model          string                `json:"model"`
	ApprovalPolicy policy.ApprovalPolicy `json:"approvalPolicy"`
	SandboxMode    policy.SandboxMode    `json:"sandboxMode"`
	// Mode is "default" (or empty) or "plan".
	Mode string `json:"mode"`
}

// sessionResult is agent.SessionInfo on the wire, where paths are URIs.
type sessionResult struct {
	SessionID      string                `json:"sessionId"`
	Cwd            string                `json:"cwd"`
	Model          string                `json:"model"`
	Provider       string                `json:"provider"`
	ApprovalPolicy policy.ApprovalPolicy `json:"approvalPolicy"`
	SandboxMode    policy.SandboxMode    `json:"sandboxMode"`
	Mode           agent.Mode            `json:"mode"`
}

type startTurnParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    *string        `json:"prompt"`
	Context   []contextParam `json:"context"`
	Images    []string       `json:"images"`
}

type contextParam struct {
	URI   string      `json:"uri"`
	Range *rangeParam `json:"range"`
	// Diagnostics are the editor's for the item (an @diagnostics
	// mention): they go into the prompt with it, bounded as a code
	// action's are.
	Diagnostics []diagnosticParam `json:"diagnostics"`
}

type rangeParam struct {
	Start positionParam `json:"start"`
	End   positionParam `json:"end"`
}

type positionParam struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type startTurnResult struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	// Queued: a turn runs, and this prompt waits for it (queue.go).
	Queued bool `json:"queued,omitempty"`
}

type interruptParams struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
}

func (s *server) newSession(params []byte) (any, error) {
	var p newSessionParams
	if len(params) > 0 && string(params) != "null" {
		if err := decodeParams(methodNewSession, params, &p); err != nil {
			return nil, err
		}
	}
	info, err := s.createSession(p)
	if err != nil {
		return nil, err
	}
	s.makeCurrentNew(info.SessionID)
	return info, nil
}

// makeCurrentNew makes a session just created the current one: the
// session it replaces is closed for the user, its command sessions
// killed (protocol section 3.1).
func (s *server) makeCurrentNew(session string) {
	old := s.convs.Current()
	s.convs.setCurrent(session)
	if a, err := s.theAgent(); err == nil {
		s.closeReplaced(a, old, session)
	}
}

func (s *server) createSession(p newSessionParams) (*sessionResult, error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	s.convs.lookMu.Lock()
	s.convs.looked = true
	s.convs.lookMu.Unlock()
	if err := checkPolicies(p.ApprovalPolicy, p.SandboxMode); err != nil {
		return nil, err
	}
	var mode agent.Mode // none: the default
	if p.Mode != "" {
		if mode, err = agent.ParseMode(p.Mode); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", methodNewSession, err)
		}
	}
	cwd := s.defaultCwd()
	if p.Cwd != "" {
		cwd = p.Cwd
		if strings.HasPrefix(p.Cwd, "file:") {
			path, ok := filePath(p.Cwd)
			if !ok {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "cwd %q is not a file URI", p.Cwd)
			}
			cwd = path
		}
	}
	info, err := a.NewSession(agent.SessionOptions{
		Cwd:            cwd,
		Model:          p.Model,
		ApprovalPolicy: p.ApprovalPolicy,
		SandboxMode:    p.SandboxMode,
		Mode:           mode,
	})
	if err != nil {
		return nil, agentError(err)
	}
	return &sessionResult{
		SessionID:      info.SessionID,
		Cwd:            string(uri.File(info.Cwd)),
		Model:          info.Model,
		Provider:       info.Provider,
		ApprovalPolicy: info.ApprovalPolicy,
		SandboxMode:    info.SandboxMode,
		Mode:           cmpMode(info.Mode),
	}, nil
}

func (s *server) startTurn(ctx context.Context, params []byte) (any, error) {
	var p startTurnParams
	if err := decodeParams(methodStartTurn, params, &p); err != nil {
		return nil, err
	}
	return s.beginTurn(ctx, methodStartTurn, p, false)
}

// beginTurn starts a turn and answers as soon as the agent accepted it.
// Without a sessionId the turn goes to a new session, or, when
// continueCurrent is set (code actions and agent.startTurn), to the
// workspace's current session, created when there is none. A turn that
// names its session makes it current (protocol section 7.1).
//
// A client with neither agent/event nor progress is told that the turn
// started before the answer: Emacs's jsonrpc (Emacs 28) leaves a message
// that arrives together with the answer to its synchronous request unread
// until more output comes, which for a quiet turn may be never.
func (s *server) beginTurn(ctx context.Context, method string, p startTurnParams, continueCurrent bool) (*startTurnResult, error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	if p.Prompt == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: prompt is required", method)
	}
	if strings.TrimSpace(*p.Prompt) == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: prompt must not be empty", method)
	}
	in := agent.TurnInput{Prompt: *p.Prompt}
	if in.Context, err = s.resolveContext(method, p.Context); err != nil {
		return nil, err
	}
	for i, img := range p.Images {
		u, err := imageDataURL(img)
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: images[%d]: %v", method, i, err)
		}
		in.Images = append(in.Images, u)
	}

	sessionID, makeCurrent := p.SessionID, true
	if sessionID == "" && continueCurrent {
		sessionID = s.currentSession(ctx)
	}
	if sessionID == "" {
		info, err := s.createSession(newSessionParams{})
		if err != nil {
			return nil, err
		}
		sessionID, makeCurrent = info.SessionID, continueCurrent
	}
	sub, err := startOrQueue(a, sessionID, in)
	if err != nil {
		return nil, agentError(err)
	}
	turnID := sub.TurnID
	if sub.Queued {
		if makeCurrent {
			s.convs.setCurrent(sessionID)
		}
		return s.queued(ctx, sessionID, sub, *p.Prompt)
	}
	s.convs.started(sessionID, turnID)
	if makeCurrent {
		s.convs.setCurrent(sessionID)
	}
	if caps := s.capabilities(); !caps.AgentEvents && !caps.WorkDoneProgress {
		s.out.push(outItem{notice: &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
			Message: fmt.Sprintf("Agent: working on “%s” (code action “Agent: Stop” interrupts it)", textcut.FirstLine(*p.Prompt, 100))}})
		if err := s.out.drained(ctx); err != nil {
			return nil, err
		}
	}
	return &startTurnResult{SessionID: sessionID, TurnID: turnID}, nil
}

// resolveContext reads what each context item points at, as the editor
// has it, and cuts out its range: at most maxContextBytes of each item and
// maxContextTotal of them all, each a copy of its own (see
// workspace.Store.Excerpt), so a selection in a large document neither
// copies the document nor keeps it alive in the session's history. A cut
// item says so at its end, for the model to read the rest itself.
func (s *server) resolveContext(method string, items []contextParam) ([]agent.ContextItem, error) {
	var out []agent.ContextItem
	budget := maxContextTotal
	for i, it := range items {
		if it.URI == "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: context[%d].uri is required", method, i)
		}
		r := it.Range
		if r != nil && (r.Start.Line < 0 || r.Start.Character < 0 || r.End.Line < 0 || r.End.Character < 0) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: context[%d].range has a negative position", method, i)
		}
		var wr *workspace.Range
		if r != nil {
			wr = &workspace.Range{
				Start: workspace.Position{Line: r.Start.Line, Character: r.Start.Character},
				End:   workspace.Position{Line: r.End.Line, Character: r.End.Character},
			}
		}
		path := docKey(it.URI)
		if folder, ok := folderContext(path, min(maxContextBytes, budget)); ok {
			// A mentioned folder: what it holds.
			budget -= len(folder.Text)
			out = append(out, folder)
			continue
		}
		ex, err := s.store.Excerpt(path, wr, min(maxContextBytes, budget))
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: context[%d]: %v", method, i, err)
		}
		budget -= len(ex.Text)
		item := agent.ContextItem{Path: path, Text: ex.Text, Diagnostics: diagnosticLines(it.Diagnostics)}
		if r != nil || ex.Omitted > 0 {
			item.StartLine, item.EndLine = ex.StartLine, ex.EndLine
		}
		if ex.Omitted > 0 {
			item.Text += fmt.Sprintf("\n[cut by agent-ls: %d more bytes, to line %d, were left out; read the file for them]\n", ex.Omitted, ex.LastLine)
		}
		out = append(out, item)
	}
	return out, nil
}

// imageDataURL turns an image URI into the data URL the model takes:
// data: URLs pass through, file: URIs are read.
func imageDataURL(u string) (string, error) {
	if strings.HasPrefix(u, "data:") {
		return u, nil
	}
	path, ok := filePath(u)
	if !ok {
		return "", fmt.Errorf("%q: only file: and data: URIs are supported", u)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Size() > maxImageBytes {
		return "", fmt.Errorf("%s is larger than %d MiB", path, maxImageBytes>>20)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	typ := http.DetectContentType(b)
	if !strings.HasPrefix(typ, "image/") {
		typ = mime.TypeByExtension(filepath.Ext(path))
	}
	if !strings.HasPrefix(typ, "image/") {
		return "", fmt.Errorf("%s is not an image", path)
	}
	typ, _, _ = strings.Cut(typ, ";")
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}

func (s *server) interrupt(ctx context.Context, params []byte) (any, error) {
	var p interruptParams
	if err := decodeParams(methodInterrupt, params, &p); err != nil {
		return nil, err
	}
	return s.interruptTurn(ctx, methodInterrupt, p)
}

// interruptTurn returns once the turn has ended, or when the editor
// cancels the request; the interrupt goes on regardless.
func (s *server) interruptTurn(ctx context.Context, method string, p interruptParams) (any, error) {
	if p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: sessionId is required", method)
	}
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- a.Interrupt(p.SessionID, p.TurnID) }()
	select {
	case err := <-done:
		// Interrupting a turn that has just ended is not an error: the
		// user and the turn raced, and the outcome is what they wanted.
		if err != nil && !errors.Is(err, agent.ErrNoTurn) {
			return nil, agentError(err)
		}
		// The turn's end goes out before the answer (see beginTurn).
		if err := s.out.drained(ctx); err != nil {
			return nil, protocol.ErrRequestCancelled
		}
		return struct{}{}, nil
	case <-ctx.Done():
		return nil, protocol.ErrRequestCancelled
	}
}

// cmpMode is the mode as the wire names it: "default" for none.
func cmpMode(m agent.Mode) agent.Mode {
	if m == "" {
		return agent.ModeDefault
	}
	return m
}
