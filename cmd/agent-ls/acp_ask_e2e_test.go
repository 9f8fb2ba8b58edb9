package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// askingACPClient is acpClient with form elicitation: it records each
// elicitation/create and answers it with answer.
type askingACPClient struct {
	*acpClient
	mu     sync.Mutex
	forms  []sdk.UnstableCreateElicitationRequest
	answer func(sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse
}

func (c *askingACPClient) UnstableCreateElicitation(_ context.Context, p sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forms = append(c.forms, p)
	return c.answer(p), nil
}

// TestACPAskUserAsElicitation: an ACP client that shows forms gets the
// model's questions as one elicitation/create form, tied to the session
// and the call: per question a choice of its options and an "Other"
// text; what the user filled in reaches the model in Codex's format.
func TestACPAskUserAsElicitation(t *testing.T) {
	m := fakemodel.New(askSteps(askArgs)...)
	t.Cleanup(m.Close)
	c := &askingACPClient{acpClient: &acpClient{}, answer: func(sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse {
		return sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{Action: "accept",
			Content: map[string]any{"1_db": "Postgres (Recommended)", "2_port_other": "8443"}}}
	}}
	p := spawnACP(t, m, t.TempDir(), t.TempDir())
	conn := sdk.NewClientSideConnection(c, p.stdin, p.stdout)
	ctx := t.Context()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}}}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("set up the service")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	reqs := m.Requests()
	if !offers(t, reqs[0], "request_user_input") {
		t.Errorf("a client that shows forms is not offered request_user_input: %q", requestTools(t, reqs[0]))
	}
	want := `{"answers":{"db":{"answers":["Postgres (Recommended)"]},"port":{"answers":["None of the above","user_note: 8443"]}}}`
	if got := callOutput(t, reqs[1].Body); got != want {
		t.Errorf("the model read %q, want %q", got, want)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.forms) != 1 || c.forms[0].Form == nil {
		t.Fatalf("forms %+v", c.forms)
	}
	schema, _ := json.Marshal(c.forms[0].Form.RequestedSchema)
	for _, want := range []string{`"1_db":{"description":"Which database should the service use?\n• Postgres (Recommended): Matches production.\n• SQLite: No server to run in tests.","oneOf":[{"const":"Postgres (Recommended)","title":"Postgres (Recommended)"},{"const":"SQLite","title":"SQLite"}],"title":"Database","type":"string"}`,
		`"2_port_other":{"description":"Or answer in your own words.","title":"Other (Port)","type":"string"}`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("the form %s lacks %s", schema, want)
		}
	}
}

// TestACPAskUserNotOfferedWithoutElicitation: a client that cannot show
// forms is not offered request_user_input; a call of it is told why.
func TestACPAskUserNotOfferedWithoutElicitation(t *testing.T) {
	m := fakemodel.New(askSteps(askArgs)...)
	t.Cleanup(m.Close)
	r := startACP(t, m, t.TempDir(), t.TempDir(), &acpClient{})
	r.initialize(false)
	id := r.newSession()
	if res, err := r.prompt(id, "set up the service"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	reqs := m.Requests()
	if offers(t, reqs[0], "request_user_input") {
		t.Error("a client without elicitation is offered request_user_input")
	}
	if got := callOutput(t, reqs[1].Body); !strings.Contains(got, "this client cannot put questions to the user") {
		t.Errorf("the call's result is %q", got)
	}
}

// blockingACPClient shows the form and never answers it: only the end of
// the request (or of the test) lets its handler go.
type blockingACPClient struct {
	*acpClient
	asked, release chan struct{}
}

func (c *blockingACPClient) UnstableCreateElicitation(ctx context.Context, _ sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	close(c.asked)
	select {
	case <-ctx.Done():
	case <-c.release:
	}
	return sdk.UnstableCreateElicitationResponse{}, context.Canceled
}

// TestACPAskUserWithdrawnByCancel: a question the client never answers
// does not hold the turn: session/cancel ends it, and the prompt answers
// cancelled.
func TestACPAskUserWithdrawnByCancel(t *testing.T) {
	m := fakemodel.New(askSteps(askArgs)...)
	t.Cleanup(m.Close)
	c := &blockingACPClient{acpClient: &acpClient{}, asked: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(c.release) })
	p := spawnACP(t, m, t.TempDir(), t.TempDir())
	conn := sdk.NewClientSideConnection(c, p.stdin, p.stdout)
	ctx := t.Context()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}}}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan promptResult, 1)
	go func() {
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("set up the service")}})
		done <- promptResult{res, err}
	}()
	select {
	case <-c.asked:
	case <-ctx.Done():
		t.Fatal("the question never came")
	}
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if got.err != nil || got.res.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("prompt after cancel: %+v %v", got.res, got.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the unanswered question held the turn after session/cancel")
	}
	if n := len(m.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1: the turn went on after the cancel", n)
	}
}
