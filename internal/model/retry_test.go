package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

var hello = fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("Hello, ", "world", "!")}}

// expectRetriedOnce checks a stream that failed once and then succeeded:
// one Retrying event, before the delivered text, the text once.
func expectRetriedOnce(t *testing.T, c Client, rec *recorder, resp *Response, srv *fakemodel.Server, cause string) RetryInfo {
	t.Helper()
	retries := rec.of(Retrying)
	if len(retries) != 1 {
		t.Fatalf("%d Retrying events, want 1: %+v", len(retries), rec.events)
	}
	r := *retries[0].Retry
	if r.Attempt != 2 {
		t.Errorf("Retrying attempt %d, want 2", r.Attempt)
	}
	if !strings.Contains(r.Message, cause) {
		t.Errorf("Retrying message %q does not mention %q", r.Message, cause)
	}
	ids := rec.deltaItems(TextDelta)
	if len(ids) != 1 || rec.deltas(TextDelta, ids[0]) != "Hello, world!" {
		t.Errorf("text deltas %+v", rec.of(TextDelta))
	}
	if resp == nil || len(resp.Output) != 1 || resp.Output[0].Text != "Hello, world!" {
		t.Errorf("response %+v", resp)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d steps unused", srv.Remaining())
	}
	// The client waited, once, the delay it announced.
	if slept := clockOf(t, c).sleeps(); len(slept) != 1 || slept[0].Milliseconds() != r.DelayMs {
		t.Errorf("slept %v, announced %dms", slept, r.DelayMs)
	}
	return r
}

func TestRetryHTTPStatus(t *testing.T) {
	for _, status := range []int{500, 502, 503, 408, 409, 429} {
		for _, wire := range []string{WireResponses, WireChat} {
			t.Run(fmt.Sprintf("%d/%s", status, wire), func(t *testing.T) {
				srv := newFake(t, fakemodel.Step{Failures: []fakemodel.Failure{fakemodel.HTTPError(status)}, Reply: hello})
				c := newClient(t, srv, wire)
				var rec recorder
				resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
				if err != nil {
					t.Fatal(err)
				}
				expectRetriedOnce(t, c, &rec, resp, srv, fmt.Sprint(status))
			})
		}
	}
}

func TestRetryAfterHeaders(t *testing.T) {
	tests := []struct {
		header http.Header
		wantMs int64
	}{
		{http.Header{"Retry-After": {"1"}}, 1000},
		{http.Header{"Retry-After-Ms": {"7"}}, 7},
		{http.Header{"Retry-After-Ms": {"5"}, "Retry-After": {"30"}}, 5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.header), func(t *testing.T) {
			srv := newFake(t, fakemodel.Step{
				Failures: []fakemodel.Failure{{Status: http.StatusTooManyRequests, Header: tt.header,
					Body: `{"error":{"message":"Rate limit reached","type":"rate_limit_error","code":"rate_limit_exceeded"}}`}},
				Reply: hello,
			})
			c := newClient(t, srv, WireResponses)
			var rec recorder
			resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			r := expectRetriedOnce(t, c, &rec, resp, srv, "Rate limit reached")
			if r.DelayMs != tt.wantMs {
				t.Errorf("delay %dms, want %dms", r.DelayMs, tt.wantMs)
			}
		})
	}
}

func TestRetryPlainTextErrorBody(t *testing.T) {
	srv := newFake(t, fakemodel.Step{
		Failures: []fakemodel.Failure{{Status: http.StatusBadGateway, Body: "upstream connect error"}},
		Reply:    hello,
	})
	c := newClient(t, srv, WireChat)
	var rec recorder
	resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	expectRetriedOnce(t, c, &rec, resp, srv, "502 Bad Gateway: upstream connect error")
}

