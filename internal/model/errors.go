package model

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Error is a failure reported by the model server, as an HTTP error status
// or inside the stream (response.failed, an error event, an error chunk).
type Error struct {
	// StatusCode is the HTTP status; zero when the failure came inside a
	// stream.
	StatusCode int
	// Code is the server's error code (e.g. "rate_limit_exceeded",
	// "context_length_exceeded") or, lacking one, its error type.
	Code string
	// Message is what the server said.
	Message string

	retryable  bool
	retryAfter time.Duration // the server's own delay hint, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "model server returned %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	} else {
		b.WriteString("model server reported an error")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Code != "" && !strings.Contains(e.Message, e.Code) {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	return b.String()
}

// Temporary reports whether the failure is worth retrying.
func (e *Error) Temporary() bool { return e.retryable }

// Transient stream failures; both are retried.
var (
	errStalled   = errors.New("model stream stalled")
	errTruncated = errors.New("model stream ended before the response was complete")
)

// maxServerDelay bounds how long a server may ask us to wait: a longer
// Retry-After fails the request instead (it usually means a spent quota).
const maxServerDelay = time.Minute

// retryableStatus reports whether an HTTP status is worth retrying.
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// retryableCode reports whether a failure reported inside a stream is worth
// retrying: server trouble and rate limits are, anything about the request
// itself (context length, quota, invalid prompt, ...) is not.
func retryableCode(code string) bool {
	switch code {
	case "", "server_error", "internal_error", "rate_limit_exceeded", "server_is_overloaded",
		"overloaded", "slow_down", "timeout", "service_unavailable":
		return true
	}
	return false
}

// httpCapture keeps the status, headers and body of an attempt's error
// response, so that a failure keeps its status and message whatever the
// body holds.
type httpCapture struct {
	responded bool // the server sent response headers
	status    int
	header    http.Header
	body      []byte
}

// capture keeps res, an error status (or a redirect not followed), and
// closes its body.
func (h *httpCapture) capture(res *http.Response) {
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	h.status, h.header, h.body = res.StatusCode, res.Header, body
}

// err turns the captured error response into an *Error.
func (h *httpCapture) err() *Error {
	code, msg := parseErrorBody(h.body)
	if h.status < 400 {
		// A redirect sameOriginClient did not follow.
		code, msg = "", fmt.Sprintf("redirected to %q, another origin than the base URL's: not followed", h.header.Get("Location"))
	}
	if msg == "" {
		msg = http.StatusText(h.status)
	}
	// OpenAI answers a spent quota with 429 too; waiting won't help.
	e := &Error{StatusCode: h.status, Code: code, Message: msg,
		retryable: retryableStatus(h.status) && code != "insufficient_quota"}
	switch strings.ToLower(h.header.Get("x-should-retry")) {
	case "true":
		e.retryable = true
	case "false":
		e.retryable = false
	}
	if d, ok := retryAfter(h.header); ok {
		e.retryAfter = d
	} else if e.retryable {
		e.retryAfter = delayInMessage(msg)
	}
	return e
}

// parseErrorBody extracts a code and a message from an error body: the
// OpenAI shape {"error":{"message","code","type"}}, the common variants
// {"error":"..."}, {"message":"..."}, {"detail":"..."}, or plain text.
func parseErrorBody(body []byte) (code, msg string) {
	body = bytes.TrimSpace(body)
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
		Code    any             `json:"code"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", textcut.Cut(string(body), 500)
	}
	if len(v.Error) > 0 && v.Error[0] == '{' {
		return parseErrorBody(v.Error)
	}
	if len(v.Error) > 0 && v.Error[0] == '"' {
		_ = json.Unmarshal(v.Error, &msg)
	}
	if msg == "" {
		msg = v.Message
	}
	if msg == "" && v.Detail != nil {
		msg = fmt.Sprint(v.Detail)
	}
	switch c := v.Code.(type) {
	case string:
		code = c
	case float64:
		code = strconv.FormatFloat(c, 'f', -1, 64)
	}
	if code == "" {
		code = v.Type
	}
	return code, msg
}

// streamError turns an SSE event carrying a top-level "error" key (how
// Chat Completions servers report a failure mid-stream) into an *Error;
// errValue is the key's value.
func streamError(data, errValue []byte) *Error {
	code, msg := parseErrorBody(data)
	if msg == "" {
		var s string
		if json.Unmarshal(errValue, &s) != nil {
			s = string(errValue)
		}
		msg = "received error while streaming: " + textcut.Cut(s, 500)
	}
	return &Error{Code: code, Message: msg, retryable: retryableCode(code), retryAfter: delayInMessage(msg)}
}

// retryAfter reads the retry-after-ms and Retry-After headers.
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

var tryAgainIn = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)try again in\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?)\b`)
})

// delayInMessage reads a hint like "Please try again in 1.5s" that rate
// limit messages carry; zero when there is none.
func delayInMessage(msg string) time.Duration {
	m := tryAgainIn().FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0
	}
	if strings.EqualFold(m[2], "ms") {
		return time.Duration(n * float64(time.Millisecond))
	}
	return time.Duration(n * float64(time.Second))
}

// classify says whether err, the failure of one attempt, is worth another
// attempt, and how long the server asked us to wait (zero: use backoff).
func classify(err error) (retry bool, after time.Duration) {
	var me *Error
	if errors.As(err, &me) {
		if me.retryAfter > maxServerDelay {
			return false, 0
		}
		return me.retryable, me.retryAfter
	}
	var mf *malformedEventError
	if errors.As(err, &mf) || errors.Is(err, errEventTooLarge) {
		return false, 0 // the server speaks something else: retrying won't help
	}
	// Connection errors, resets, truncated and stalled streams.
	return true, 0
}
