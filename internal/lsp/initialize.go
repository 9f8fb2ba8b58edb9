package lsp

import (
	"github.com/agent-ls/agent-ls/internal/policy"

	"context"
	"encoding/json"
	"fmt"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// The version of agent-ls's protocol (shared/protocol.md) the server
// speaks, answered at initialize as experimental.agent = {version,
// minor}: a client compares them with those it supports. version changes
// when the protocol breaks, minor when names are added.
const (
	ProtocolVersion = 1
	ProtocolMinor   = 1
)

// ClientCapabilities is what the editor said it can do at initialize, in
// the terms the server acts on (protocol section 1).
type ClientCapabilities struct {
	// ApplyEdit: edits go out as workspace/applyEdit.
	ApplyEdit bool
	// DocumentChanges: versioned TextDocumentEdits are understood.
	DocumentChanges bool
	// ResourceOperations lists the file operations edits may carry
	// (create, rename, delete).
	ResourceOperations []string
	// ChangeAnnotations: edits may carry needsConfirmation annotations.
	ChangeAnnotations bool
	// WorkDoneProgress: turns report $/progress.
	WorkDoneProgress bool
	// MessageActionItems: approvals can fall back to
	// window/showMessageRequest.
	MessageActionItems bool
	// ShowDocument: window/showDocument opens the transcript.
	ShowDocument bool
	// AgentEvents, AgentApprovals, AgentReview: experimental.agent opt-ins.
	AgentEvents    bool
	AgentApprovals bool
	AgentReview    bool
	// AgentElicitation: MCP servers' questions go out as agent/elicit.
	AgentElicitation bool
	// AgentQuestions: the model's questions (request_user_input) go out
	// as agent/askUser; without it, as window/showMessageRequest.
	AgentQuestions bool
	// AgentLanguage: the client answers agent/languageQuery with the
	// editor's language servers, and the model gets the lsp_* tools.
	AgentLanguage bool
	// PositionEncoding is the negotiated position encoding.
	PositionEncoding workspace.Encoding
	// WatchedFiles: workspace/didChangeWatchedFiles can be registered
	// dynamically (watch.go).
	WatchedFiles bool
}

// parseCapabilities reads the capabilities the server acts on.
func parseCapabilities(c *protocol.ClientCapabilities) (ClientCapabilities, error) {
	var caps ClientCapabilities
	if w := c.Workspace; w != nil {
		caps.ApplyEdit = isTrue(w.ApplyEdit)
		if we := w.WorkspaceEdit; we != nil {
			caps.DocumentChanges = isTrue(we.DocumentChanges)
			for _, op := range we.ResourceOperations {
				caps.ResourceOperations = append(caps.ResourceOperations, string(op))
			}
			caps.ChangeAnnotations = we.ChangeAnnotationSupport != nil
		}
		caps.WatchedFiles = w.DidChangeWatchedFiles != nil && isTrue(w.DidChangeWatchedFiles.DynamicRegistration)
	}
	if w := c.Window; w != nil {
		caps.WorkDoneProgress = isTrue(w.WorkDoneProgress)
		caps.MessageActionItems = w.ShowMessage != nil && w.ShowMessage.MessageActionItem != nil
		caps.ShowDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	// UTF-16 is what every client supports; take UTF-8 when offered, it
	// is what the server holds text in.
	if g := c.General; g != nil && slices.Contains(g.PositionEncodings, protocol.PositionEncodingKindUTF8) {
		caps.PositionEncoding = workspace.UTF8
	}
	if len(c.Experimental) > 0 {
		var exp struct {
			Agent *struct {
				Events    bool `json:"events"`
				Approvals bool `json:"approvals"`
				Review    bool `json:"review"`
				// Elicitation: agent/elicit (elicit.go).
				Elicitation bool `json:"elicitation"`
				// Questions: agent/askUser (ask.go).
				Questions bool `json:"questions"`
				// Language: agent/languageQuery (language.go).
				Language bool `json:"language"`
			} `json:"agent"`
		}
		if err := json.Unmarshal(c.Experimental, &exp); err != nil {
			return caps, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "capabilities.experimental.agent: %v", describe(err))
		}
		if a := exp.Agent; a != nil {
			caps.AgentEvents, caps.AgentApprovals, caps.AgentReview = a.Events, a.Approvals, a.Review
			caps.AgentElicitation, caps.AgentQuestions = a.Elicitation, a.Questions
			caps.AgentLanguage = a.Language
		}
	}
	return caps, nil
}

func isTrue(b *bool) bool { return b != nil && *b }

// Initialize negotiates capabilities and builds the agent.
func (s *server) Initialize(_ context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	if !s.initOnce.CompareAndSwap(false, true) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	}
	caps, err := parseCapabilities(&params.Capabilities)
	if err != nil {
		s.initOnce.Store(false)
		return nil, err
	}
	var init InitOptions
	if len(params.InitializationOptions) > 0 && string(params.InitializationOptions) != "null" {
		if err := json.Unmarshal(params.InitializationOptions, &init); err != nil {
			s.initOnce.Store(false)
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initializationOptions: %v", describe(err))
		}
	}
	if err := checkPolicies(init.ApprovalPolicy, init.SandboxMode); err != nil {
		s.initOnce.Store(false)
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initializationOptions: %v", err)
	}
	folders := workspaceFolders(params)
	s.store.SetEncoding(caps.PositionEncoding)
	saveEdits := true
	for _, set := range []*bool{s.opts.SaveAgentEdits, init.SaveAgentEdits} {
		if set != nil {
			saveEdits = *set
		}
	}
	s.mu.Lock()
	s.caps, s.folders, s.saveEdits = caps, folders, saveEdits
	s.mu.Unlock()

	var a Agent
	var agentErr string
	if s.opts.NewAgent != nil {
		cfg := AgentConfig{Frontend: s, Files: s.store, Init: init, Client: caps, Settings: json.RawMessage(params.InitializationOptions),
			Show: func(msgs ...Message) { s.show(context.Background(), msgs...) }}
		if len(folders) > 0 {
			cfg.Cwd, cfg.Folders = folders[0], slices.Clone(folders)
		}
		if caps.AgentReview {
			cfg.Reviewer = s
		}
		if a, err = s.opts.NewAgent(cfg); err != nil {
			// The editor keeps its text sync and code actions; turns
			// answer with this error.
			s.log.Error("the agent could not start", "err", err)
			agentErr = err.Error()
			a = nil
		}
	}

	s.mu.Lock()
	s.agent, s.agentError = a, agentErr
	s.mu.Unlock()
	s.state.Store(stateInitialized)
	s.log.Info("initialized", "client", params.ClientInfo.Name, "encoding", caps.PositionEncoding,
		"events", caps.AgentEvents, "progress", caps.WorkDoneProgress, "folders", folders)
	return s.initializeResult(caps.PositionEncoding), nil
}

