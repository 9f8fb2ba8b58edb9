package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// endpoint is one wire API's URL of a provider and what goes with every
// request to it.
type endpoint struct {
	url       string
	header    http.Header // without User-Agent, added per request
	userAgent string
	http      *http.Client
	pre       *preconnector // nil: the client has its own transport
}

// newEndpoint returns the endpoint of path ("responses", "chat/completions")
// under cfg's base URL: the provider's query parameters added to the URL,
// its key and headers (the environment's read now, once) to the header.
func newEndpoint(cfg *Config, path string, hc *http.Client) (endpoint, error) {
	base, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return endpoint{}, fmt.Errorf("model: bad base URL %q: %w", cfg.BaseURL, err)
	}
	u := base.JoinPath(path)
	if len(cfg.QueryParams) > 0 {
		q := u.Query()
		for k, v := range cfg.QueryParams {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	if cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	// The provider's own headers come last: they may replace any of the
	// above (an Authorization of another scheme, say).
	for k, v := range cfg.Headers {
		h.Set(k, v)
	}
	for k, env := range cfg.EnvHTTPHeaders {
		if v := strings.TrimSpace(os.Getenv(env)); v != "" {
			h.Set(k, v)
		}
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = userAgent()
	}
	return endpoint{url: u.String(), header: h, userAgent: ua, http: hc, pre: newPreconnector(hc, u.String())}, nil
}

// sameOriginClient returns a copy of hc that follows redirects only
// within base's origin (scheme, host and port): the requests carry the
// provider's key and headers, which another site must not see. A redirect
// elsewhere is returned as the response, and fails the request.
func sameOriginClient(hc *http.Client, base string) *http.Client {
	origin, _ := url.Parse(base)
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if origin == nil || !strings.EqualFold(req.URL.Scheme, origin.Scheme) || !strings.EqualFold(req.URL.Host, origin.Host) {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// userAgent names agent-ls and, when the build knows it, its version.
var userAgent = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return "agent-ls/" + bi.Main.Version
	}
	return "agent-ls"
})

// post sends one streaming request with body and returns the response
// whose body is the event stream. A response with an error status is
// captured in at.http (status, headers, the start of the body) and
// returned as the *Error it stands for.
func (e *endpoint) post(ctx context.Context, body []byte, at *attempt) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = e.header.Clone()
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", e.userAgent)
	}
	e.pre.used()
	res, err := e.http.Do(req)
	if err != nil {
		return nil, err
	}
	at.http.responded = true
	if res.StatusCode >= 300 {
		at.http.capture(res)
		return nil, at.http.err()
	}
	at.rateLimits = rateLimits(res.Header)
	return res, nil
}

// events reads the event stream of res, calling handle with the data of
// each event until handle says it is done or fails, the stream ends
// ([DONE] or its end), or it breaks. unterminated tells handle that the
// stream ended inside the event, which may be cut short (see badEvent).
// A successful response that holds no event and does not call itself an
// event stream fails (see notEventStream).
func events(res *http.Response, at *attempt, handle func(data []byte, unterminated bool) (done bool, err error)) error {
	defer res.Body.Close()
	sse := newSSEReader(res.Body)
	for {
		at.idle.arm()
		ev, err := sse.next()
		at.idle.disarm()
		if err == io.EOF {
			if sse.events == 0 {
				if err := notEventStream(res, sse.head); err != nil {
					return err
				}
			}
			return nil
		}
		if err != nil {
			return err
		}
		if bytes.HasPrefix(ev.data, []byte("[DONE]")) {
			finish(res.Body)
			return nil
		}
		done, err := handle(ev.data, ev.unterminated)
		if err != nil || done {
			if err == nil {
				finish(res.Body)
			}
			return err
		}
	}
}

// What finish reads at most, and waits at most for, after a stream's last
// event.
const drainBytes = 64 << 10

var drainWait = 50 * time.Millisecond

// finish reads what is left of a stream that ended as it should: on
// HTTP/1.1 the chunked encoding's last chunk, which has usually arrived
// with the last event. A body closed before its end closes its connection
// too, and the next request of the turn would open another one (a TLS
// handshake, to a server that is not on this machine). A server that
// keeps the stream open after its last event gets drainWait, then the
// connection is dropped.
func finish(body io.ReadCloser) {
	t := time.AfterFunc(drainWait, func() { body.Close() })
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainBytes))
	t.Stop()
}

// eventError returns the error an event with a top-level, non-null
// "error" key carries, or nil.
func eventError(data []byte) error {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &v) != nil || !hasError(v.Error) {
		return nil
	}
	return streamError(data, v.Error)
}

// hasError reports whether an event's "error" value is one: present and
// not null.
func hasError(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// badEvent is the error for an event whose data could not be decoded: a
// stream cut inside its last event is truncated (and retried); otherwise
// the server speaks something else (not retried).
func badEvent(data []byte, unterminated bool, err error) error {
	if unterminated {
		return errTruncated
	}
	if e := eventError(data); e != nil {
		return e
	}
	return &malformedEventError{data: textcut.Cut(string(data), 200), err: err}
}

// malformedEventError is an event whose data is not the JSON expected.
type malformedEventError struct {
	data string
	err  error
}

func (e *malformedEventError) Error() string {
	return fmt.Sprintf("model stream: malformed event %q: %v", e.data, e.err)
}

func (e *malformedEventError) Unwrap() error { return e.err }

// notEventStream returns the error for a successful response that carried
// no event at all when it does not say it is an event stream: a JSON
// error document, or an HTML page from a proxy or a web UI at the base
// URL. A declared event stream without events is simply cut short.
func notEventStream(res *http.Response, head []byte) error {
	ct := res.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "text/event-stream" {
		return nil
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil
	}
	code, msg := parseErrorBody(head)
	if ct == "" {
		ct = "no content type"
	}
	return &Error{StatusCode: res.StatusCode, Code: code, retryable: code != "" && retryableCode(code),
		Message: fmt.Sprintf("the answer is not an event stream (%s): %s", ct, msg)}
}
