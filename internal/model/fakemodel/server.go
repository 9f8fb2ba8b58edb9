// Package fakemodel is a scripted OpenAI server on the loopback interface.
// It speaks the streaming wire formats of the Responses API (POST
// /v1/responses) and of Chat Completions (POST /v1/chat/completions) as the
// real service does, so the real model client can be tested against it,
// and it is the built-in model of the offline demo.
//
// A script is a queue of Steps. Each request is served by the first step in
// the queue whose Match accepts it (a step without Match accepts any), so a
// plain script is a FIFO and concurrent sessions can be routed by request
// content. A step may fail some requests first (HTTP errors, streams that
// reset, end early or stall) and then streams its Reply, which removes it
// from the queue. A request that no step accepts gets a 500 whose JSON
// error names the problem (and says not to retry).
//
// Every request is recorded (Requests) for assertions, and logged as JSON
// lines when LogRequests is set; Remaining tells how many steps were never
// completed.
//
// # Scripts from outside Go
//
// Tests in other languages (editor tests) use one launcher, the fakemodel
// command under cmd/fakemodel, and one script format, Script: JSON read by
// ParseScript. The command prints the API root on its first stdout line
// and logs every request to a file:
//
//	go build -o fakemodel ./internal/model/fakemodel/cmd/fakemodel
//	./fakemodel -script turns.json -log requests.jsonl
//	# first line on stdout: http://127.0.0.1:PORT/v1 (OPENAI_BASE_URL)
//
// A script with a failed first attempt and two turns:
//
//	{"steps": [
//	  {"name": "read", "failures": [{"status": 503}],
//	   "reply": {"items": [
//	     {"type": "message", "text": "Reading the test."},
//	     {"type": "function_call", "name": "read_file", "arguments": {"file_path": "a_test.go"}}]}},
//	  {"name": "answer", "reply": {"items": [{"type": "message", "text": "Done."}]}}
//	]}
//
// Go tests start the server in-process with New and the same Steps.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
)

// Request is a request the server received.
type Request struct {
	// Seq numbers the requests from 1 in order of arrival.
	Seq    int
	Method string
	Path   string
	// Query is the URL's query.
	Query  url.Values
	Header http.Header
	Body   []byte
	// JSON is the decoded body (nil if it is not a JSON object).
	JSON map[string]any
	// Step is the name of the step that served the request ("#n" for an
	// unnamed step, the n-th added), empty if none did.
	Step string
}

// step is a Step in the queue.
type step struct {
	Step
	name   string
	failed int // failures served so far
}

// Server is a scripted OpenAI server. It is safe for concurrent requests.
type Server struct {
	url  string
	srv  *http.Server
	done chan struct{}
	wg   sync.WaitGroup

	mu       sync.Mutex
	log      io.Writer // request log, JSON lines; nil for none
	raw      bool      // bodies are not decoded (SkipDecoding)
	closed   bool
	added    int
	steps    []*step
	requests []*Request
}

// New starts a server on 127.0.0.1 with the given script (more steps can
// be added later).
func New(steps ...Step) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakemodel: listen on loopback: %v", err))
	}
	s := &Server{url: "http://" + ln.Addr().String() + "/v1", done: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP)}
	s.Add(steps...)
	go func() { _ = s.srv.Serve(ln) }()
	return s
}

// URL is the API root, including /v1 (what OPENAI_BASE_URL would be).
func (s *Server) URL() string { return s.url }

// Add appends steps to the script.
func (s *Server) Add(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range steps {
		s.added++
		name := st.Name
		if name == "" {
			name = fmt.Sprintf("#%d", s.added)
		}
		s.steps = append(s.steps, &step{Step: st, name: name})
	}
}

// LogRequests writes every request from now on to w as one JSON line:
// {"seq", "method", "path", "step", "authorization", "body"}, body being
// the request's JSON (or its text when it is not JSON), step the step that
// served it ("" for none) and authorization its Authorization header
// (left out when there was none).
func (s *Server) LogRequests(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = w
}

// logRequest writes req to the request log; the caller holds s.mu.
func (s *Server) logRequest(req *Request) {
	if s.log == nil {
		return
	}
	body := json.RawMessage(req.Body)
	if !json.Valid(req.Body) {
		body, _ = json.Marshal(string(req.Body))
	}
	// The Authorization header goes along so a test can check which key
	// the client sent (the fake is only ever given test keys).
	line, err := json.Marshal(struct {
		Seq           int             `json:"seq"`
		Method        string          `json:"method"`
		Path          string          `json:"path"`
		Step          string          `json:"step"`
		Authorization string          `json:"authorization,omitempty"`
		Body          json.RawMessage `json:"body"`
	}{req.Seq, req.Method, req.Path, req.Step, req.Header.Get("Authorization"), body})
	if err != nil {
		return
	}
	_, _ = s.log.Write(append(line, '\n'))
}

// SkipDecoding has the requests from now on decoded only as far as the
// server's answers read them: their JSON holds model, stream and
// stream_options alone, for the steps' Match and Respond too. A benchmark
// that reads none of the requests sets it: decoding a request of 17 KiB
// (instructions and tool schemas) into maps takes the server about
// 0.3 ms, which would count in the client's time; skipping over the rest
// takes a quarter of that.
func (s *Server) SkipDecoding() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw = true
}

