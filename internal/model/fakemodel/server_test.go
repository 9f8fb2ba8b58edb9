package fakemodel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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

// With SkipDecoding a request's JSON holds only what the answers read,
// the answers are those of a full decoding, and a body that is no
// streaming JSON object is refused as before.
func TestSkipDecoding(t *testing.T) {
	srv := New(Say("hello"), Step{Match: func(r *Request) bool { return r.JSON["model"] == "m2" }, Reply: Reply{Items: []Item{Message("matched")}}})
	defer srv.Close()
	srv.SkipDecoding()
	evs := stream(t, srv, "/responses", map[string]any{"model": "m1", "stream": true, "instructions": "long", "tools": []any{map[string]any{"type": "function", "name": "f"}}})
	if m := get(evs[0].json, "response", "model"); m != "m1" {
		t.Errorf("the answer names the model %v, want m1", m)
	}
	evs = stream(t, srv, "/chat/completions", map[string]any{"model": "m2", "stream": true, "stream_options": map[string]any{"include_usage": true}})
	if get(evs[len(evs)-2].json, "usage") == nil {
		t.Errorf("stream_options.include_usage was not seen: %v", evs[len(evs)-2].data)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[0].JSON) != 2 || reqs[0].JSON["stream"] != true || !strings.Contains(string(reqs[0].Body), `"instructions"`) {
		t.Fatalf("recorded %d requests, the first %v", len(reqs), reqs[0].JSON)
	}
	if reqs[1].Step != "#2" {
		t.Errorf("the matching step did not serve the second request: %q", reqs[1].Step)
	}
	res := post(t, srv.URL()+"/responses", map[string]any{"model": "m", "stream": false})
	if b, _ := io.ReadAll(res.Body); res.StatusCode != 400 || !strings.Contains(string(b), "streaming") {
		t.Errorf("non-streaming: %d %s", res.StatusCode, b)
	}
	res = post(t, srv.URL()+"/responses", []any{"stream", true})
	if b, _ := io.ReadAll(res.Body); res.StatusCode != 400 || !strings.Contains(string(b), "not a JSON object") {
		t.Errorf("not an object: %d %s", res.StatusCode, b)
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