func TestRetryBrokenStreams(t *testing.T) {
	// Event counts: Responses sends created, in_progress, output_item.added
	// and content_part.added before the deltas, then output_text.done,
	// content_part.done, output_item.done and completed; Chat sends a role
	// chunk before the deltas, then the finish_reason chunk.
	tests := []struct {
		name            string
		mode            fakemodel.FailMode
		responses, chat int // events before the failure
		cause           string
	}{
		{"disconnect before any event", fakemodel.Disconnect, 0, 0, "model stream broke"},
		{"disconnect mid-text", fakemodel.Disconnect, 6, 3, "model stream broke"},
		{"clean end mid-text", fakemodel.Truncate, 6, 3, "ended before the response was complete"},
		{"clean end after the text", fakemodel.Truncate, deltasEnd(3) + 3, 4, "ended before the response was complete"},
	}
	for _, tt := range tests {
		for _, wire := range []string{WireResponses, WireChat} {
			t.Run(tt.name+"/"+wire, func(t *testing.T) {
				f := fakemodel.Failure{Mode: tt.mode, AfterEvents: tt.responses}
				if wire == WireChat {
					f.AfterEvents = tt.chat
				}
				srv := newFake(t, fakemodel.Step{Failures: []fakemodel.Failure{f}, Reply: hello})
				c := newClient(t, srv, wire)
				var rec recorder
				resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
				if err != nil {
					t.Fatal(err)
				}
				expectRetriedOnce(t, c, &rec, resp, srv, tt.cause)
			})
		}
	}
}

