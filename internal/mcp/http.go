package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// errSessionGone: the HTTP server no longer knows the session (it
// answered 404 to a request that carried it), so the connection must be
// made again.
var errSessionGone = fmt.Errorf("%w: the server no longer knows the session", errConnectionClosed)

// httpStatusError is an HTTP answer other than success, with the start
// of its body, which usually says why.
type httpStatusError struct {
	status string
	body   string
}

func (e *httpStatusError) Error() string {
	if e.body == "" {
		return "HTTP " + e.status
	}
	return "HTTP " + e.status + ": " + e.body
}

// Bounds of the stream of server-initiated messages (the GET stream).
const (
	listenRetries = 3
	// listenHealthy is how long a stream must have lasted for its end to
	// count as a normal one (a proxy closing idle streams), not a failure.
	listenHealthy = time.Minute
)

// httpTransport is the streamable-HTTP transport (MCP 2025-11-25): every
// message is a POST to the endpoint; a request's answer is the POST's
// JSON body or comes on the event stream it opens; the server's own
// messages come on an optional GET stream.
type httpTransport struct {
	url     string
	headers http.Header // the configured ones, the bearer token among them
	client  *http.Client
	log     *slog.Logger
	rcv     receiver
	// max bounds one message, a body or an event: maxMessageBytes.
	max int

	// ctx is the transport's life: the GET stream ends with it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	session string // Mcp-Session-Id, once the server gave one
	version string // MCP-Protocol-Version, once agreed on
	gone    bool   // the server forgot the session
}

func newHTTPTransport(url string, headers http.Header, log *slog.Logger) *httpTransport {
	ctx, cancel := context.WithCancel(context.Background())
	return &httpTransport{url: url, headers: headers, log: log, ctx: ctx, cancel: cancel, max: maxMessageBytes,
		client: &http.Client{Transport: http.DefaultTransport, CheckRedirect: sameOrigin}}
}

// sameOrigin follows a redirect only within the server's own scheme and
// host: the headers set on the request (the bearer token, other secrets
// the config gives) are forwarded by http.Client to where it redirects,
// and they are meant for the configured server alone.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if first := via[0].URL; req.URL.Host != first.Host || req.URL.Scheme != first.Scheme {
		return fmt.Errorf("the server redirects to %s, another origin, which is not followed: its headers and token are for %s://%s only",
			req.URL.Redacted(), first.Scheme, first.Host)
	}
	return nil
}

func (t *httpTransport) start(r receiver) { t.rcv = r }

// setProtocolVersion records the version agreed on in the handshake; it
// goes with every request from now on.
func (t *httpTransport) setProtocolVersion(v string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.version = v
}

// newRequest is a request to the endpoint with the configured headers,
// the session and the protocol version.
func (t *httpTransport) newRequest(ctx context.Context, method string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url, r)
	if err != nil {
		return nil, err
	}
	for k, vs := range t.headers {
		req.Header[k] = vs
	}
	t.mu.Lock()
	if t.session != "" {
		req.Header.Set("Mcp-Session-Id", t.session)
	}
	if t.version != "" {
		req.Header.Set("MCP-Protocol-Version", t.version)
	}
	t.mu.Unlock()
	return req, nil
}

func (t *httpTransport) send(ctx context.Context, msg *outgoing) error {
	req, err := t.newRequest(ctx, http.MethodPost, msg.data)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", errConnectionClosed, err)
	}
	defer resp.Body.Close()
	t.mu.Lock()
	hadSession := t.session != ""
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && !hadSession {
		t.session = sid
	}
	t.mu.Unlock()
	if resp.StatusCode == http.StatusNotFound && hadSession {
		t.mu.Lock()
		t.gone = true
		t.mu.Unlock()
		return errSessionGone
	}
	if resp.StatusCode/100 != 2 {
		return t.statusError(resp, msg)
	}
	if !msg.call {
		// A notification or a response: 202 Accepted, no body to read.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(t.max)+1))
		if err != nil {
			return fmt.Errorf("%w: reading the answer: %w", errConnectionClosed, err)
		}
		if len(body) > t.max {
			return errMessageTooLarge
		}
		answered := answers(body, msg.id)
		t.rcv.handle(body)
		if !answered {
			return errors.New("the server's JSON answer does not answer the request")
		}
		return nil
	case "text/event-stream":
		answered := false
		err := readEvents(resp.Body, t.max, func(data []byte) bool {
			answered = answers(data, msg.id)
			t.rcv.handle(data)
			// The stream may stay open after the answer: it is not
			// awaited.
			return !answered
		})
		switch {
		case answered:
			return nil
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return fmt.Errorf("%w: the answer's event stream broke: %w", errConnectionClosed, err)
		}
		return fmt.Errorf("%w: the server ended the answer's event stream without the answer", errConnectionClosed)
	}
	return fmt.Errorf("the server answered with content type %q, neither JSON nor an event stream", ct)
}

