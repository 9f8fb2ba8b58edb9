package fakemodel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// event is one parsed SSE event.
type event struct {
	name string         // the event: line
	data string         // the data: line
	json map[string]any // data decoded, unless [DONE]
}

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(url, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// readEvents reads SSE events until n are read (n < 0: until EOF).
func readEvents(t *testing.T, r *bufio.Reader, n int) []event {
	t.Helper()
	var evs []event
	var cur event
	for n < 0 || len(evs) < n {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" {
				return evs
			}
			t.Fatalf("reading the stream: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if cur.data != "" {
				if cur.data != "[DONE]" {
					if err := json.Unmarshal([]byte(cur.data), &cur.json); err != nil {
						t.Fatalf("bad JSON %q: %v", cur.data, err)
					}
				}
				evs = append(evs, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
	return evs
}

func stream(t *testing.T, srv *Server, path string, body map[string]any) []event {
	t.Helper()
	res := post(t, srv.URL()+path, body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d, content type %q: %s", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	return readEvents(t, bufio.NewReader(res.Body), -1)
}

func get(m any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			mm, _ := m.(map[string]any)
			m = mm[k]
		case int:
			l, _ := m.([]any)
			if k >= len(l) {
				return nil
			}
			m = l[k]
		}
	}
	return m
}

func TestResponsesWireFormat(t *testing.T) {
	srv := New(Step{Reply: Reply{
		Items: []Item{
			Reasoning("ENC", "One two", "Three"),
			{Type: TypeMessage, Text: []string{"Hi ", "\"there\"\n"}, Phase: "final_answer"},
			FunctionCall("call_1", "read_file", `{"path":"a"}`),
			CustomToolCall("call_2", "apply_patch", "*** Begin Patch"),
		},
		Usage: Usage{InputTokens: 10, CachedInputTokens: 4, OutputTokens: 7, ReasoningTokens: 3},
	}})
	defer srv.Close()
	evs := stream(t, srv, "/responses", map[string]any{"model": "gpt-x", "stream": true})

	var types []string
	for i, e := range evs {
		typ, _ := e.json["type"].(string)
		if e.name != typ {
			t.Errorf("event %d: event line %q, type %q", i, e.name, typ)
		}
		if seq := get(e.json, "sequence_number"); seq != float64(i) {
			t.Errorf("event %d: sequence_number %v", i, seq)
		}
		types = append(types, typ)
	}
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added",
		"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
		"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
		"response.output_item.done",
		"response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_text.done",
		"response.content_part.done", "response.output_item.done",
		"response.output_item.added",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.output_item.added",
		"response.custom_tool_call_input.delta", "response.custom_tool_call_input.delta", "response.custom_tool_call_input.delta",
		"response.custom_tool_call_input.done", "response.output_item.done",
		"response.completed",
	}
	if !slices.Equal(types, want) {
		t.Fatalf("event types\n got %q\nwant %q", types, want)
	}
	// A few payloads in detail.
	if d := evs[15].json; d["delta"] != "Hi " || d["item_id"] != "msg_1_1" || d["output_index"] != 1.0 || d["content_index"] != 0.0 {
		t.Errorf("text delta %v", d)
	}
	if d := evs[17].json; d["text"] != "Hi \"there\"\n" {
		t.Errorf("text done %v", d)
	}
	if d := evs[9].json; d["summary_index"] != 1.0 || d["delta"] != "Three" {
		t.Errorf("summary delta %v", d)
	}
	completed := evs[len(evs)-1].json["response"]
	if get(completed, "status") != "completed" || get(completed, "model") != "gpt-x" || get(completed, "id") != "resp_1" {
		t.Errorf("completed response %v", completed)
	}
	wantOutput := `[
		{"id":"rs_1_0","type":"reasoning","summary":[{"type":"summary_text","text":"One two"},{"type":"summary_text","text":"Three"}],"encrypted_content":"ENC"},
		{"id":"msg_1_1","type":"message","status":"completed","role":"assistant","phase":"final_answer",
		 "content":[{"type":"output_text","text":"Hi \"there\"\n","annotations":[],"logprobs":[]}]},
		{"id":"fc_1_2","type":"function_call","status":"completed","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"a\"}"},
		{"id":"ctc_1_3","type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch"}
	]`
	var wo any
	_ = json.Unmarshal([]byte(wantOutput), &wo)
	if got := get(completed, "output"); !reflect.DeepEqual(got, wo) {
		g, _ := json.Marshal(got)
		t.Errorf("output\n got %s\nwant %s", g, wantOutput)
	}
	u := get(completed, "usage")
	if get(u, "input_tokens") != 10.0 || get(u, "input_tokens_details", "cached_tokens") != 4.0 ||
		get(u, "output_tokens") != 7.0 || get(u, "output_tokens_details", "reasoning_tokens") != 3.0 || get(u, "total_tokens") != 17.0 {
		t.Errorf("usage %v", u)
	}
	// Each output_item.done carries the finished item.
	if got := get(evs[19].json, "item"); !reflect.DeepEqual(got, get(wo, 1)) {
		t.Errorf("output_item.done item %v", got)
	}
}

func TestResponsesEndings(t *testing.T) {
	srv := New(
		Step{Reply: Reply{Failed: &APIError{Code: "server_error", Message: "boom"}}},
		Step{Reply: Reply{Incomplete: "max_output_tokens"}},
		Step{Reply: Reply{ErrorEvent: &APIError{Code: "rate_limit_exceeded", Message: "slow down"}}},
	)
	defer srv.Close()
	body := map[string]any{"stream": true}
	last := func() map[string]any {
		evs := stream(t, srv, "/responses", body)
		return evs[len(evs)-1].json
	}
	if e := last(); e["type"] != "response.failed" || get(e, "response", "error", "message") != "boom" || get(e, "response", "status") != "failed" {
		t.Errorf("failed: %v", e)
	}
	if e := last(); e["type"] != "response.incomplete" || get(e, "response", "incomplete_details", "reason") != "max_output_tokens" {
		t.Errorf("incomplete: %v", e)
	}
	if e := last(); e["type"] != "error" || e["code"] != "rate_limit_exceeded" || e["message"] != "slow down" {
		t.Errorf("error event: %v", e)
	}
}

func TestChatWireFormat(t *testing.T) {
	reply := Reply{Items: []Item{
		Reasoning("", "Hmm"),
		Message("Hel", "lo"),
		FunctionCall("call_1", "read_file", `{"path":"a"}`),
		CustomToolCall("call_2", "apply_patch", "x\"y"),
	}, Usage: Usage{InputTokens: 3, OutputTokens: 2}}
	srv := New(Step{Reply: reply}, Step{Reply: reply})
	defer srv.Close()

	evs := stream(t, srv, "/chat/completions", map[string]any{"model": "llama", "stream": true, "stream_options": map[string]any{"include_usage": true}})
	if last := evs[len(evs)-1]; last.data != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", last.data)
	}
	evs = evs[:len(evs)-1]
	var content, reasoning string
	args := map[float64]string{}
	ids := map[float64]string{}
	var finish []any
	for i, e := range evs {
		if e.json["object"] != "chat.completion.chunk" || e.json["id"] != "chatcmpl-1" || e.json["model"] != "llama" {
			t.Errorf("chunk %d: %s", i, e.data)
		}
		if get(e.json, "choices", 0) == nil {
			continue
		}
		d := get(e.json, "choices", 0, "delta")
		if s, ok := get(d, "content").(string); ok {
			content += s
		}
		if s, ok := get(d, "reasoning_content").(string); ok {
			reasoning += s
		}
		for _, tc := range mustList(get(d, "tool_calls")) {
			idx := get(tc, "index").(float64)
			if id, ok := get(tc, "id").(string); ok {
				ids[idx] = id
			}
			args[idx] += get(tc, "function", "arguments").(string)
		}
		if f := get(e.json, "choices", 0, "finish_reason"); f != nil {
			finish = append(finish, f)
		}
	}
	if content != "Hello" || reasoning != "Hmm" {
		t.Errorf("content %q, reasoning %q", content, reasoning)
	}
	if ids[0] != "call_1" || ids[1] != "call_2" || args[0] != `{"path":"a"}` || args[1] != `{"input":"x\"y"}` {
		t.Errorf("tool calls: ids %v, args %v", ids, args)
	}
	if !reflect.DeepEqual(finish, []any{"tool_calls"}) {
		t.Errorf("finish reasons %v", finish)
	}
	usage := evs[len(evs)-1].json
	if get(usage, "usage", "prompt_tokens") != 3.0 || get(usage, "usage", "completion_tokens") != 2.0 || len(mustList(get(usage, "choices"))) != 0 {
		t.Errorf("usage chunk %v", usage)
	}

	// Without include_usage there is no usage chunk.
	evs = stream(t, srv, "/chat/completions", map[string]any{"stream": true})
	for _, e := range evs {
		if _, ok := e.json["usage"]; ok {
			t.Errorf("usage sent without include_usage: %s", e.data)
		}
	}
}