// initializeResult is the server's side of protocol section 1.
func (s *server) initializeResult(enc workspace.Encoding) *protocol.InitializeResult {
	t := true
	incremental := protocol.TextDocumentSyncKindIncremental
	info := protocol.ServerInfo{Name: "agent-ls"}
	if s.opts.Version != "" {
		info.Version = protocol.NewOptional(s.opts.Version)
	}
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: protocol.PositionEncodingKind(enc.String()),
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &t,
				Change:    &incremental,
				Save:      protocol.Boolean(true),
			},
			CodeActionProvider: &protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite},
			},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{
				Commands: commands,
			},
			// Every workspace folder is in the sessions' workspace.
			Workspace: &protocol.WorkspaceOptions{WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
				Supported: &t, ChangeNotifications: protocol.Boolean(true)}},
			Experimental: protocol.LSPAny(fmt.Sprintf(`{"agent":{"version":%d,"minor":%d}}`, ProtocolVersion, ProtocolMinor)),
		},
		ServerInfo: info,
	}
}

// workspaceFolders returns the paths of the editor's workspace folders, or
// of its root when it sends no folders.
func workspaceFolders(p *protocol.InitializeParams) []string {
	var paths []string
	if folders, ok := p.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if path, ok := filePath(string(f.URI)); ok {
				paths = append(paths, path)
			}
		}
	}
	// rootUri and rootPath are deprecated in favour of workspaceFolders,
	// but older clients send only them.
	//lint:ignore SA1019 read for clients that predate workspaceFolders
	rootURI, rootPath := p.RootURI, p.RootPath
	if len(paths) == 0 && rootURI != nil {
		if path, ok := filePath(string(*rootURI)); ok {
			paths = append(paths, path)
		}
	}
	if len(paths) == 0 {
		if root, ok := rootPath.Get(); ok && root != "" {
			paths = append(paths, root)
		}
	}
	return paths
}

// filePath returns the file system path of a file:// URI.
func filePath(u string) (string, bool) {
	parsed, err := uri.Parse(u)
	if err != nil || !parsed.IsFile() {
		return "", false
	}
	return parsed.FsPath(), true
}

// checkPolicies rejects policy names protocol section 8 does not define;
// empty means the default.
func checkPolicies(approval policy.ApprovalPolicy, mode policy.SandboxMode) error {
	if _, err := policy.ParseApprovalPolicy(string(approval)); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "approvalPolicy: %v", err)
	}
	if _, err := policy.ParseSandboxMode(string(mode)); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "sandboxMode: %v", err)
	}
	return nil
}

// Initialized only shows the start-up notices: everything else happened
// at initialize.
func (s *server) Initialized(ctx context.Context, _ *protocol.InitializedParams) error {
	s.sendNotices(ctx)
	s.mu.Lock()
	a, events, watch := s.agent, s.caps.AgentEvents, s.caps.WatchedFiles
	s.mu.Unlock()
	if a != nil && events && watch {
		// The same clients learn of files changed outside the editor.
		go s.watchFiles(context.Background())
	}
	if a != nil && events {
		// A client with a conversation view completes @-mentions: the
		// workspace's files are listed now, not at the first @.
		go a.CompleteMention(context.Background(), "", "", 1)
	}
	return nil
}

// Shutdown ends the running turns; after it only exit is accepted.
func (s *server) Shutdown(context.Context) error {
	s.state.Store(stateShutdown)
	s.closeAgent()
	return nil
}

// Exit ends Serve; its status depends on whether shutdown came first.
func (s *server) Exit(context.Context) error {
	s.exitOnce.Do(func() { close(s.exited) })
	return nil
}
