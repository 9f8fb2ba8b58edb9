package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Events of a Responses stream that says "hi".
const (
	evHiDelta     = `{"type":"response.output_text.delta","output_index":0,"item_id":"m1","delta":"hi"}`
	evHiCompleted = `{"type":"response.completed","response":{"id":"r1","output":[{"type":"message","id":"m1","role":"assistant","content":[{"type":"output_text","text":"hi"}]}],"usage":{"input_tokens":3,"output_tokens":1}}}`
)

// rawServer serves every request with handle, counting the requests.
func rawServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handle(w, r, int(n.Add(1)))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// rawClient is a client of srv on a fake clock.
func rawClient(t *testing.T, srv *httptest.Server, wire string, edit ...func(*Config)) Client {
	t.Helper()
	cfg := Config{WireAPI: wire, BaseURL: srv.URL + "/v1"}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.(*client).clock = &fakeClock{}
	return c
}

func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
	}
}

func streamText(t *testing.T, c Client) (string, *Response, error) {
	t.Helper()
	var rec recorder
	resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
	var b strings.Builder
	for _, e := range rec.of(TextDelta) {
		b.WriteString(e.Delta)
	}
	return b.String(), resp, err
}

// The request line and headers of both wire APIs.
func TestWireRequestHeaders(t *testing.T) {
	for wire, path := range map[string]string{WireResponses: "/v1/responses", WireChat: "/v1/chat/completions"} {
		t.Run(wire, func(t *testing.T) {
			var got *http.Request
			var body []byte
			srv, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				got, body = r, must(io.ReadAll(r.Body))
				w.WriteHeader(http.StatusBadRequest)
			})
			c := rawClient(t, srv, wire, func(c *Config) {
				c.APIKey = "sk-1"
				c.BaseURL += "/?keep=1"
				c.QueryParams = map[string]string{"api-version": "v"}
			})
			_, _, _ = streamText(t, c)
			if got.Method != http.MethodPost || got.URL.Path != path {
				t.Errorf("%s %s", got.Method, got.URL.Path)
			}
			if q := got.URL.Query(); q.Get("api-version") != "v" || q.Get("keep") != "1" {
				t.Errorf("query %q", got.URL.RawQuery)
			}
			for name, want := range map[string]string{
				"Content-Type": "application/json", "Accept": "text/event-stream", "Authorization": "Bearer sk-1",
			} {
				if v := got.Header.Get(name); v != want {
					t.Errorf("%s = %q, want %q", name, v, want)
				}
			}
			if ua := got.Header.Get("User-Agent"); !strings.HasPrefix(ua, "agent-ls") {
				t.Errorf("User-Agent %q", ua)
			}
			if got.ContentLength != int64(len(body)) || !strings.Contains(string(body), `"stream":true`) {
				t.Errorf("content length %d, body %s", got.ContentLength, body)
			}
		})
	}
}

// A provider's headers replace the client's own: an Authorization of
// another scheme, a User-Agent.
func TestWireProviderHeadersWin(t *testing.T) {
	var got http.Header
	srv, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		got = r.Header.Clone()
		sse(w, evHiDelta, evHiCompleted)
	})
	c := rawClient(t, srv, WireResponses, func(c *Config) {
		c.APIKey = "sk-1"
		c.UserAgent = "agent-ls/1.2.3"
		c.Headers = map[string]string{"authorization": "Token abc", "User-Agent": "corp-proxy/1"}
	})
	if _, _, err := streamText(t, c); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Token abc" || got.Get("User-Agent") != "corp-proxy/1" {
		t.Errorf("headers %v", got)
	}
	// Without the provider's, the configured User-Agent goes.
	c = rawClient(t, srv, WireResponses, func(c *Config) { c.UserAgent = "agent-ls/1.2.3" })
	if _, _, err := streamText(t, c); err != nil {
		t.Fatal(err)
	}
	if ua := got.Get("User-Agent"); ua != "agent-ls/1.2.3" {
		t.Errorf("User-Agent %q, want the configured one", ua)
	}
}

