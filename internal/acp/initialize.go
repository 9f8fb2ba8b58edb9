package acp

import (
	"context"
	"encoding/json"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"
)

// initialize is the first message of every connection, and the SDK is
// slow at it the first time: it decodes a request into, and encodes an
// answer from, its generated types by reflection over their whole type
// graphs (every capability the protocol knows, unstable ones included,
// each level decoded twice to fill in its defaults). On first use that
// costs about 0.3 ms for the request and 0.45 ms for the answer, the
// largest single piece of the time from an editor starting agent-ls to
// its first answer. So the wire answers a well-formed initialize itself
// (answerInitialize): it reads the little agent-ls uses of the request and
// writes the answer by hand, byte for byte what the SDK writes for the
// same answer (TestInitializeAnswerIsTheSDKs). What it cannot read (a
// field it reads of the wrong type, an id that is neither a number nor a
// string, no params) goes on to the SDK, which answers it through
// Initialize as before. Fields agent-ls does not read are not checked,
// as ACP asks of both sides for what they do not know.

// initializeParams is what agent-ls reads of initialize's params.
type initializeParams struct {
	ProtocolVersion    int `json:"protocolVersion"`
	ClientCapabilities struct {
		Fs struct {
			ReadTextFile  bool `json:"readTextFile"`
			WriteTextFile bool `json:"writeTextFile"`
		} `json:"fs"`
	} `json:"clientCapabilities"`
	ClientInfo *struct {
		Name string `json:"name"`
	} `json:"clientInfo"`
}

// answerInitialize is told each inbound line that may be an initialize
// request, on the SDK's reading goroutine before the SDK sees it. It
// answers a well-formed one and reports whether it did; the lines after
// it are read once it returns, so nothing overtakes the answer.
func (s *server) answerInitialize(line []byte) bool {
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || req.Method != "initialize" {
		return false
	}
	// In wire order, before the requests after it, which the SDK runs
	// concurrently: they wait for it (theAgent).
	s.initArrived.Store(true)
	var p initializeParams
	if req.JSONRPC != "2.0" || !plainID(req.ID) || len(req.Params) == 0 || req.Params[0] != '{' || json.Unmarshal(req.Params, &p) != nil {
		// The SDK's: when it cannot read the params either, it answers
		// an error and Initialize never runs, so nothing is to wait for.
		var full sdk.InitializeRequest
		if json.Unmarshal(req.Params, &full) != nil {
			s.markReady()
		}
		return false
	}
	caps := sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{
		ReadTextFile:  p.ClientCapabilities.Fs.ReadTextFile,
		WriteTextFile: p.ClientCapabilities.Fs.WriteTextFile,
	}}
	name := "unknown"
	if p.ClientInfo != nil {
		name = p.ClientInfo.Name
	}
	msg := append([]byte(`{"jsonrpc":"2.0","id":`), req.ID...)
	msg = append(msg, `,"result":`...)
	msg, ok := s.appendInitializeResult(msg, s.authMethods())
	if !ok {
		return false // the SDK's to encode
	}
	s.initialized(caps, name, sdk.ProtocolVersion(p.ProtocolVersion))
	s.wire.Write(append(msg, "}\n"...))
	s.markReady()
	return true
}

// plainID reports whether id is a JSON-RPC request id agent-ls answers
// as is: a number or a string.
func plainID(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
}

// Initialize answers what answerInitialize leaves to the SDK.
func (s *server) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	name := "unknown"
	if p.ClientInfo != nil {
		name = p.ClientInfo.Name
	}
	s.initialized(p.ClientCapabilities, name, p.ProtocolVersion)
	// The requests behind initialize go on once its answer is out (a
	// session/new's answer and updates must not overtake it).
	if s.wire != nil {
		s.wire.afterLine([]byte(`"agentCapabilities":`), s.markReady)
	} else {
		s.markReady()
	}
	return s.initializeResponse(), nil
}

// initialized takes the client's capabilities and starts building the
// agent.
func (s *server) initialized(caps sdk.ClientCapabilities, client string, version sdk.ProtocolVersion) {
	s.mu.Lock()
	s.client = caps
	s.mu.Unlock()
	s.build(caps)
	s.log.Info("acp: initialize", "client", client, "protocolVersion", version,
		"fs.read", caps.Fs.ReadTextFile, "fs.write", caps.Fs.WriteTextFile)
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
			},
		},
		AgentInfo:   &sdk.Implementation{Name: "agent-ls", Title: sdk.Ptr("agent-ls"), Version: s.opts.Version},
		AuthMethods: s.authMethods(),
	}
}

// appendInitializeResult appends initializeResponse as the SDK encodes
// it (keys in order, as it writes them), without its reflection. It
// reports false, and the answer is the SDK's to encode, for an auth
// method in methods other than the env_var kind authMethods makes.
func (s *server) appendInitializeResult(b []byte, methods []sdk.AuthMethod) ([]byte, bool) {
	b = append(b, `{"agentCapabilities":{"auth":{},"loadSession":true,"mcpCapabilities":{"http":true},"promptCapabilities":{"embeddedContext":true,"image":true},"sessionCapabilities":{"close":{},"list":{},"resume":{}}},"agentInfo":{"name":"agent-ls","title":"agent-ls","version":`...)
	b = appendString(b, s.opts.Version)
	b = append(b, `},"authMethods":[`...)
	for i, m := range methods {
		if i > 0 {
			b = append(b, ',')
		}
		e := m.EnvVar
		if e == nil || e.Description == nil || m != (sdk.AuthMethod{EnvVar: e}) || e.Meta != nil || e.Link != nil || e.Type != "env_var" {
			return b, false
		}
		b = append(b, `{"description":`...)
		b = appendString(b, *e.Description)
		b = append(b, `,"id":`...)
		b = appendString(b, e.Id)
		b = append(b, `,"name":`...)
		b = appendString(b, e.Name)
		b = append(b, `,"type":"env_var","vars":[`...)
		for j, v := range e.Vars {
			if v.Meta != nil || v.Label != nil || v.Optional || v.Secret {
				return b, false
			}
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendString(b, v.Name)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	b = append(b, `],"protocolVersion":`...)
	b = strconv.AppendInt(b, int64(ProtocolVersion), 10)
	return append(b, '}'), true
}

// appendString appends s as encoding/json writes a string (HTML
// characters, U+2028, U+2029 and invalid UTF-8 escaped as it does).
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
