package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

func TestSpecsAreSortedByName(t *testing.T) {
	r := newRegistry(t, Builtin()...)
	names := r.Names()
	if !slices.IsSorted(names) || len(names) != len(Builtin()) {
		t.Fatalf("names %v", names)
	}
	var specNames []string
	for _, sp := range r.Specs() {
		specNames = append(specNames, sp.Name)
	}
	if !slices.Equal(specNames, names) {
		t.Errorf("specs in order %v, want %v", specNames, names)
	}
	// A source added later lands in name order, not at the end.
	if err := r.Register(Source{Name: "srv", External: true}, schemaTool{name: "aaa_first"}, schemaTool{name: "mmm_middle"}); err != nil {
		t.Fatal(err)
	}
	names = r.Names()
	if names[0] != "aaa_first" || !slices.IsSorted(names) || !slices.Contains(names, "mmm_middle") {
		t.Errorf("names %v", names)
	}
}

func TestSnapshotIsUnchangedByLaterChanges(t *testing.T) {
	r := newRegistry(t, UpdatePlan{})
	src := Source{Name: "srv", External: true}
	if err := r.Register(src, schemaTool{name: "one"}, schemaTool{name: "two"}); err != nil {
		t.Fatal(err)
	}
	before := r.Snapshot()
	if err := r.Replace(src, schemaTool{name: "three"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(before.Names(), ","); got != "one,two,update_plan" {
		t.Errorf("old snapshot changed: %s", got)
	}
	if got := strings.Join(r.Names(), ","); got != "three,update_plan" {
		t.Errorf("after Replace: %s", got)
	}
	// A call made from the old snapshot still reaches the old tool.
	res := before.Run(context.Background(), &Env{}, []*Call{call("c", "one")}, func(*Call, Handler, Result) {})
	if res[0].Output.Failed {
		t.Errorf("old snapshot's tool: %+v", res[0].Output)
	}
	r.Unregister("srv")
	if got := strings.Join(r.Names(), ","); got != "update_plan" {
		t.Errorf("after Unregister: %s", got)
	}
	res = r.Run(context.Background(), &Env{}, []*Call{call("c", "three")}, func(*Call, Handler, Result) {})
	if !strings.Contains(res[0].Output.Text, "unsupported call: three (no such tool)") {
		t.Errorf("removed tool: %+v", res[0].Output)
	}
}

func TestRegisterIsAllOrNothing(t *testing.T) {
	r := newRegistry(t, UpdatePlan{})
	src := Source{Name: "srv"}
	if err := r.Register(src, schemaTool{name: "fine"}); err != nil {
		t.Fatal(err)
	}
	err := r.Replace(src,
		schemaTool{name: "good"},
		schemaTool{name: "update_plan"}, // shadows a built-in
		schemaTool{name: "loop", params: json.RawMessage(`{"$ref": "#"}`)},
	)
	for _, want := range []string{
		`register tool "update_plan" from srv: a tool with that name is already registered by builtin`,
		`register tool "loop" from srv: parameters schema: #: a $ref cycle that never descends into the value (# → #)`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if got := strings.Join(r.Names(), ","); got != "fine,update_plan" {
		t.Errorf("a failed Replace changed the registry: %s", got)
	}
	if err := r.Register(Source{}, schemaTool{name: "x"}); err == nil {
		t.Error("a source without a name was accepted")
	}
}

func TestExternalSchemasAreSanitized(t *testing.T) {
	raw := `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"n": {"type": "integer", "minimum": 1}, "tags": {"type": "array"}}, "required": ["n", "ghost"]}`
	r := newRegistry(t)
	if err := r.Register(Source{Name: "srv", External: true}, schemaTool{name: "ext", params: json.RawMessage(raw)}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(Source{Name: "own"}, schemaTool{name: "own", params: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer"}}}`)}); err != nil {
		t.Fatal(err)
	}
	specs := r.Specs()
	want := `{"properties":{"n":{"minimum":1,"type":"number"},"tags":{"items":{"type":"string"},"type":"array"}},"required":["n"],"type":"object"}`
	if string(specs[0].Parameters) != want {
		t.Errorf("external schema offered as\n%s\nwant\n%s", specs[0].Parameters, want)
	}
	if string(specs[1].Parameters) != `{"type": "object", "properties": {"n": {"type": "integer"}}}` {
		t.Errorf("our own schema was rewritten: %s", specs[1].Parameters)
	}
	// Validation uses what the model was shown.
	res := r.Run(context.Background(), &Env{}, []*Call{
		{CallID: "1", Name: "ext", Type: Function, Arguments: json.RawMessage(`{"n": 0}`)},
		{CallID: "2", Name: "ext", Type: Function, Arguments: json.RawMessage(`{"n": 1.5, "tags": ["a"]}`)},
	}, func(*Call, Handler, Result) {})
	if !strings.Contains(res[0].Output.Text, "/n (argument `n`): minimum: got 0, want 1") {
		t.Errorf("call 1: %+v", res[0].Output)
	}
	if res[1].Output.Failed {
		t.Errorf("call 2: %+v", res[1].Output)
	}
}

// TestRegistryChangesWhileCallsRun replaces a source over and over while
// other goroutines take snapshots and run calls; -race checks the
// copy-on-write discipline.
func TestRegistryChangesWhileCallsRun(t *testing.T) {
	r := newRegistry(t, UpdatePlan{})
	src := Source{Name: "srv", External: true}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		defer close(stop)
		for i := range 200 {
			hs := []Handler{schemaTool{name: fmt.Sprintf("gen%d", i%3), params: json.RawMessage(refSchema)}, schemaTool{name: "stable", params: json.RawMessage(refSchema)}}
			if err := r.Replace(src, hs...); err != nil {
				t.Error(err)
				return
			}
			if i%50 == 49 {
				r.Unregister("srv")
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				snap := r.Snapshot()
				specs := snap.Specs()
				if !slices.IsSortedFunc(specs, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) }) {
					t.Error("specs not sorted")
					return
				}
				var calls []*Call
				for _, sp := range specs {
					if sp.Name != "update_plan" {
						calls = append(calls, &Call{CallID: sp.Name, Name: sp.Name, Type: Function, Arguments: json.RawMessage(`{"tree": {"name": "a"}}`)})
					}
				}
				for i, res := range snap.Run(context.Background(), &Env{}, calls, func(*Call, Handler, Result) {}) {
					if res.Output.Failed {
						t.Errorf("%s: %s", calls[i].Name, res.Output.Text)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestHooksRunAroundEveryCall(t *testing.T) {
	ran := map[string]bool{}
	var mu sync.Mutex
	tool := &fakeTool{name: "act", handle: func(_ context.Context, c *Call) (Output, error) {
		mu.Lock()
		ran[c.CallID] = true
		mu.Unlock()
		return Output{Text: "did " + c.CallID}, nil
	}}
	r := newRegistry(t, tool, UpdatePlan{})
	var seen []string
	r.AddHook(Hook{
		Name: "refuse-b",
		Before: func(_ context.Context, _ *Env, h Handler, c *Call) Decision {
			if h.Spec().Name == "act" && c.CallID == "b" {
				return Decision{Reason: "refused: b is not allowed here"}
			}
			return Decision{Allowed: true}
		},
	})
	r.AddHook(Hook{
		Name: "audit",
		After: func(_ context.Context, _ *Env, h Handler, c *Call, res Result) {
			mu.Lock()
			defer mu.Unlock()
			name := "<nil>"
			if h != nil {
				name = h.Spec().Name
			}
			seen = append(seen, fmt.Sprintf("%s %s failed=%v rejected=%v %q", c.CallID, name, res.Output.Failed, res.Output.Rejected, res.Output.Text))
		},
	})
	res := r.Run(context.Background(), &Env{Emit: func(event.Payload) {}}, []*Call{
		call("a", "act"),
		call("b", "act"),
		call("c", "missing"),
		{CallID: "d", Name: "update_plan", Type: Function, Arguments: json.RawMessage(`{}`)},
	}, func(*Call, Handler, Result) {})
	if res[0].Output.Text != "did a" || !ran["a"] {
		t.Errorf("allowed call: %+v", res[0].Output)
	}
	if out := res[1].Output; !out.Rejected || !out.Failed || out.Text != "refused: b is not allowed here" || ran["b"] {
		t.Errorf("refused call: %+v, ran %v", out, ran["b"])
	}
	slices.Sort(seen)
	want := []string{
		`a act failed=false rejected=false "did a"`,
		`b act failed=true rejected=true "refused: b is not allowed here"`,
		`c <nil> failed=true rejected=false "unsupported call: missing (no such tool)"`,
		"d update_plan failed=true rejected=false \"update_plan: invalid arguments (1 problem); fix all of them and call again:\\n- at the top level: missing property 'plan'\"",
	}
	if !slices.Equal(seen, want) {
		t.Errorf("after hooks saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

func TestPanicsAreLoggedThroughTheEnvLogger(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil)).With("turn", "t-1")
	panicky := &fakeTool{name: "panicky", handle: func(context.Context, *Call) (Output, error) { panic("boom") }}
	r := newRegistry(t, panicky)
	r.AddHook(Hook{Name: "shaky", After: func(context.Context, *Env, Handler, *Call, Result) { panic("hook boom") }})
	res := r.Run(context.Background(), &Env{Log: log}, []*Call{call("c1", "panicky")}, func(*Call, Handler, Result) {})
	if out := res[0].Output; !out.Failed || out.Text != "tool panicky failed with an internal error: boom" {
		t.Errorf("output %+v", out)
	}
	var records []map[string]any
	for line := range strings.Lines(buf.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		records = append(records, rec)
	}
	if len(records) != 2 {
		t.Fatalf("want 2 log records, got %d:\n%s", len(records), buf.String())
	}
	for i, want := range []struct{ in, panic string }{{"tool panicky", "boom"}, {"hook shaky (after)", "hook boom"}} {
		rec := records[i]
		if rec["msg"] != "tool call panicked" || rec["turn"] != "t-1" || rec["in"] != want.in || rec["panic"] != want.panic || rec["call"] != "c1" ||
			!strings.Contains(fmt.Sprint(rec["stack"]), "registry_test.go") {
			t.Errorf("record %d: %v", i, rec)
		}
	}
}

// TestPanickingBeforeHookRefuses: a Before hook may be the one deciding
// approvals, so its panic must not let the call through.
func TestPanickingBeforeHookRefuses(t *testing.T) {
	ran := false
	tool := &fakeTool{name: "act", handle: func(context.Context, *Call) (Output, error) { ran = true; return Output{Text: "did it"}, nil }}
	r := newRegistry(t, tool)
	r.AddHook(Hook{Name: "approve", Before: func(context.Context, *Env, Handler, *Call) Decision { panic("approver broke") }})
	var buf bytes.Buffer
	res := r.Run(context.Background(), &Env{Log: slog.New(slog.NewTextHandler(&buf, nil))}, []*Call{call("c1", "act")}, func(*Call, Handler, Result) {})
	if out := res[0].Output; ran || !out.Failed || out.Text != "hook approve (before) failed with an internal error: approver broke" {
		t.Errorf("ran %v, output %+v", ran, out)
	}
	if !strings.Contains(buf.String(), "approver broke") {
		t.Errorf("panic not logged: %s", buf.String())
	}
}

// A tool turned off is neither offered nor run: a call of it gets the
// unknown tool's answer.
func TestSnapshotWithout(t *testing.T) {
	r := newRegistry(t, UpdatePlan{})
	if err := r.Register(Source{Name: "srv", External: true}, schemaTool{name: "one"}); err != nil {
		t.Fatal(err)
	}
	full := r.Snapshot()
	if same := full.Without("no_such_tool"); same != full {
		t.Error("a snapshot without no tool is a copy")
	}
	snap := full.Without("update_plan", "no_such_tool")
	if got := strings.Join(snap.Names(), ","); got != "one" {
		t.Errorf("names %s", got)
	}
	if len(snap.Specs()) != 1 {
		t.Errorf("specs %+v", snap.Specs())
	}
	if _, ok := snap.Lookup("update_plan"); ok {
		t.Error("update_plan found")
	}
	env := &Env{}
	off := snap.Run(context.Background(), env, []*Call{call("c1", "update_plan")}, func(*Call, Handler, Result) {})
	unknown := snap.Run(context.Background(), env, []*Call{call("c2", "no_such_tool")}, func(*Call, Handler, Result) {})
	want := strings.Replace(unknown[0].Output.Text, "no_such_tool", "update_plan", 1)
	if !off[0].Output.Failed || off[0].Output.Text != want {
		t.Errorf("call of a tool turned off: %+v, want %q", off[0].Output, want)
	}
	if got := strings.Join(full.Names(), ","); got != "one,update_plan" {
		t.Errorf("the snapshot it came from changed: %s", got)
	}
}

// TestTurnHooksRunAfterRegistryHooks: the hooks a turn adds (Env.Hooks)
// run after the registry's, may refuse a call, see every result; Ran says
// which calls the tool ran.
func TestTurnHooksRunAfterRegistryHooks(t *testing.T) {
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	// Mutating: the calls run one at a time, in order.
	tool := &fakeTool{name: "act", mutating: true, handle: func(_ context.Context, c *Call) (Output, error) {
		note("run " + c.CallID)
		if c.CallID == "refused-by-tool" {
			return Output{Text: "the user said no", Failed: true, Rejected: true}, nil
		}
		return Output{Text: "did " + c.CallID}, nil
	}}
	r := newRegistry(t, tool)
	r.AddHook(Hook{Name: "registry", Before: func(_ context.Context, _ *Env, _ Handler, c *Call) Decision {
		note("registry " + c.CallID)
		return Decision{Allowed: true}
	}})
	ran := map[string]bool{}
	env := &Env{Hooks: []Hook{{Name: "turn",
		Before: func(_ context.Context, _ *Env, _ Handler, c *Call) Decision {
			note("turn " + c.CallID)
			return Decision{Allowed: c.CallID != "denied", Reason: "denied by the turn"}
		},
		After: func(_ context.Context, _ *Env, _ Handler, c *Call, res Result) {
			mu.Lock()
			ran[c.CallID] = res.Ran
			mu.Unlock()
		},
	}}}
	calls := []*Call{call("ok", "act"), call("denied", "act"), call("refused-by-tool", "act"), call("unknown", "nope")}
	res := r.Run(context.Background(), env, calls, func(*Call, Handler, Result) {})
	if got := strings.Join(order, ","); got != "registry ok,turn ok,run ok,registry denied,turn denied,registry refused-by-tool,turn refused-by-tool,run refused-by-tool" {
		t.Errorf("order %s", got)
	}
	if out := res[1].Output; !out.Rejected || out.Text != "denied by the turn" {
		t.Errorf("denied call: %+v", out)
	}
	want := map[string]bool{"ok": true, "denied": false, "refused-by-tool": false, "unknown": false}
	for i, c := range calls {
		if res[i].Ran != want[c.CallID] || ran[c.CallID] != want[c.CallID] {
			t.Errorf("%s: Ran %v (the after hook saw %v), want %v", c.CallID, res[i].Ran, ran[c.CallID], want[c.CallID])
		}
	}
}

// TestSnapshotWith: a session's own tools join the registry's, sorted,
// without shadowing one of its names; the snapshots joined are unchanged.
func TestSnapshotWith(t *testing.T) {
	r := newRegistry(t, UpdatePlan{})
	own := newRegistry(t)
	if err := own.Register(Source{Name: "mine", External: true}, schemaTool{name: "a_tool"}, schemaTool{name: "update_plan"}); err != nil {
		t.Fatal(err)
	}
	base := r.Snapshot()
	if same := base.With(nil); same != base {
		t.Error("a snapshot with nothing is a copy")
	}
	joined := base.With(own.Snapshot())
	if got := strings.Join(joined.Names(), ","); got != "a_tool,update_plan" {
		t.Errorf("names %s", got)
	}
	if h, _ := joined.Lookup("update_plan"); h != (UpdatePlan{}) {
		t.Errorf("update_plan is %T, want the registry's", h)
	}
	if got := strings.Join(base.Names(), ","); got != "update_plan" {
		t.Errorf("the registry's snapshot changed: %s", got)
	}
}

// TestSnapshotUnofferedAddsUp: each Unoffered leaves out its tools and
// keeps out those an earlier one left out; every one of them still runs.
func TestSnapshotUnofferedAddsUp(t *testing.T) {
	r := newRegistry(t, UpdatePlan{}, ViewImage{}, RequestUserInput{})
	snap := r.Snapshot().Unoffered("view_image").Unoffered(RequestUserInputName)
	if got := strings.Join(snap.Names(), ","); got != "update_plan" {
		t.Errorf("offered %s", got)
	}
	for _, name := range []string{"view_image", RequestUserInputName} {
		if _, ok := snap.Lookup(name); !ok {
			t.Errorf("%s cannot be called", name)
		}
	}
}
