package agent

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// familyManager is a manager whose sessions talk to srv through the real
// model client on wire, with opts' model settings.
func familyManager(t *testing.T, srv *fakemodel.Server, wire string, fe Frontend, opts Options) *Manager {
	t.Helper()
	c, err := model.New(model.Config{WireAPI: wire, BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	opts.Model, opts.Frontend = c, fe
	return optsManager(t, opts)
}

// optsManager is a manager with opts and the built-in tools, in a
// temporary directory.
func optsManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	opts.Tools, opts.Cwd = reg, t.TempDir()
	mgr, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	return mgr
}

// toolTypes maps the tool names of a request body to their types
// ("web_search" for the hosted tool, which has no name).
func toolTypes(body map[string]any) map[string]string {
	out := map[string]string{}
	list, _ := body["tools"].([]any)
	for _, x := range list {
		tl, _ := x.(map[string]any)
		typ, _ := tl["type"].(string)
		name, _ := tl["name"].(string)
		if fn, ok := tl["function"].(map[string]any); ok { // Chat Completions
			name, _ = fn["name"].(string)
		}
		if name == "" {
			name = typ
		}
		out[name] = typ
	}
	return out
}

// The model family decides what a request carries: apply_patch's form,
// reasoning, verbosity and web search; the usage event gets its context
// window.
func TestFamilyDecidesTheRequest(t *testing.T) {
	tests := []struct {
		name, model, wire string
		webSearch         bool
		// what the request body must carry; "" for absent
		reasoning, text, verbosity, applyPatch, webSearchTool string
		contextWindow                                         int64
	}{
		{name: "gpt-5", model: "gpt-5", wire: model.WireResponses, webSearch: true,
			reasoning: `{"effort":"medium","summary":"auto"}`, text: `{"verbosity":"low"}`, applyPatch: "custom", webSearchTool: "web_search", contextWindow: 272_000},
		{name: "gpt-5 without web search", model: "gpt-5.1", wire: model.WireResponses,
			reasoning: `{"effort":"medium","summary":"auto"}`, text: `{"verbosity":"low"}`, applyPatch: "custom", contextWindow: 272_000},
		{name: "codex variant", model: "gpt-5-codex", wire: model.WireResponses, webSearch: true,
			reasoning: `{"effort":"medium","summary":"auto"}`, applyPatch: "custom", webSearchTool: "web_search", contextWindow: 272_000},
		{name: "unknown model", model: "llama3.1:8b", wire: model.WireResponses, webSearch: true, applyPatch: "function"},
		{name: "chat wire", model: "openai/gpt-5", wire: model.WireChat, webSearch: true,
			verbosity: "low", applyPatch: "function", contextWindow: 272_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakemodel.New(fakemodel.Say("ok"))
			t.Cleanup(srv.Close)
			rec := newRecorder()
			mgr := familyManager(t, srv, tt.wire, rec, Options{Defaults: Defaults{ModelName: tt.model, Verbosity: "low", WebSearch: tt.webSearch},
				Logger: slog.New(slog.DiscardHandler)})
			info, err := mgr.NewSession(SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res := runTurn(t, mgr, info.SessionID, "hi"); res.Status != event.StatusCompleted {
				t.Fatalf("turn %+v", res)
			}
			body := srv.Requests()[0].JSON
			for key, want := range map[string]string{"reasoning": tt.reasoning, "text": tt.text} {
				if want == "" {
					if v, ok := body[key]; ok {
						t.Errorf("%s sent: %v", key, v)
					}
					continue
				}
				jsonEqualText(t, key, body[key], want)
			}
			if got, _ := body["verbosity"].(string); got != tt.verbosity {
				t.Errorf("top-level verbosity %q, want %q", got, tt.verbosity)
			}
			if tt.wire == model.WireChat {
				if got, _ := body["reasoning_effort"].(string); got != "medium" {
					t.Errorf("reasoning_effort %q", got)
				}
			}
			types := toolTypes(body)
			if types["apply_patch"] != tt.applyPatch {
				t.Errorf("apply_patch offered as %q, want %q (tools %v)", types["apply_patch"], tt.applyPatch, types)
			}
			if types["web_search"] != tt.webSearchTool {
				t.Errorf("web_search tool %q, want %q", types["web_search"], tt.webSearchTool)
			}
			var usage []event.Usage
			for _, ev := range rec.all() {
				if u, ok := ev.Payload.(event.Usage); ok {
					usage = append(usage, u)
				}
			}
			if len(usage) != 1 || usage[0].ContextWindow != tt.contextWindow || usage[0].InputTokens == 0 {
				t.Errorf("usage events %+v, want one with context window %d", usage, tt.contextWindow)
			}
		})
	}
}

// An unknown model works with the defaults and is logged once per
// process, however many sessions and requests use it.
func TestUnknownModelIsLoggedOnce(t *testing.T) {
	unknown := "local-model-" + randomID() // unseen by earlier runs in this process
	var logs bytes.Buffer
	m := &scriptedModel{}
	m.add(callTools(fcall("c1", "update_plan", `{"plan":[]}`)), say("a", "one"), say("b", "two"), say("c", "three"))
	mgr := optsManager(t, Options{Defaults: Defaults{ModelName: unknown}, Model: m, Frontend: newRecorder(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for _, model := range []string{"", "", "gpt-5"} {
		info, err := mgr.NewSession(SessionOptions{Model: model})
		if err != nil {
			t.Fatal(err)
		}
		if res := runTurn(t, mgr, info.SessionID, "hi"); res.Status != event.StatusCompleted {
			t.Fatalf("turn %+v", res)
		}
	}
	if n := len(m.requests); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
	if n := strings.Count(logs.String(), "unknown model"); n != 1 {
		t.Errorf("%d log lines about the unknown model, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), unknown) {
		t.Errorf("the log does not name the model:\n%s", logs.String())
	}
	req := m.request(0)
	if req.ReasoningEffort != "" || req.ReasoningSummary != "" || req.Verbosity != "" || req.WebSearch || !req.FunctionToolsOnly {
		t.Errorf("unknown model's request: effort %q, summary %q, verbosity %q, web search %v, function tools only %v",
			req.ReasoningEffort, req.ReasoningSummary, req.Verbosity, req.WebSearch, req.FunctionToolsOnly)
	}
}

// Built-in tools turned off are not offered, and a call of one gets the
// unknown tool's answer.
func TestDisabledToolsAreNotOfferedNorRun(t *testing.T) {
	m := &scriptedModel{}
	m.add(callTools(fcall("c1", "update_plan", `{"plan":[]}`), fcall("c2", "no_such_tool", `{}`)), say("a", "ok"))
	rec := newRecorder()
	mgr := optsManager(t, Options{Defaults: Defaults{ModelName: "gpt-5", DisabledTools: []string{"view_image", "update_plan"}}, Model: m, Frontend: rec})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res := runTurn(t, mgr, info.SessionID, "plan"); res.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", res)
	}
	offered := toolNames(m.request(0))
	if slices.Contains(offered, "view_image") || slices.Contains(offered, "update_plan") || !slices.Contains(offered, "read_file") {
		t.Errorf("tools offered: %v", offered)
	}
	outputs := map[string]string{}
	for _, it := range m.request(1).Input {
		if it.Type == model.ItemFunctionCallOutput {
			outputs[it.CallID] = it.Output
		}
	}
	want := strings.ReplaceAll(outputs["c2"], "no_such_tool", "update_plan")
	if outputs["c1"] == "" || outputs["c1"] != want {
		t.Errorf("answer to the disabled tool %q, want the unknown tool's %q", outputs["c1"], want)
	}
	for _, ev := range rec.all() {
		if p, ok := ev.Payload.(event.Plan); ok {
			t.Errorf("the disabled tool ran: %+v", p)
		}
	}
	// The defaults keep their own copy.
	d := mgr.Defaults()
	d.DisabledTools[0] = "changed"
	if got := mgr.Defaults().DisabledTools; !slices.Equal(got, []string{"view_image", "update_plan"}) {
		t.Errorf("defaults changed through a copy: %v", got)
	}
}

// A web search the model made stays in the history, is sent back on the
// next request, and does not disturb the turn.
func TestWebSearchCallKeptInHistory(t *testing.T) {
	srv := fakemodel.New(
		fakemodel.Answer(fakemodel.WebSearch("latest go release"), fakemodel.Message("Go ", "1.25.")),
		fakemodel.Say("ok"),
	)
	t.Cleanup(srv.Close)
	mgr := familyManager(t, srv, model.WireResponses, newRecorder(), Options{Defaults: Defaults{ModelName: "gpt-5", WebSearch: true}})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, prompt := range []string{"search", "thanks"} {
		if res := runTurn(t, mgr, info.SessionID, prompt); res.Status != event.StatusCompleted {
			t.Fatalf("turn %+v", res)
		}
	}
	input, _ := srv.Requests()[1].JSON["input"].([]any)
	var found bool
	for i, x := range input {
		it, _ := x.(map[string]any)
		if it["type"] != "web_search_call" {
			continue
		}
		found = true
		jsonEqualText(t, "web search item", it, `{"type":"web_search_call","status":"completed","action":{"type":"search","query":"latest go release"}}`)
		next, _ := input[i+1].(map[string]any)
		if next["role"] != "assistant" || next["content"] != "Go 1.25." {
			t.Errorf("item after the search: %v", next)
		}
	}
	if !found {
		t.Errorf("the web search was not sent back: %v", input)
	}
}

func TestBadVerbosity(t *testing.T) {
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Defaults: Defaults{Verbosity: "loud"}, Model: &scriptedModel{}, Frontend: newRecorder(), Tools: reg, Cwd: t.TempDir()}
	if _, err := NewManager(opts); err == nil || !strings.Contains(err.Error(), "loud") {
		t.Errorf("NewManager with verbosity loud: %v", err)
	}
	opts.Verbosity = "high"
	mgr := optsManager(t, opts)
	if err := mgr.UpdateDefaults(func(d *Defaults) { d.Verbosity = "max" }); err == nil {
		t.Error("UpdateDefaults took verbosity max")
	}
	if d := mgr.Defaults(); d.Verbosity != "high" {
		t.Errorf("verbosity %q after a bad update", d.Verbosity)
	}
}

func TestFamilyTable(t *testing.T) {
	for _, tt := range []struct {
		name  string
		known bool
		want  family
	}{
		{"GPT-5.1-Codex-Max", true, family{freeformTools: true, reasoningEffort: true, reasoningSummaries: true, webSearch: true, contextWindow: 272_000, unifiedExec: true, requestUserInput: true}},
		{"openrouter/openai/gpt-5-mini", true, family{freeformTools: true, reasoningEffort: true, reasoningSummaries: true, verbosity: true, webSearch: true, contextWindow: 272_000, unifiedExec: true, requestUserInput: true}},
		{"codex-mini-latest", true, family{freeformTools: true, reasoningEffort: true, reasoningSummaries: true, contextWindow: 200_000, unifiedExec: true, requestUserInput: true}},
		{"o3-mini", true, family{reasoningEffort: true, reasoningSummaries: true, contextWindow: 200_000, noImages: true}},
		{"o3", true, family{reasoningEffort: true, reasoningSummaries: true, webSearch: true, contextWindow: 200_000}},
		{"gpt-oss:20b", true, family{reasoningEffort: true, contextWindow: 131_072, noImages: true}},
		{"o1-mini", true, family{contextWindow: 128_000, noImages: true}},
		{"gpt-4.1-mini", true, family{webSearch: true, contextWindow: 1_047_576}},
		{"qwen3-coder", false, family{}},
		{"", false, family{}},
	} {
		got, known := familyOf(tt.name)
		if got != tt.want || known != tt.known {
			t.Errorf("familyOf(%q) = %+v, %v; want %+v, %v", tt.name, got, known, tt.want, tt.known)
		}
	}
}

// jsonEqualText compares decoded JSON with the JSON text want.
func jsonEqualText(t *testing.T, what string, got any, want string) {
	t.Helper()
	g, _ := json.Marshal(got)
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation: %v", what, err)
	}
	wb, _ := json.Marshal(w)
	if !bytes.Equal(g, wb) {
		t.Errorf("%s = %s, want %s", what, g, wb)
	}
}

// model_reasoning_summary = "none" sends no summary setting.
func TestReasoningSummaryNone(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("a", "ok"))
	mgr := optsManager(t, Options{Defaults: Defaults{ModelName: "gpt-5", ReasoningEffort: "high", ReasoningSummary: "none"}, Model: m, Frontend: newRecorder()})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr, info.SessionID, "hi")
	if req := m.request(0); req.ReasoningEffort != "high" || req.ReasoningSummary != "" {
		t.Errorf("effort %q, summary %q", req.ReasoningEffort, req.ReasoningSummary)
	}
}

// TestWebSearchEvents: a hosted web search shows as "searching" when the
// model begins it, then "completed" with its query, under one call id.
func TestWebSearchEvents(t *testing.T) {
	srv := fakemodel.New(fakemodel.Answer(fakemodel.WebSearch("go 1.25 release notes"), fakemodel.Message("Found it.")))
	t.Cleanup(srv.Close)
	rec := newRecorder()
	mgr := familyManager(t, srv, model.WireResponses, rec, Options{Defaults: Defaults{ModelName: "gpt-5", WebSearch: true}, Logger: slog.New(slog.DiscardHandler)})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res := runTurn(t, mgr, info.SessionID, "search"); res.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", res)
	}
	var got []event.WebSearch
	for _, ev := range rec.all() {
		if w, ok := ev.Payload.(event.WebSearch); ok {
			got = append(got, w)
		}
	}
	if len(got) != 2 || got[0].Status != event.WebSearchSearching || got[1].Status != event.WebSearchCompleted ||
		got[1].Query != "go 1.25 release notes" || got[0].CallID == "" || got[0].CallID != got[1].CallID {
		t.Errorf("webSearch events %+v", got)
	}
}