// A redirect within the base URL's origin is followed, with the body; one
// to another origin is not (the key would go along), and fails at once.
func TestWireRedirects(t *testing.T) {
	var leaked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked.Add(1) }))
	defer other.Close()
	srv, n := rawServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch r.URL.Path {
		case "/v1/responses":
			http.Redirect(w, r, "/v2/responses", http.StatusTemporaryRedirect)
		case "/v2/responses":
			if b := must(io.ReadAll(r.Body)); !strings.Contains(string(b), `"model":"m"`) {
				t.Errorf("redirected body %s", b)
			}
			sse(w, evHiDelta, evHiCompleted)
		case "/away/v1/responses":
			http.Redirect(w, r, other.URL+"/v1/responses", http.StatusTemporaryRedirect)
		}
	})
	text, _, err := streamText(t, rawClient(t, srv, WireResponses, func(c *Config) { c.APIKey = "sk-1" }))
	if err != nil || text != "hi" {
		t.Fatalf("text %q, error %v", text, err)
	}
	n.Store(0)
	_, _, err = streamText(t, rawClient(t, srv, WireResponses, func(c *Config) { c.APIKey = "sk-1"; c.BaseURL = srv.URL + "/away/v1" }))
	var me *Error
	if !errors.As(err, &me) || me.StatusCode != http.StatusTemporaryRedirect || !strings.Contains(err.Error(), "not followed") {
		t.Errorf("error %v", err)
	}
	if leaked.Load() != 0 || n.Load() != 1 {
		t.Errorf("%d requests reached the other origin, %d the server", leaked.Load(), n.Load())
	}
}

