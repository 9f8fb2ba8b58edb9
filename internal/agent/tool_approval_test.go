package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// TestToolApprovalByPolicy: a tool annotated read-only runs without
// asking; others ask under untrusted and on-request, run under
// on-failure, and are refused under never and unattended, unless the
// server's approval is auto.
func TestToolApprovalByPolicy(t *testing.T) {
	type want int
	const (
		runs want = iota
		asks
		refused
	)
	for _, tc := range []struct {
		policy     policy.ApprovalPolicy
		unattended bool
		readOnly   bool
		auto       bool
		want       want
	}{
		{policy.Untrusted, false, true, false, runs},
		{policy.Untrusted, false, false, false, asks},
		{policy.OnRequest, false, false, false, asks},
		{policy.OnRequest, false, false, true, runs},
		{policy.OnFailure, false, false, false, runs},
		{policy.Never, false, false, false, refused},
		{policy.Never, false, true, false, runs},
		{policy.Never, false, false, true, runs},
		{policy.OnRequest, true, false, false, refused},
		{policy.OnRequest, true, true, false, runs},
		{policy.OnRequest, true, false, true, runs},
	} {
		fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
		mgr := managerWith(t, &scriptedModel{}, fe, func(o *Options) { o.Unattended = tc.unattended })
		tr, ctx := turnOf(t, mgr, tc.policy, policy.WorkspaceWrite)
		req := tools.ToolRequest{CallID: "c1", Server: "github", Tool: "create_issue", Arguments: json.RawMessage(`{"title":"x"}`),
			ReadOnly: tc.readOnly, AutoApprove: tc.auto}
		d, err := turnApprover{tr}.Tool(ctx, req)
		name := string(tc.policy)
		if tc.unattended {
			name += " unattended"
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		asked := fe.count() == 1
		switch tc.want {
		case runs:
			if !d.Allowed || asked {
				t.Errorf("%s read-only=%v auto=%v: %+v, asked %v; want it to run without asking", name, tc.readOnly, tc.auto, d, asked)
			}
		case asks:
			if !d.Allowed || !asked {
				t.Errorf("%s: %+v, asked %v; want a question", name, d, asked)
			}
			r := fe.asked[0]
			if r.Kind != ApprovalTool || r.Server != "github" || r.Tool != "create_issue" || string(r.Arguments) != `{"title":"x"}` {
				t.Errorf("%s: request %+v", name, r)
			}
		case refused:
			if d.Allowed || asked || !strings.HasPrefix(d.Reason, "refused: ") || !strings.Contains(d.Reason, `approval = "auto"`) {
				t.Errorf("%s: %+v, asked %v; want a refusal that says why", name, d, asked)
			}
		}
	}
}

// TestToolApprovalAlways: "allow always" covers later calls of that tool
// only; "reject always" refuses them without asking.
func TestToolApprovalAlways(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowAlways, RejectAlways}}
	var rules []ApprovalRule
	tr, ctx := testTurn(t, fe, policy.OnRequest, policy.WorkspaceWrite)
	tr.s.approvals.observe = func(r ApprovalRule) { rules = append(rules, r) }
	ap := turnApprover{tr}
	issue := tools.ToolRequest{Server: "github", Tool: "create_issue"}
	comment := tools.ToolRequest{Server: "github", Tool: "add_comment"}
	for i := 0; i < 2; i++ {
		if d, _ := ap.Tool(ctx, issue); !d.Allowed {
			t.Fatalf("create_issue %d: %+v", i, d)
		}
	}
	if fe.count() != 1 {
		t.Errorf("asked %d times for create_issue", fe.count())
	}
	if d, _ := ap.Tool(ctx, comment); d.Allowed {
		t.Errorf("add_comment: %+v", d)
	}
	if d, _ := ap.Tool(ctx, comment); d.Allowed || !strings.Contains(d.Reason, "rest of the session") || fe.count() != 2 {
		t.Errorf("add_comment again: %+v, asked %d", d, fe.count())
	}
	if got := strings.Join(decisions(fe.recorder), ","); got != "allowAlways,autoAllow,rejectAlways,autoReject" {
		t.Errorf("approval events %s", got)
	}
	want := []ApprovalRule{{Server: "github", Tool: "create_issue", Allow: true}, {Server: "github", Tool: "add_comment"}}
	if !slices.EqualFunc(rules, want, func(a, b ApprovalRule) bool { return a.Server == b.Server && a.Tool == b.Tool && a.Allow == b.Allow }) {
		t.Errorf("remembered %+v", rules)
	}
	// A session brought back keeps the answers.
	var st approvalStore
	for _, r := range rules {
		st.restore(r)
	}
	if d, a := st.toolDecided(toolKey{"github", "create_issue"}); !d || !a {
		t.Errorf("restored create_issue: %v %v", d, a)
	}
}

