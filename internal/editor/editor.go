// Package editor is a scriptable LSP client: a fake editor that drives a
// language server (a child process or any byte stream) the way an editor
// does. End-to-end tests and the offline demo use it to initialize, edit
// documents, start turns, follow agent/event and $/progress, and answer the
// server's requests.
//
// It is test equipment that `agent-ls demo` also needs at run time, so the
// agent-ls binary links it through the demo's package, internal/app/demo,
// only (see the internal/app package documentation); it imports nothing
// test-only.
package editor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// Config sets how the editor answers the server and how it learns the
// server's exit status.
type Config struct {
	// ShowMessageRequest answers window/showMessageRequest. Nil picks the
	// action titled ShowMessageChoice, or the first action when that is
	// empty.
	ShowMessageRequest func(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error)
	ShowMessageChoice  string
	// ApplyEdit answers workspace/applyEdit. Nil applies the edit as an
	// editor does: open documents change in memory (and the server hears
	// didChange), other files change on disk.
	ApplyEdit func(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error)
	// Request answers any other server request (agent/requestApproval,
	// ...). Nil answers MethodNotFound.
	Request func(ctx context.Context, method string, params json.RawMessage) (any, error)
	// NeverAnswer lists server request methods left unanswered, as an
	// editor without a handler for them does (Neovim, for one).
	NeverAnswer []string
	// Wait returns the exit status of an in-process server once it has
	// exited; Exit reports it. Start sets it for a process.
	Wait func(context.Context) (int, error)
	// Logger receives the editor's log; nil discards.
	Logger *slog.Logger
}

// Editor is one connection to a language server.
type Editor struct {
	cfg    Config
	log    *slog.Logger
	conn   jsonrpc2.Conn
	rwc    io.ReadWriteCloser
	cancel context.CancelFunc

	events   journal[Event]
	progress journal[Progress]
	messages journal[protocol.ShowMessageParams]

	// docMu guards docs and keeps document notifications in version
	// order.
	docMu sync.Mutex
	docs  map[string]*document // by URI

	mu    sync.Mutex
	enc   workspace.Encoding
	edits []protocol.ApplyWorkspaceEditParams
	shown []string
}

// Connect speaks LSP over rwc (Content-Length framing).
func Connect(rwc io.ReadWriteCloser, cfg Config) *Editor {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Editor{cfg: cfg, log: cfg.Logger, rwc: rwc, cancel: cancel, docs: make(map[string]*document)}
	e.events.init()
	e.progress.init()
	e.messages.init()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc), jsonrpc2.WithPreempter(notifications{e}))
	e.conn.Go(ctx, protocol.Handlers(e.handle))
	go func() {
		<-e.conn.Done()
		e.events.close()
		e.progress.close()
		e.messages.close()
	}()
	return e
}

// Start runs cmd as the server, speaking LSP over its stdin and stdout.
// cmd.Stderr is left as the caller set it.
func Start(cmd *exec.Cmd, cfg Config) (*Editor, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	waited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(waited)
	}()
	cfg.Wait = func(ctx context.Context) (int, error) {
		select {
		case <-waited:
		case <-ctx.Done():
			cmd.Process.Kill()
			<-waited
			return -1, ctx.Err()
		}
		var exitErr *exec.ExitError
		if waitErr != nil && !errors.As(waitErr, &exitErr) {
			return -1, waitErr
		}
		return cmd.ProcessState.ExitCode(), nil
	}
	return Connect(pipes{stdout, stdin}, cfg), nil
}

type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error {
	return errors.Join(p.WriteCloser.Close(), p.ReadCloser.Close())
}

// Options are what the editor announces at initialize.
type Options struct {
	// Events, Approvals, Review, Questions: the experimental.agent
	// opt-ins (Questions: agent/askUser, answered by Config.Request).
	Events, Approvals, Review, Questions bool
	// Language: experimental.agent.language (agent/languageQuery,
	// answered by Config.Request).
	Language bool
	// Progress: window.workDoneProgress.
	Progress bool
	// ApplyEdit, DocumentChanges, ResourceOperations, ChangeAnnotations:
	// workspace.applyEdit and workspace.workspaceEdit.
	ApplyEdit          bool
	DocumentChanges    bool
	ResourceOperations []string
	ChangeAnnotations  bool
	// MessageActionItems: window.showMessage.messageActionItem.
	MessageActionItems bool
	// ShowDocument: window.showDocument.support; the editor then records
	// the documents it is asked to show (Shown).
	ShowDocument bool
	// WatchedFiles: workspace.didChangeWatchedFiles.dynamicRegistration
	// (client/registerCapability is answered by Config.Request).
	WatchedFiles bool
	// PositionEncodings is general.positionEncodings (empty: not sent,
	// which means UTF-16).
	PositionEncodings []string
	// InitializationOptions is sent as initializationOptions.
	InitializationOptions any
	// WorkspaceFolders are directories; the first is also the root.
	WorkspaceFolders []string
	ClientName       string
}