func mustList(v any) []any { l, _ := v.([]any); return l }

func TestFailuresAndRecording(t *testing.T) {
	srv := New(Step{
		Name: "flaky",
		Failures: []Failure{
			RateLimited("2"),
			{Status: 503, Body: "overloaded"},
		},
		Reply: Reply{Items: []Item{Message("ok")}},
	})
	defer srv.Close()
	body := map[string]any{"model": "m", "stream": true, "input": "hi"}

	res := post(t, srv.URL()+"/responses", body)
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "2" || !strings.Contains(string(b), `"error"`) {
		t.Errorf("first: %d %v %s", res.StatusCode, res.Header, b)
	}
	if res.Header.Get("x-should-retry") != "" {
		t.Error("an injected failure tells the client not to retry")
	}
	res = post(t, srv.URL()+"/responses", body)
	b, _ = io.ReadAll(res.Body)
	if res.StatusCode != 503 || string(b) != "overloaded" {
		t.Errorf("second: %d %s", res.StatusCode, b)
	}
	if srv.Remaining() != 1 {
		t.Errorf("remaining %d after the failures", srv.Remaining())
	}
	stream(t, srv, "/responses", body)
	if srv.Remaining() != 0 {
		t.Errorf("remaining %d after the reply", srv.Remaining())
	}

	// The script is exhausted: a clear error, not to be retried.
	res = post(t, srv.URL()+"/responses", body)
	b, _ = io.ReadAll(res.Body)
	if res.StatusCode != 500 || res.Header.Get("x-should-retry") != "false" || !strings.Contains(string(b), "script exhausted") {
		t.Errorf("exhausted: %d %v %s", res.StatusCode, res.Header, b)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	for i, r := range reqs {
		if r.Seq != i+1 || r.Method != "POST" || r.Path != "/v1/responses" || r.JSON["input"] != "hi" ||
			!strings.Contains(string(r.Body), `"input":"hi"`) || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %d: %+v", i, r)
		}
	}
	if reqs[0].Step != "flaky" || reqs[2].Step != "flaky" || reqs[3].Step != "" {
		t.Errorf("steps %q %q %q", reqs[0].Step, reqs[2].Step, reqs[3].Step)
	}
}