// A stream that goes silent after the first text delta is abandoned once
// the idle timeout passes, and retried.
func TestRetryStall(t *testing.T) {
	// Events up to and including the first text delta: Responses sends
	// created, in_progress, output_item.added and content_part.added
	// before it; Chat a role chunk.
	for wire, events := range map[string]int{WireResponses: 5, WireChat: 2} {
		t.Run(wire, func(t *testing.T) {
			srv := newFake(t, fakemodel.Step{Failures: []fakemodel.Failure{fakemodel.StallAfter(events)}, Reply: hello})
			c := newClient(t, srv, wire, func(c *Config) { c.IdleTimeout = 500 * time.Millisecond })
			clock := clockOf(t, c)
			var rec recorder
			stalled := false
			resp, err := c.Stream(context.Background(), &Request{Model: "m"}, func(e Event) {
				rec.emit(e)
				if e.Kind == TextDelta && !stalled {
					// The server says nothing more on this attempt: the
					// client's next wait for it outlasts the timeout.
					stalled = true
					clock.stallNextWait()
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			expectRetriedOnce(t, c, &rec, resp, srv, "no data from the model server for 500ms")
		})
	}
}

// A slow caller is not a silent server: time spent in emit does not count
// toward the idle timeout.
func TestIdleTimeoutIgnoresSlowEmit(t *testing.T) {
	// The server holds the rest of the stream until the first delta has
	// been handled, so the attempt is still reading when the slow emit
	// returns.
	gate := fakemodel.NewGate(5)
	defer gate.Release()
	srv := newFake(t, fakemodel.Step{Reply: hello, Gate: gate})
	c := newClient(t, srv, WireResponses, func(c *Config) { c.IdleTimeout = 400 * time.Millisecond })
	clock := clockOf(t, c)
	var rec recorder
	_, err := c.Stream(context.Background(), &Request{Model: "m"}, func(e Event) {
		if n := clock.armed(); n != 0 {
			t.Errorf("%d idle timers run while the caller handles a %v event", n, e.Kind)
		}
		if e.Kind == TextDelta {
			clock.advance(time.Hour) // a caller far slower than the timeout
			gate.Release()
		}
		rec.emit(e)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.of(Retrying)); n != 0 {
		t.Errorf("%d retries caused by a slow emit", n)
	}
}

func TestRetriesExhausted(t *testing.T) {
	srv := newFake(t, fakemodel.Step{
		Failures: fakemodel.Times(4, fakemodel.Failure{Status: http.StatusServiceUnavailable,
			Body: `{"error":{"message":"The engine is currently overloaded","type":"server_error","code":null}}`}),
		Reply: hello,
	})
	c := newClient(t, srv, WireResponses, func(c *Config) { c.RequestMaxRetries = 3 })
	var rec recorder
	_, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"after 4 attempts", "503", "The engine is currently overloaded"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	var me *Error
	if !errors.As(err, &me) || me.StatusCode != 503 {
		t.Errorf("error does not wrap the server's *Error: %#v", err)
	}
	retries := rec.of(Retrying)
	if len(retries) != 3 {
		t.Fatalf("%d Retrying events, want 3", len(retries))
	}
	// The waits are the announced ones, growing from the default base
	// delay (±20% jitter).
	slept := clockOf(t, c).sleeps()
	for i, r := range retries {
		want := DefaultRetryBaseDelay << i
		if r.Retry.Attempt != i+2 || i >= len(slept) || slept[i].Milliseconds() != r.Retry.DelayMs ||
			slept[i] < want*8/10 || slept[i] > want*12/10 {
			t.Errorf("retry %d: %+v, slept %v, want %v ±20%%", i, r.Retry, slept, want)
		}
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}

func TestNoRetry(t *testing.T) {
	tests := []struct {
		name    string
		failure fakemodel.Failure
		want    string
	}{
		{"bad request", fakemodel.Failure{Status: 400, Body: `{"error":{"message":"Invalid schema for function 'f'","type":"invalid_request_error","param":"tools[0]","code":"invalid_function_parameters"}}`},
			"400 Bad Request: Invalid schema for function 'f' (invalid_function_parameters)"},
		{"unauthorized", fakemodel.Failure{Status: 401, Body: `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`},
			"Incorrect API key provided"},
		{"not found", fakemodel.HTTPError(404), "404"},
		{"server says no", fakemodel.Failure{Status: 500, Header: http.Header{"X-Should-Retry": {"false"}}}, "500"},
		{"long retry-after", fakemodel.Failure{Status: 429, Header: http.Header{"Retry-After": {"86400"}}}, "429"},
		{"quota", fakemodel.Failure{Status: 429, Body: `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`},
			"You exceeded your current quota"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFake(t, fakemodel.Step{Failures: []fakemodel.Failure{tt.failure}, Reply: hello})
			c := newClient(t, srv, WireResponses)
			var rec recorder
			_, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to mention %q", err, tt.want)
			}
			if len(rec.events) != 0 || len(srv.Requests()) != 1 {
				t.Errorf("retried: %d events, %d requests", len(rec.events), len(srv.Requests()))
			}
		})
	}
}

// The fake's own errors (script exhausted) tell the client not to retry.
func TestScriptExhaustedFailsAtOnce(t *testing.T) {
	srv := newFake(t)
	c := newClient(t, srv, WireResponses)
	_, err := c.Stream(context.Background(), &Request{Model: "m"}, func(Event) {})
	if err == nil || !strings.Contains(err.Error(), "script exhausted") {
		t.Fatalf("error %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}

// A request to OpenAI without a key fails before any network traffic.
func TestMissingKeyFailsFast(t *testing.T) {
	for _, base := range []string{"", "https://api.openai.com/v1", "https://us.api.openai.com/v1/"} {
		c, err := New(Config{BaseURL: base, HTTPClient: &http.Client{Transport: failTransport{t}}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Stream(context.Background(), &Request{Model: "m"}, func(Event) { t.Error("event emitted") })
		if !errors.Is(err, ErrMissingAPIKey) {
			t.Errorf("base %q: error %v, want ErrMissingAPIKey", base, err)
		}
	}
	if msg := ErrMissingAPIKey.Error(); !strings.Contains(msg, "OPENAI_API_KEY") || !strings.Contains(msg, "OPENAI_BASE_URL") {
		t.Errorf("message does not say how to fix it: %q", msg)
	}
}

type failTransport struct{ t *testing.T }

func (f failTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("network used: %s %s", r.Method, r.URL)
	return nil, errors.New("no network")
}

func TestCancelDuringStream(t *testing.T) {
	for _, wire := range []string{WireResponses, WireChat} {
		t.Run(wire, func(t *testing.T) {
			gate := fakemodel.NewGate(5)
			defer gate.Release()
			srv := newFake(t, fakemodel.Step{Reply: hello, Gate: gate})
			c := newClient(t, srv, wire)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-gate.Reached()
				cancel()
			}()
			var rec recorder
			_, err := c.Stream(ctx, &Request{Model: "m"}, rec.emit)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if n := len(rec.of(Retrying)); n != 0 {
				t.Errorf("%d retries after cancel", n)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests", n)
			}
		})
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := newFake(t, fakemodel.Step{Failures: []fakemodel.Failure{fakemodel.HTTPError(500)}, Reply: hello})
	c := newClient(t, srv, WireResponses, func(c *Config) { c.RetryBaseDelay, c.RetryMaxDelay = time.Hour, time.Hour })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := c.Stream(ctx, &Request{Model: "m"}, func(e Event) {
		if e.Kind == Retrying {
			cancel() // the client is about to sleep for an hour
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestBackoff(t *testing.T) {
	base, most := 200*time.Millisecond, 10*time.Second
	for n := 1; n <= 40; n++ {
		want := most
		if n <= 6 {
			want = base << (n - 1)
		}
		d := backoff(base, most, n)
		if d < want*8/10 || d > min(want*12/10, most) {
			t.Errorf("backoff(%d) = %v, want %v ±20%%", n, d, want)
		}
	}
}

func TestConfig(t *testing.T) {
	t.Setenv(EnvAPIKey, " sk-env ")
	t.Setenv(EnvBaseURL, "http://127.0.0.1:11434/v1")
	t.Setenv(EnvWireAPI, "Chat")
	cfg := ConfigFromEnv()
	if cfg.APIKey != "sk-env" || cfg.BaseURL != "http://127.0.0.1:11434/v1" || cfg.WireAPI != WireChat {
		t.Errorf("ConfigFromEnv = %+v", cfg)
	}
	full, err := Config{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if full.WireAPI != WireResponses || full.BaseURL != DefaultBaseURL || full.RequestMaxRetries != DefaultRequestMaxRetries ||
		full.StreamMaxRetries != DefaultStreamMaxRetries || full.IdleTimeout != DefaultIdleTimeout || full.HTTPClient == nil {
		t.Errorf("defaults: %+v", full)
	}
	none, _ := (Config{RequestMaxRetries: -1, StreamMaxRetries: -5, IdleTimeout: -time.Second}).withDefaults()
	if none.RequestMaxRetries != 0 || none.StreamMaxRetries != 0 || none.IdleTimeout != 0 {
		t.Errorf("negative values give %d request retries, %d stream retries, idle timeout %v; want none",
			none.RequestMaxRetries, none.StreamMaxRetries, none.IdleTimeout)
	}
	capped, _ := (Config{RequestMaxRetries: 1000, StreamMaxRetries: 101}).withDefaults()
	if capped.RequestMaxRetries != MaxRetriesCap || capped.StreamMaxRetries != MaxRetriesCap {
		t.Errorf("retries not capped at %d: %d, %d", MaxRetriesCap, capped.RequestMaxRetries, capped.StreamMaxRetries)
	}
	for _, bad := range []Config{{WireAPI: "grpc"}, {BaseURL: "localhost:8080"}, {BaseURL: "ftp://x/v1"}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) accepted", bad)
		}
	}
}

func TestParseErrorBody(t *testing.T) {
	tests := []struct{ body, code, msg string }{
		{`{"error":{"message":"m1","type":"t1","code":"c1"}}`, "c1", "m1"},
		{`{"error":{"message":"m2","type":"t2","code":null}}`, "t2", "m2"},
		{`{"error":"plain"}`, "", "plain"},
		{`{"message":"m3","code":429}`, "429", "m3"},
		{`{"detail":"Not Found"}`, "", "Not Found"},
		{"<html>Bad Gateway</html>", "", "<html>Bad Gateway</html>"},
	}
	for _, tt := range tests {
		code, msg := parseErrorBody([]byte(tt.body))
		if code != tt.code || msg != tt.msg {
			t.Errorf("parseErrorBody(%s) = %q, %q; want %q, %q", tt.body, code, msg, tt.code, tt.msg)
		}
	}
	if d := delayInMessage("Rate limit reached. Please try again in 1.5s. Visit ..."); d != 1500*time.Millisecond {
		t.Errorf("delay %v", d)
	}
	if d := delayInMessage("Please try again in 20ms."); d != 20*time.Millisecond {
		t.Errorf("delay %v", d)
	}
}