// What a hostile or broken server may send after a 200, on both wires:
// each case fails clearly, and only what a retry may fix is retried.
func TestWireHostileStreams(t *testing.T) {
	chatHi := `{"id":"c1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`
	tests := []struct {
		name     string
		first    func(w http.ResponseWriter) // the first answer; later ones succeed
		wantErr  string                      // "" when the request succeeds, retried or not
		requests int64
	}{
		{"error key", func(w http.ResponseWriter) {
			sse(w, `{"error":{"message":"model overloaded","code":"server_error"}}`)
		}, "", 2},
		{"error key, not retryable", func(w http.ResponseWriter) {
			sse(w, `{"error":{"message":"bad key","code":"invalid_api_key"}}`)
		}, "bad key (invalid_api_key)", 1},
		{"error key as a string", func(w http.ResponseWriter) {
			sse(w, `{"error":"quota gone","code":"insufficient_quota"}`)
		}, "quota gone", 1},
		{"malformed JSON", func(w http.ResponseWriter) {
			sse(w, `{"type":"response.output_text.delta",`)
		}, "malformed event", 1},
		{"fields of the wrong kind", func(w http.ResponseWriter) {
			sse(w, `{"type":"response.output_text.delta","delta":5,"choices":"x"}`)
		}, "malformed event", 1},
		{"not JSON at all", func(w http.ResponseWriter) {
			sse(w, `hello there`)
		}, "malformed event", 1},
		{"cut inside the last event", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"de")
		}, "", 2},
		{"ends without completing", func(w http.ResponseWriter) {
			sse(w, evHiDelta)
		}, "", 2},
		{"HTML page with 200", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<!doctype html>\n<html><title>Sign in to the proxy</title></html>\n")
		}, "not an event stream (text/html; charset=utf-8): <!doctype html>", 1},
		{"JSON error with 200", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"error":{"message":"unknown model","type":"invalid_request_error"}}`)
		}, "unknown model", 1},
		{"endless line", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: ")
			chunk := strings.Repeat("a", 64<<10)
			for range (2 << 20) / len(chunk) {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}, "larger than", 1},
	}
	defer func(n int) { maxEventBytes = n }(maxEventBytes)
	maxEventBytes = 1 << 20
	for _, tt := range tests {
		for _, wire := range []string{WireResponses, WireChat} {
			t.Run(tt.name+"/"+wire, func(t *testing.T) {
				srv, n := rawServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
					switch {
					case n == 1:
						tt.first(w)
					case wire == WireChat:
						sse(w, chatHi, "[DONE]")
					default:
						sse(w, evHiDelta, evHiCompleted)
					}
				})
				text, _, err := streamText(t, rawClient(t, srv, wire))
				if tt.wantErr == "" {
					if err != nil || text != "hi" {
						t.Errorf("text %q, error %v", text, err)
					}
				} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one with %q", err, tt.wantErr)
				}
				if n.Load() != tt.requests {
					t.Errorf("%d requests, want %d", n.Load(), tt.requests)
				}
			})
		}
	}
}

// Events that end without their blank line, "error": null, comments,
// CRLF and an event stream under another content type all work; so does
// a 10 MB delta.
func TestWireLenientStreams(t *testing.T) {
	big := strings.Repeat("é", 5<<20)
	tests := []struct {
		name string
		body string
		ct   string
		want string
	}{
		{"no blank line at the end", "data: " + evHiDelta + "\n\ndata: " + evHiCompleted, "text/event-stream", "hi"},
		{"CRLF and comments", ": ping\r\n\r\nevent: response.output_text.delta\r\ndata: " + evHiDelta + "\r\n\r\ndata: " + evHiCompleted + "\r\n\r\n", "text/event-stream", "hi"},
		{"null error key", "data: " + strings.Replace(evHiDelta, `{`, `{"error":null,`, 1) + "\n\ndata: " + evHiCompleted + "\n\n", "text/event-stream", "hi"},
		{"an event agent-ls does not read, of another shape", "data: {\"type\":\"response.audio.delta\",\"delta\":{\"x\":1},\"output_index\":\"0\"}\n\ndata: " + evHiDelta + "\n\ndata: " + evHiCompleted + "\n\n", "text/event-stream", "hi"},
		{"other content type", "data: " + evHiDelta + "\n\ndata: " + evHiCompleted + "\n\n", "text/plain", "hi"},
		{"10 MB delta", "data: " + strings.Replace(evHiDelta, `"hi"`, `"`+big+`"`, 1) + "\n\ndata: " + evHiCompleted + "\n\n", "text/event-stream", big},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := rawServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				w.Header().Set("Content-Type", tt.ct)
				io.WriteString(w, tt.body)
			})
			text, resp, err := streamText(t, rawClient(t, srv, WireResponses))
			if err != nil || text != tt.want || n.Load() != 1 {
				t.Fatalf("%d bytes of text, error %v, %d requests", len(text), err, n.Load())
			}
			if resp.ID != "r1" || resp.Usage.InputTokens != 3 || len(resp.Output) != 1 {
				t.Errorf("response %+v", resp)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestWireReusesTheConnection: a stream that ended as it should leaves its
// connection to the next request, on both wire APIs; one that stays open
// after its last event costs its connection, not the turn.
func TestWireReusesTheConnection(t *testing.T) {
	for _, wire := range []string{WireResponses, WireChat} {
		t.Run(wire, func(t *testing.T) {
			var conns atomic.Int64
			hold := make(chan struct{})
			defer close(hold)
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if wire == WireChat {
					sse(w, `{"choices":[{"index":0,"delta":{"content":"hi"}}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]")
				} else {
					sse(w, evHiDelta, evHiCompleted)
				}
				// The last event goes out on its own; the end of the
				// body follows a moment later, or not at all.
				w.(http.Flusher).Flush()
				if r.URL.Query().Get("hold") != "" {
					<-hold
				}
				time.Sleep(5 * time.Millisecond)
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)
			defer func(w time.Duration) { drainWait = w }(drainWait)
			drainWait = time.Hour // however slow the machine, the end comes first
			c := rawClient(t, srv, wire)
			for i := range 3 {
				if text, _, err := streamText(t, c); err != nil || text != "hi" {
					t.Fatalf("request %d: %q %v", i, text, err)
				}
			}
			if n := conns.Load(); n != 1 {
				t.Errorf("three requests took %d connections, want 1", n)
			}
			drainWait = time.Millisecond
			held := rawClient(t, srv, wire, func(cfg *Config) { cfg.QueryParams = map[string]string{"hold": "1"} })
			if text, _, err := streamText(t, held); err != nil || text != "hi" {
				t.Fatalf("a stream held open: %q %v", text, err)
			}
		})
	}
}