// sources is a fake ToolSources that registers a tool when Ready is
// called, as a server that finished starting would.
type sources struct {
	mu     sync.Mutex
	starts int
	ready  int
	reg    *tools.Registry
	t      *testing.T
}

func (s *sources) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts++
}

func (s *sources) Ready(context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready == 0 {
		if err := s.reg.Register(tools.Source{Name: "mcp:docs", External: true}, &serverTool{}); err != nil {
			s.t.Error(err)
		}
	}
	s.ready++
}

// serverTool is a tool of an MCP server named docs.
type serverTool struct{}

func (serverTool) Spec() tools.Spec {
	return tools.Spec{Name: "docs__search", Description: "Searches the docs.", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
		Server: "docs", ServerTool: "search"}
}
func (serverTool) Kind() event.ToolKind      { return event.KindOther }
func (serverTool) Mutating(*tools.Call) bool { return false }
func (serverTool) Title(*tools.Call) string  { return "search (docs)" }
func (serverTool) Handle(ctx context.Context, env *tools.Env, c *tools.Call) (tools.Output, error) {
	d, err := env.Approver.Tool(ctx, tools.ToolRequest{CallID: c.CallID, Server: "docs", Tool: "search", Arguments: c.Arguments, ReadOnly: true})
	if err != nil || !d.Allowed {
		return tools.Output{Text: "refused", Failed: true}, err
	}
	return tools.Output{Text: "found it"}, nil
}

// TestToolSources: a session starts the sources, the first request waits
// for them and offers their tools, and the events name a server's tool by
// its server and its own name.
func TestToolSources(t *testing.T) {
	m := &scriptedModel{}
	m.add(callTools(fcall("c1", "docs__search", `{"q":"x"}`)), say("m1", "done"))
	fe := newRecorder()
	var src *sources
	mgr := managerWith(t, m, fe, func(o *Options) {
		src = &sources{reg: o.Tools, t: t}
		o.ToolSources = src
	})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src.mu.Lock()
	if src.starts != 1 || src.ready != 0 {
		t.Errorf("after NewSession: %d starts, %d readies", src.starts, src.ready)
	}
	src.mu.Unlock()
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "look it up"}); err != nil {
		t.Fatal(err)
	}
	if tc := fe.wait(t); tc.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", tc)
	}
	if !slices.ContainsFunc(m.request(0).Tools, func(tl model.Tool) bool { return tl.Name == "docs__search" }) {
		t.Error("the first request does not offer docs__search")
	}
	var call event.ToolCall
	var result event.ToolResult
	for _, ev := range fe.all() {
		switch p := ev.Payload.(type) {
		case event.ToolCall:
			call = p
		case event.ToolResult:
			result = p
		}
	}
	if call.Tool != "search" || call.Server != "docs" || result.Tool != "search" || result.Server != "docs" || result.Output != "found it" {
		t.Errorf("events %+v %+v", call, result)
	}
}
