package acp

import (
	"context"
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"
)

// Initialize takes the client's capabilities, starts building the agent
// (the answer does not wait for it) and answers what agent-ls offers.
func (s *server) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	caps := p.ClientCapabilities
	s.mu.Lock()
	s.client = caps
	s.termMeta.Store(clientTerminalOutput(caps))
	s.mu.Unlock()
	s.build(caps)
	name := "unknown"
	if p.ClientInfo != nil {
		name = p.ClientInfo.Name
	}
	s.log.Info("acp: initialize", "client", name, "protocolVersion", p.ProtocolVersion,
		"fs.read", caps.Fs.ReadTextFile, "fs.write", caps.Fs.WriteTextFile, "terminal_output", clientTerminalOutput(caps))
	return s.initializeResponse(), nil
}

// initializeArrived is told, by the wire, of an initialize request as it
// is read, before the requests after it, which the SDK runs concurrently
// with it: those wait (theAgent) until its answer is being written, so
// a session/new sent right behind initialize is handled after it and
// its answer and updates follow initialize's. An initialize the SDK
// refuses is answered too (with an error), which lets them go on as well.
func (s *server) initializeArrived(id json.RawMessage) {
	s.initArrived.Store(true)
	s.wire.afterAnswerTo(id, s.markReady)
}

// markReady lets the requests behind initialize go on.
func (s *server) markReady() { s.readyOnce.Do(func() { close(s.ready) }) }

// initializeResponse is initialize's answer. One version is served: the
// client's own when it asks for it, else ours, which a client that
// cannot speak it closes the connection on.
func (s *server) initializeResponse() sdk.InitializeResponse {
	return sdk.InitializeResponse{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			// The client's MCP servers: stdio always, streamable HTTP too.
			McpCapabilities: sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
				// Each is a workspace folder of the session.
				AdditionalDirectories: &sdk.SessionAdditionalDirectoriesCapabilities{},
			},
			// A session/prompt while a turn runs waits for it, and
			// answers when its own turn ends.
			Meta: map[string]any{"agentLs": map[string]any{"promptQueueing": true}},
		},
		AgentInfo:   &sdk.Implementation{Name: "agent-ls", Title: sdk.Ptr("agent-ls"), Version: s.opts.Version},
		AuthMethods: s.authMethods(),
	}
}