// Initialize sends initialize and, when it succeeds, initialized.
func (e *Editor) Initialize(ctx context.Context, o Options) (*protocol.InitializeResult, error) {
	params := &protocol.InitializeParams{Capabilities: capabilities(o)}
	name := o.ClientName
	if name == "" {
		name = "agent-ls fake editor"
	}
	params.ClientInfo = protocol.ClientInfo{Name: name}
	if o.InitializationOptions != nil {
		b, err := json.Marshal(o.InitializationOptions)
		if err != nil {
			return nil, err
		}
		params.InitializationOptions = b
	}
	if len(o.WorkspaceFolders) > 0 {
		root := uri.File(o.WorkspaceFolders[0])
		// Sent beside workspaceFolders, as editors do, so a server
		// reading only rootUri finds the root too.
		//lint:ignore SA1019 deprecated in favour of workspaceFolders, which is sent as well
		params.RootURI = &root
		var folders []protocol.WorkspaceFolder
		for _, f := range o.WorkspaceFolders {
			folders = append(folders, protocol.WorkspaceFolder{URI: uri.File(f), Name: f})
		}
		params.WorkspaceFolders = protocol.NewNullable(folders)
	}
	var result protocol.InitializeResult
	if err := e.Request(ctx, protocol.MethodInitialize, params, &result); err != nil {
		return nil, err
	}
	enc, _ := workspace.ParseEncoding(string(result.Capabilities.PositionEncoding))
	e.mu.Lock()
	e.enc = enc
	e.mu.Unlock()
	if err := e.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		return nil, err
	}
	return &result, nil
}

func capabilities(o Options) protocol.ClientCapabilities {
	var c protocol.ClientCapabilities
	c.Workspace = &protocol.WorkspaceClientCapabilities{ApplyEdit: &o.ApplyEdit}
	if o.WatchedFiles {
		c.Workspace.DidChangeWatchedFiles = &protocol.DidChangeWatchedFilesClientCapabilities{DynamicRegistration: &o.WatchedFiles}
	}
	if o.DocumentChanges || len(o.ResourceOperations) > 0 || o.ChangeAnnotations {
		we := &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &o.DocumentChanges}
		for _, op := range o.ResourceOperations {
			we.ResourceOperations = append(we.ResourceOperations, protocol.ResourceOperationKind(op))
		}
		if o.ChangeAnnotations {
			we.ChangeAnnotationSupport = &protocol.ChangeAnnotationsSupportOptions{}
		}
		c.Workspace.WorkspaceEdit = we
	}
	c.Window = &protocol.WindowClientCapabilities{WorkDoneProgress: &o.Progress}
	if o.ShowDocument {
		c.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	}
	if o.MessageActionItems {
		c.Window.ShowMessage = &protocol.ShowMessageRequestClientCapabilities{
			MessageActionItem: &protocol.ClientShowMessageActionItemOptions{},
		}
	}
	if len(o.PositionEncodings) > 0 {
		c.General = &protocol.GeneralClientCapabilities{}
		for _, pe := range o.PositionEncodings {
			c.General.PositionEncodings = append(c.General.PositionEncodings, protocol.PositionEncodingKind(pe))
		}
	}
	exp, _ := json.Marshal(map[string]any{"agent": map[string]bool{
		"events": o.Events, "approvals": o.Approvals, "review": o.Review, "questions": o.Questions,
		"language": o.Language,
	}})
	c.Experimental = exp
	return c
}

// Request sends a request and decodes its result into result (nil
// discards it). A cancelled ctx sends $/cancelRequest.
func (e *Editor) Request(ctx context.Context, method string, params, result any) error {
	// Results decode with protocol's union-aware decoder, which the
	// connection's default codec is not.
	var raw jsonrpc2.RawMessage
	if err := protocol.Call(ctx, e.conn, method, params, &raw); err != nil {
		return err
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	return protocol.Unmarshal(raw, result)
}

// Notify sends a notification.
func (e *Editor) Notify(ctx context.Context, method string, params any) error {
	return e.conn.Notify(ctx, method, params)
}

// CancelProgress asks the server to cancel the work behind a progress
// token (window/workDoneProgress/cancel).
func (e *Editor) CancelProgress(ctx context.Context, token string) error {
	return e.Notify(ctx, protocol.MethodWindowWorkDoneProgressCancel,
		&protocol.WorkDoneProgressCancelParams{Token: protocol.String(token)})
}

// Shutdown sends shutdown.
func (e *Editor) Shutdown(ctx context.Context) error {
	return e.Request(ctx, protocol.MethodShutdown, nil, nil)
}

// Exit sends exit, closes the connection and returns the server's exit
// status (-1 when there is no way to learn it).
func (e *Editor) Exit(ctx context.Context) (int, error) {
	notifyErr := e.Notify(ctx, protocol.MethodExit, nil)
	code, err := -1, error(nil)
	if e.cfg.Wait != nil {
		code, err = e.cfg.Wait(ctx)
	}
	e.Disconnect()
	if err == nil && notifyErr != nil {
		err = notifyErr
	}
	return code, err
}

// WaitExit waits until the server has exited (one Start ran, or one with
// Config.Wait), and returns its exit status; when ctx ends first, a
// process is killed. A server without Wait returns -1 at once.
func (e *Editor) WaitExit(ctx context.Context) (int, error) {
	if e.cfg.Wait == nil {
		return -1, nil
	}
	return e.cfg.Wait(ctx)
}

// Disconnect drops the connection without the shutdown handshake.
func (e *Editor) Disconnect() {
	e.cancel()
	e.rwc.Close()
}

// Done is closed when the connection has ended.
func (e *Editor) Done() <-chan struct{} { return e.conn.Done() }

// Edits returns the workspace/applyEdit requests received so far.
func (e *Editor) Edits() []protocol.ApplyWorkspaceEditParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.edits)
}