func TestRoutes(t *testing.T) {
	srv := New(Say("x"))
	defer srv.Close()
	res := post(t, srv.URL()+"/responses", map[string]any{"model": "m"})
	if b, _ := io.ReadAll(res.Body); res.StatusCode != 400 || !strings.Contains(string(b), "streaming") {
		t.Errorf("non-streaming: %d %s", res.StatusCode, b)
	}
	if srv.Remaining() != 1 || len(srv.Requests()) != 1 {
		t.Errorf("a bad request took a step: %d remaining, %d recorded", srv.Remaining(), len(srv.Requests()))
	}
	res = post(t, srv.URL()+"/embeddings", map[string]any{})
	if res.StatusCode != 404 {
		t.Errorf("unknown path: %d", res.StatusCode)
	}
	r, err := http.Get(srv.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if b, _ := io.ReadAll(r.Body); r.StatusCode != 200 || !strings.Contains(string(b), "fake-model") {
		t.Errorf("models: %d %s", r.StatusCode, b)
	}
}

// Steps with matchers route concurrent sessions; unmatched requests get a
// clear error.
func TestMatchRouting(t *testing.T) {
	byModel := func(m string) func(*Request) bool {
		return func(r *Request) bool { return r.JSON["model"] == m }
	}
	var steps []Step
	for _, m := range []string{"a", "b", "c", "d"} {
		for turn := range 3 {
			steps = append(steps, Step{Name: m, Match: byModel(m), Reply: Reply{Items: []Item{Message(fmt.Sprintf("%s%d", m, turn))}}})
		}
	}
	srv := New(steps...)
	defer srv.Close()
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for i, m := range []string{"d", "c", "b", "a"} {
		wg.Go(func() {
			for range 3 {
				res, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(`{"stream":true,"model":"`+m+`"}`))
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				for _, line := range strings.Split(string(b), "\n") {
					if strings.Contains(line, `"content":"`+m) {
						got[i] = append(got[i], line[strings.Index(line, `"content":"`)+11:][:2])
					}
				}
			}
		})
	}
	wg.Wait()
	for i, m := range []string{"d", "c", "b", "a"} {
		if want := []string{m + "0", m + "1", m + "2"}; !slices.Equal(got[i], want) {
			t.Errorf("session %s got %v, want %v", m, got[i], want)
		}
	}
	srv.Add(Step{Match: byModel("a"), Reply: Reply{Items: []Item{Message("late")}}})
	res := post(t, srv.URL()+"/responses", map[string]any{"stream": true, "model": "z"})
	if b, _ := io.ReadAll(res.Body); res.StatusCode != 500 || !strings.Contains(string(b), "no step matches request") {
		t.Errorf("unmatched: %d %s", res.StatusCode, b)
	}
	if srv.Remaining() != 1 {
		t.Errorf("remaining %d", srv.Remaining())
	}
}

