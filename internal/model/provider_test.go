package model

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// A provider's headers, environment headers and query parameters reach
// the server with every request, on both wire APIs.
func TestProviderHeadersAndQuery(t *testing.T) {
	for _, wire := range []string{WireResponses, WireChat} {
		t.Run(wire, func(t *testing.T) {
			t.Setenv("AGENT_LS_TEST_ORG", "org-from-env")
			t.Setenv("AGENT_LS_TEST_EMPTY", "")
			srv := newFake(t, fakemodel.Say("one"), fakemodel.Say("two"))
			c := newClient(t, srv, wire, func(c *Config) {
				c.Provider = "company"
				c.APIKey = "sk-company"
				c.Headers = map[string]string{"X-Team": "editors"}
				c.EnvHTTPHeaders = map[string]string{
					"OpenAI-Organization": "AGENT_LS_TEST_ORG",
					"X-Empty":             "AGENT_LS_TEST_EMPTY",
					"X-Unset":             "AGENT_LS_TEST_UNSET_VARIABLE",
				}
				c.QueryParams = map[string]string{"api-version": "2025-04-01-preview", "tenant": "a b"}
			})
			// The environment was read by New: a later change is not seen.
			t.Setenv("AGENT_LS_TEST_ORG", "changed")
			for range 2 {
				if _, err := c.Stream(context.Background(), &Request{Model: "m"}, func(Event) {}); err != nil {
					t.Fatal(err)
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			for _, r := range reqs {
				for name, want := range map[string]string{
					"Authorization": "Bearer sk-company", "X-Team": "editors", "OpenAI-Organization": "org-from-env",
				} {
					if got := r.Header.Get(name); got != want {
						t.Errorf("request %d: %s = %q, want %q", r.Seq, name, got, want)
					}
				}
				for _, name := range []string{"X-Empty", "X-Unset"} {
					if v, ok := r.Header[http.CanonicalHeaderKey(name)]; ok {
						t.Errorf("request %d: %s sent (%q) though its variable is empty or unset", r.Seq, name, v)
					}
				}
				if got := r.Query.Get("api-version"); got != "2025-04-01-preview" {
					t.Errorf("request %d: api-version = %q", r.Seq, got)
				}
				if got := r.Query.Get("tenant"); got != "a b" {
					t.Errorf("request %d: tenant = %q", r.Seq, got)
				}
			}
		})
	}
}

// A provider that names its key's variable takes the key from it.
func TestProviderKeyFromEnvKey(t *testing.T) {
	t.Setenv("AGENT_LS_TEST_KEY", " sk-from-env ")
	srv := newFake(t, fakemodel.Say("ok"))
	c := newClient(t, srv, WireChat, func(c *Config) { c.Provider, c.EnvKey = "local", "AGENT_LS_TEST_KEY" })
	if _, err := c.Stream(context.Background(), &Request{Model: "m"}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-from-env" {
		t.Errorf("Authorization %q", got)
	}
}

// A provider whose key variable is unset fails at once, naming the
// variable and the provider, whatever its URL.
func TestProviderMissingEnvKey(t *testing.T) {
	for _, val := range []string{"", "  "} {
		t.Setenv("AGENT_LS_TEST_AZURE_KEY", val)
		c, err := New(Config{Provider: "azure", EnvKey: "AGENT_LS_TEST_AZURE_KEY", BaseURL: "https://example.openai.azure.com/openai",
			HTTPClient: &http.Client{Transport: failTransport{t}}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Stream(context.Background(), &Request{Model: "m"}, func(Event) { t.Error("event emitted") })
		want := `provider "azure": the environment variable AGENT_LS_TEST_AZURE_KEY is not set (it holds the provider's API key)`
		if err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
		if !errors.Is(err, ErrMissingAPIKey) {
			t.Errorf("error %v is not ErrMissingAPIKey", err)
		}
	}
}

// countingTransport counts the requests that go out.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// A base URL nobody listens on: every attempt fails to connect, and the
// error says which provider and URL, and why, with the cause wrapped.
func TestProviderConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	for _, wire := range []string{WireResponses, WireChat} {
		t.Run(wire, func(t *testing.T) {
			var count countingTransport
			c, err := New(Config{Provider: "ollama", WireAPI: wire, BaseURL: base, RequestMaxRetries: 2,
				HTTPClient: &http.Client{Transport: &count}})
			if err != nil {
				t.Fatal(err)
			}
			c.(*client).clock = &fakeClock{}
			var rec recorder
			_, err = c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
			want := `provider "ollama": cannot connect to ` + base + `: connection refused`
			if err == nil || !strings.HasSuffix(err.Error(), want) || !strings.Contains(err.Error(), "after 3 attempts") {
				t.Fatalf("error %v, want it to end with %q and count 3 attempts", err, want)
			}
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("the cause is not wrapped: %#v", err)
			}
			if n := count.n.Load(); n != 3 {
				t.Errorf("%d attempts, want 3", n)
			}
			if n := len(rec.of(Retrying)); n != 2 {
				t.Errorf("%d Retrying events, want 2", n)
			}
		})
	}
}

// Failures before a stream started count against RequestMaxRetries,
// failures of a started stream against StreamMaxRetries; a stream that
// started gives the requests after it a fresh budget.
func TestRetryLimits(t *testing.T) {
	truncate := func(wire string) fakemodel.Failure {
		if wire == WireChat {
			return fakemodel.TruncateAfter(3)
		}
		return fakemodel.TruncateAfter(6)
	}
	http503 := fakemodel.HTTPError(http.StatusServiceUnavailable)
	tests := []struct {
		name            string
		request, stream int
		failures        func(wire string) []fakemodel.Failure
		attempts        int
		ok              bool
		wantErr         string
	}{
		{"request limit", 2, 5, func(string) []fakemodel.Failure { return fakemodel.Times(10, http503) }, 3, false, "503"},
		{"stream limit", 5, 2, func(w string) []fakemodel.Failure { return fakemodel.Times(10, truncate(w)) }, 3, false, "ended before the response was complete"},
		{"request budget per stream", 2, 1, func(w string) []fakemodel.Failure {
			return []fakemodel.Failure{http503, http503, truncate(w), http503, http503, truncate(w), http503}
		}, 6, false, "ended before the response was complete"},
		{"success within both", 2, 1, func(w string) []fakemodel.Failure {
			return []fakemodel.Failure{http503, http503, truncate(w), http503, http503}
		}, 6, true, ""},
		{"no request retries", -1, 5, func(string) []fakemodel.Failure { return []fakemodel.Failure{http503} }, 1, false, "503"},
		{"no stream retries", 5, -1, func(w string) []fakemodel.Failure { return []fakemodel.Failure{truncate(w)} }, 1, false, "ended before"},
		{"defaults", 0, 0, func(string) []fakemodel.Failure { return fakemodel.Times(10, http503) }, 1 + DefaultRequestMaxRetries, false, "503"},
	}
	for _, tt := range tests {
		for _, wire := range []string{WireResponses, WireChat} {
			t.Run(tt.name+"/"+wire, func(t *testing.T) {
				srv := newFake(t, fakemodel.Step{Failures: tt.failures(wire), Reply: hello})
				c := newClient(t, srv, wire, func(c *Config) { c.RequestMaxRetries, c.StreamMaxRetries = tt.request, tt.stream })
				var rec recorder
				resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
				if n := len(srv.Requests()); n != tt.attempts {
					t.Errorf("%d attempts, want %d", n, tt.attempts)
				}
				if tt.ok {
					if err != nil || resp == nil || resp.Output[0].Text != "Hello, world!" {
						t.Fatalf("response %+v, error %v", resp, err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want it to mention %q", err, tt.wantErr)
				}
				if n := len(rec.of(Retrying)); n != tt.attempts-1 {
					t.Errorf("%d Retrying events, want %d", n, tt.attempts-1)
				}
			})
		}
	}
}

// With the idle timeout turned off no watchdog runs.
func TestNoIdleTimeout(t *testing.T) {
	srv := newFake(t, fakemodel.Say("ok"))
	c := newClient(t, srv, WireResponses, func(c *Config) { c.IdleTimeout = -1 })
	if _, err := c.Stream(context.Background(), &Request{Model: "m"}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if n := clockOf(t, c).timerCount(); n != 0 {
		t.Errorf("%d idle timers made", n)
	}
}