// Messages returns the window/showMessage and window/logMessage
// notifications received so far, in order (a log message's type is in
// Type too: Log is only ever a logMessage).
func (e *Editor) Messages() []protocol.ShowMessageParams { return e.messages.all() }

// WaitMessage returns the first message that match accepts, waiting for
// it until ctx ends or the connection does.
func (e *Editor) WaitMessage(ctx context.Context, match func(protocol.ShowMessageParams) bool) (protocol.ShowMessageParams, error) {
	m, _, err := e.messages.wait(ctx, 0, match)
	return m, err
}

// Shown returns the URIs of the window/showDocument requests received so
// far.
func (e *Editor) Shown() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.shown)
}

// handle answers the server's requests and the notifications that need no
// ordering.
func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := req.Method()
	if req.IsCall() && slices.Contains(e.cfg.NeverAnswer, method) {
		e.log.Debug("leaving a request unanswered", "method", method)
		if method == protocol.MethodWindowWorkDoneProgressCreate {
			e.recordCreate(req.Params())
		}
		<-ctx.Done()
		return nil, protocol.ErrRequestCancelled
	}
	switch method {
	case protocol.MethodWindowWorkDoneProgressCreate:
		e.recordCreate(req.Params())
		return nil, nil

	case protocol.MethodWindowShowMessageRequest:
		var p protocol.ShowMessageRequestParams
		if err := protocol.Unmarshal(req.Params(), &p); err != nil {
			return nil, err
		}
		if e.cfg.ShowMessageRequest != nil {
			return e.cfg.ShowMessageRequest(ctx, &p)
		}
		for _, a := range p.Actions {
			if e.cfg.ShowMessageChoice == "" || a.Title == e.cfg.ShowMessageChoice {
				return &a, nil
			}
		}
		return nil, nil

	case protocol.MethodWorkspaceApplyEdit:
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(req.Params(), &p); err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.edits = append(e.edits, p)
		e.mu.Unlock()
		if e.cfg.ApplyEdit != nil {
			return e.cfg.ApplyEdit(ctx, &p)
		}
		return e.applyWorkspaceEdit(ctx, &p.Edit), nil

	case protocol.MethodWindowShowDocument:
		var p protocol.ShowDocumentParams
		if err := protocol.Unmarshal(req.Params(), &p); err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.shown = append(e.shown, string(p.URI))
		e.mu.Unlock()
		return &protocol.ShowDocumentResult{Success: true}, nil

	}
	if e.cfg.Request != nil && req.IsCall() {
		return e.cfg.Request(ctx, method, bytes.Clone(req.Params()))
	}
	if req.IsCall() {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "the editor does not handle %s", method)
	}
	return nil, nil
}

func (e *Editor) recordCreate(params []byte) {
	var p protocol.WorkDoneProgressCreateParams
	if err := protocol.Unmarshal(params, &p); err != nil {
		e.log.Warn("bad progress create", "err", err)
		return
	}
	e.progress.add(Progress{Token: tokenString(p.Token), Kind: "create"})
}

// notifications records agent/event, $/progress and the window messages
// inline on the read loop, in the order the server sent them.
type notifications struct{ e *Editor }

func (n notifications) Preempt(_ context.Context, req *jsonrpc2.Request) (any, error) {
	if req.IsCall() {
		return nil, jsonrpc2.ErrNotHandled
	}
	switch req.Method() {
	case "agent/event":
		ev, err := decodeEvent(req.Params())
		if err != nil {
			n.e.log.Warn("bad agent/event", "err", err)
		} else {
			n.e.events.add(ev)
		}
	case protocol.MethodWindowShowMessage, protocol.MethodWindowLogMessage:
		var p protocol.ShowMessageParams
		if err := protocol.Unmarshal(req.Params(), &p); err != nil {
			n.e.log.Warn("bad message", "method", req.Method(), "err", err)
		} else {
			n.e.messages.add(p)
		}
	case protocol.MethodProgress:
		p, err := decodeProgress(req.Params())
		if err != nil {
			n.e.log.Warn("bad $/progress", "err", err)
		} else {
			n.e.progress.add(p)
		}
	default:
		return nil, jsonrpc2.ErrNotHandled
	}
	return struct{}{}, nil
}

func tokenString(t protocol.ProgressToken) string {
	switch t := t.(type) {
	case protocol.String:
		return string(t)
	case protocol.Integer:
		return fmt.Sprint(int32(t))
	}
	return ""
}