// statusError reads a failed answer: a JSON-RPC error answering the
// request is the server's answer (it runs), anything else an
// *httpStatusError.
func (t *httpTransport) statusError(resp *http.Response, msg *outgoing) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if msg.call && answers(body, msg.id) {
		t.rcv.handle(body)
		return nil
	}
	return &httpStatusError{status: resp.Status, body: textcut.Cut(strings.TrimSpace(string(body)), 300)}
}

// answers reports whether raw is the answer to the request id, or a
// batch that holds it.
func answers(raw []byte, id int64) bool {
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '[' {
		var batch []json.RawMessage
		_ = json.Unmarshal(raw, &batch)
		return slices.ContainsFunc(batch, func(m json.RawMessage) bool { return answers(m, id) })
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Method != "" {
		return false
	}
	return string(bytes.TrimSpace(m.ID)) == strconv.FormatInt(id, 10)
}

// listen opens the stream of the server's own messages (list_changed)
// in the background. A server that offers none (405) is fine; a stream
// that breaks is opened again a few times, after a backoff, then given
// up quietly: tools are still listed at every start.
func (t *httpTransport) listen() {
	t.wg.Go(func() {
		failures := 0
		for failures < listenRetries {
			if sleep(t.ctx, backoff(failures)) != nil {
				return
			}
			began := time.Now()
			retry, err := t.listenOnce()
			if t.ctx.Err() != nil {
				return
			}
			if !retry {
				t.log.Debug("MCP server: no stream of server messages", "err", err)
				return
			}
			if time.Since(began) >= listenHealthy {
				failures = 0
			}
			failures++
			t.log.Debug("MCP server: the stream of server messages ended", "err", err, "failures", failures)
		}
	})
}

// listenOnce reads one GET stream until it ends. retry says whether
// opening it again may help.
func (t *httpTransport) listenOnce() (retry bool, err error) {
	req, err := t.newRequest(t.ctx, http.MethodGet, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := t.client.Do(req)
	if err != nil {
		return true, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// 405: the server offers no such stream. Other refusals are not
		// asked again either.
		return false, &httpStatusError{status: resp.Status}
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		return false, fmt.Errorf("the server's stream has content type %q", ct)
	}
	err = readEvents(resp.Body, t.max, func(data []byte) bool {
		t.rcv.handle(data)
		return true
	})
	return true, err
}

// close ends the GET stream and ends the session on the server (DELETE),
// at best: a server that does not answer within a second is left.
func (t *httpTransport) close() {
	t.cancel()
	t.wg.Wait()
	t.mu.Lock()
	session, gone := t.session, t.gone
	t.mu.Unlock()
	if session == "" || gone {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := t.newRequest(ctx, http.MethodDelete, nil)
	if err != nil {
		return
	}
	resp, err := t.client.Do(req)
	if err != nil {
		t.log.Debug("MCP server: ending the session failed", "err", err)
		return
	}
	resp.Body.Close()
}

// readEvents reads a text/event-stream and gives fn the data of each
// message event (a JSON-RPC message), until fn returns false or the
// stream ends (nil at its end). An event over max bytes is
// errMessageTooLarge.
func readEvents(r io.Reader, max int, fn func(data []byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	event := ""
	for {
		line, err := readLine(br, max)
		if err != nil && !(err == io.EOF && len(line) > 0) {
			if err == io.EOF {
				return nil
			}
			return err
		}
		switch {
		case len(line) == 0:
			// An empty line dispatches the event.
			if len(data) > 0 && (event == "" || event == "message") {
				if !fn(data) {
					return nil
				}
			}
			data, event = nil, ""
		case line[0] == ':':
			// A comment (a keep-alive).
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if len(data)+len(value) > max {
					return errMessageTooLarge
				}
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, value...)
				if data == nil {
					data = []byte{}
				}
			case "event":
				event = string(value)
			}
		}
		if err == io.EOF {
			// The stream ended without the empty line after its last
			// event, which is dropped, as the spec of event streams says.
			return nil
		}
	}
}