// Remaining is the number of steps that have not served their reply.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Close shuts the server down: stalled and held streams end, connections
// close, and Close returns when every handler has.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	_ = s.srv.Close()
	s.wg.Wait()
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "fakemodel: server closed", "closed")
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	wire := route(w, r)
	if wire == nil {
		return
	}
	req, ok := s.readRequest(w, r)
	if !ok {
		return
	}
	st, failure, msg := s.take(req)
	if st == nil {
		writeError(w, http.StatusInternalServerError, msg, "script_exhausted")
		return
	}
	if failure != nil && failure.Status != 0 {
		writeFailure(w, failure)
		return
	}
	reply := &st.Reply
	if st.Respond != nil && (failure == nil || failure.Reply == nil) {
		r := st.Respond(req)
		reply = &r
	}
	if failure != nil && failure.Reply != nil {
		reply = failure.Reply
	}
	for k, vs := range reply.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = vs
	}
	out := newSSE(w, r, s.done)
	if failure != nil {
		out.failAt, out.mode = failure.AfterEvents, failure.Mode
	} else {
		out.gate = st.Gate
	}
	out.pace = st.Pace
	out.start()
	wire(out, req, reply)
	out.finish()
	if out.abort {
		panic(http.ErrAbortHandler) // resets the connection
	}
}

// route returns the wire format that streams the answer to r, or nil when
// r has been answered already (the model list, an unknown route).
func route(w http.ResponseWriter, r *http.Request) func(*sse, *Request, *Reply) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		return streamResponses
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		return streamChat
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model","created":0,"owned_by":"fakemodel"}]}`)
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("fakemodel: no route for %s %s (serves POST /v1/responses and POST /v1/chat/completions)", r.Method, r.URL.Path), "not_found")
	}
	return nil
}

// readRequest reads r's body. A request the server cannot serve (not a
// streaming one) is recorded and answered with an error, but takes no
// step: ok is false.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request) (req *Request, ok bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, false
	}
	req = &Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
	s.mu.Lock()
	raw := s.raw
	s.mu.Unlock()
	if raw {
		req.JSON = answerFields(body)
	} else if json.Unmarshal(body, &req.JSON) != nil {
		req.JSON = nil
	}
	if stream, _ := req.JSON["stream"].(bool); stream {
		return req, true
	}
	s.mu.Lock()
	s.record(req)
	s.logRequest(req)
	s.mu.Unlock()
	msg := "fakemodel: only streaming requests (\"stream\": true) are served"
	if req.JSON == nil {
		msg = "fakemodel: the request body is not a JSON object"
	}
	writeError(w, http.StatusBadRequest, msg, "invalid_request")
	return nil, false
}

// answerFields decodes the fields of body that the answers read, as
// SkipDecoding describes; nil when body is not a JSON object.
func answerFields(body []byte) map[string]any {
	var f struct {
		Model         *string        `json:"model"`
		Stream        *bool          `json:"stream"`
		StreamOptions map[string]any `json:"stream_options"`
	}
	if json.Unmarshal(body, &f) != nil {
		return nil
	}
	m := map[string]any{}
	if f.Model != nil {
		m["model"] = *f.Model
	}
	if f.Stream != nil {
		m["stream"] = *f.Stream
	}
	if f.StreamOptions != nil {
		m["stream_options"] = f.StreamOptions
	}
	return m
}

// writeFailure answers with an injected HTTP failure: its status,
// headers and body, or an error body naming the status.
func writeFailure(w http.ResponseWriter, failure *Failure) {
	for k, vs := range failure.Header {
		w.Header()[http.CanonicalHeaderKey(k)] = vs
	}
	if failure.Body != "" {
		ct := "text/plain; charset=utf-8"
		if json.Valid([]byte(failure.Body)) {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(failure.Status)
		_, _ = io.WriteString(w, failure.Body)
		return
	}
	writeError(w, failure.Status, fmt.Sprintf("fakemodel: injected failure: %d %s", failure.Status, http.StatusText(failure.Status)), "injected")
}

// take records req and picks the step that serves it, and the failure to
// serve if the step has one left. A nil step comes with a message saying
// why there is none.
func (s *Server) take(req *Request) (*step, *Failure, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(req)
	defer s.logRequest(req)
	for i, st := range s.steps {
		if st.Match != nil && !st.Match(req) {
			continue
		}
		req.Step = st.name
		if st.failed < len(st.Failures) {
			f := &st.Failures[st.failed]
			st.failed++
			return st, f, ""
		}
		s.steps = append(s.steps[:i:i], s.steps[i+1:]...)
		return st, nil, ""
	}
	if len(s.steps) == 0 {
		return nil, nil, fmt.Sprintf("fakemodel: script exhausted: no step left for request #%d (%s %s); %d steps were scripted, all served",
			req.Seq, req.Method, req.Path, s.added)
	}
	return nil, nil, fmt.Sprintf("fakemodel: no step matches request #%d (%s %s); %d steps left, none accepts it",
		req.Seq, req.Method, req.Path, len(s.steps))
}

// record numbers and keeps req; the caller holds s.mu.
func (s *Server) record(req *Request) {
	req.Seq = len(s.requests) + 1
	s.requests = append(s.requests, req)
}

// writeError answers with an OpenAI-style JSON error. Errors of the
// server itself carry x-should-retry: false, so clients fail at once.
func writeError(w http.ResponseWriter, status int, msg, code string) {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(map[string]APIError{"error": {Message: msg, Code: code, Type: errorType(status)}})
	w.Header().Set("Content-Type", "application/json")
	if code != "injected" {
		w.Header().Set("x-should-retry", "false")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}