func TestGate(t *testing.T) {
	gate := NewGate(3)
	srv := New(Step{Reply: Reply{Items: []Item{Message("a", "b", "c")}}, Gate: gate})
	defer srv.Close()
	res := post(t, srv.URL()+"/responses", map[string]any{"stream": true})
	r := bufio.NewReader(res.Body)
	// The events before the gate arrive while the stream is held.
	if evs := readEvents(t, r, 3); evs[2].json["type"] != "response.output_item.added" {
		t.Errorf("third event %v", evs[2].json["type"])
	}
	<-gate.Reached()
	gate.Release()
	gate.Release() // twice is fine
	evs := readEvents(t, r, -1)
	if last := evs[len(evs)-1].json["type"]; last != "response.completed" {
		t.Errorf("last event after release %v", last)
	}
}

func TestStreamFailures(t *testing.T) {
	srv := New(Step{
		Failures: []Failure{DisconnectAfter(2), TruncateAfter(3), StallAfter(1)},
		Reply:    Reply{Items: []Item{Message("a", "b")}},
		Pace:     time.Millisecond,
	})
	defer srv.Close()
	body := map[string]any{"stream": true}

	// Disconnect: two events, then the connection breaks.
	res := post(t, srv.URL()+"/responses", body)
	r := bufio.NewReader(res.Body)
	readEvents(t, r, 2)
	if _, err := io.ReadAll(r); err == nil {
		t.Error("disconnect: the stream ended cleanly")
	}
	// Truncate: three events, then a clean end.
	if evs := stream(t, srv, "/responses", body); len(evs) != 3 {
		t.Errorf("truncate: %d events", len(evs))
	}
	// Stall: one event, then silence until the server closes.
	res = post(t, srv.URL()+"/responses", body)
	r = bufio.NewReader(res.Body)
	readEvents(t, r, 1)
	done := make(chan struct{})
	go func() {
		_, _ = io.ReadAll(r)
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("stall: the stream ended")
	case <-time.After(50 * time.Millisecond):
	}
	srv.Close() // ends the stalled stream and returns
	<-done
	if srv.Remaining() != 1 {
		t.Errorf("remaining %d", srv.Remaining())
	}
}

func TestSplitAndWords(t *testing.T) {
	for _, s := range []string{"", "a", "héllo wörld", "日本語のテキスト", strings.Repeat("xy", 50)} {
		for _, n := range []int{0, 1, 2, 3, 7, 100} {
			chunks := Split(s, n)
			if strings.Join(chunks, "") != s {
				t.Errorf("Split(%q, %d) = %q", s, n, chunks)
			}
			if n > 0 && len(chunks) > n {
				t.Errorf("Split(%q, %d): %d chunks", s, n, len(chunks))
			}
			for _, c := range chunks {
				if !utf8Valid(c) {
					t.Errorf("Split(%q, %d) cut a rune: %q", s, n, c)
				}
			}
		}
	}
	if got := Words("Hello,  big world"); !slices.Equal(got, []string{"Hello,  ", "big ", "world"}) {
		t.Errorf("Words = %q", got)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\x00") == s }

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "nl\ncr\rtab\t", "\x00\x01\x1f\x7f", "日本 ü 🎉", "<&>", "\u2028"} {
		var got string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil || got != s {
			t.Errorf("%q: round trip %q, %v", s, got, err)
		}
	}
	var got string
	if err := json.Unmarshal(appendJSONString(nil, "a\xffb"), &got); err != nil || got != "a\uFFFDb" {
		t.Errorf("invalid UTF-8: %q, %v", got, err)
	}
}

func TestRespond(t *testing.T) {
	srv := New(Step{Respond: func(r *Request) Reply {
		return Reply{Items: []Item{Message("model was ", r.JSON["model"].(string))}}
	}})
	defer srv.Close()
	evs := stream(t, srv, "/responses", map[string]any{"stream": true, "model": "echo"})
	if got := get(evs[len(evs)-1].json, "response", "output", 0, "content", 0, "text"); got != "model was echo" {
		t.Errorf("text %v", got)
	}
}

// BenchmarkServerDeltas measures the server alone: text deltas per second
// of a 20,000-delta reply read raw over loopback.
func BenchmarkServerDeltas(b *testing.B) {
	const n = 20000
	chunks := make([]string, n)
	for i := range chunks {
		chunks[i] = "tok "
	}
	for _, path := range []string{"/responses", "/chat/completions"} {
		b.Run(path[1:], func(b *testing.B) {
			srv := New()
			defer srv.Close()
			b.ReportAllocs()
			for b.Loop() {
				srv.Add(Answer(Message(chunks...)))
				res, err := http.Post(srv.URL()+path, "application/json", strings.NewReader(`{"stream":true}`))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, res.Body); err != nil {
					b.Fatal(err)
				}
				res.Body.Close()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "deltas/s")
		})
	}
}
