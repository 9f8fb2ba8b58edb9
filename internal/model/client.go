package model

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"strings"
	"time"
)

// client is the Client of both wire APIs.
type client struct {
	cfg   Config
	clock clock
	// api is the endpoint of cfg.WireAPI: POST /responses or POST
	// /chat/completions under the base URL.
	api endpoint
}

// New returns a Client for cfg. It does no I/O besides reading the
// environment variables cfg names (EnvKey, EnvHTTPHeaders), once; a
// missing API key is reported by the first Stream, at once.
//
// # Retries
//
// Stream retries connection errors, HTTP 408, 409, 429 and 5xx (honouring
// Retry-After, retry-after-ms and x-should-retry), failures the server
// reports inside the stream when they are about the server (server_error,
// rate_limit_exceeded) rather than the request, a stream that breaks or
// ends before the response is complete, and a stream silent for
// IdleTimeout. Failures before a stream started count against
// RequestMaxRetries (counted afresh after each stream that started),
// failures after it started against StreamMaxRetries. Before each retry
// it emits a Retrying event, then waits (exponential backoff with jitter,
// or the server's delay). Other failures, and the last one, are returned;
// the last says how many attempts were made.
//
// # What the caller sees across retries
//
// A retried attempt makes the model start its answer over. So that the
// user sees each piece of text once (in agent/event terms: messageDelta,
// message, reasoningDelta, reasoning):
//
//  1. Item ids are stable across attempts. An output item of a retried
//     attempt takes the id of the item the caller saw at the same output
//     position with the same kind (message, reasoning, function_call, ...);
//     an item at a new position, or of another kind than before, keeps its
//     own id. ItemDone and Response.Output use the same ids.
//  2. After a retry, the deltas of an item are swallowed until the text
//     they replay has caught up with the text already delivered for that
//     item; from there on, only what is new is delivered.
//  3. If the replayed text diverges from what was delivered (the model
//     wrote something else this time), no more deltas are delivered for
//     that item; the caller relies on the item's final text in ItemDone,
//     which the agent sends as the authoritative message (or reasoning)
//     event, replacing what was streamed.
//  4. ItemDone is delivered once per item id; a retried attempt delivers it
//     again only when the finished item differs from the one delivered
//     before, and the later one wins.
//
// A reasoning summary with several parts streams as one text, the parts
// separated by a blank line, so it equals the item's Summary joined with
// "\n\n".
func New(cfg Config) (Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.APIKey == "" && cfg.EnvKey != "" {
		cfg.APIKey = strings.TrimSpace(os.Getenv(cfg.EnvKey))
	}
	path := "responses"
	if cfg.WireAPI == WireChat {
		path = "chat/completions"
	}
	api, err := newEndpoint(&cfg, path, sameOriginClient(cfg.HTTPClient, cfg.BaseURL))
	if err != nil {
		return nil, err
	}
	return &client{cfg: cfg, clock: realClock{}, api: api}, nil
}

// Preconnect opens, in the background, the connection the client's next
// request will take, unless the client has its own HTTP client, goes
// through a proxy or made a request within the last minute (its
// connection is then in the pool). A session calls it when it starts, so
// the first request does not wait for a TCP handshake. It returns at once.
func (c *client) Preconnect() { c.api.pre.start() }

// attempt is the state of one attempt at a request.
type attempt struct {
	replay *replay
	idle   *watchdog
	http   httpCapture
	// rateLimits are the successful response's x-ratelimit-* headers.
	rateLimits *RateLimits
}

// runFunc makes one attempt.
type runFunc func(ctx context.Context, at *attempt) (*Response, error)

// Stream implements Client. It retries within the limits of the Config
// (see New); before each retry it emits a Retrying event and then waits
// (exponential backoff with jitter, or the server's Retry-After). Text
// already delivered is not delivered again by a retried attempt: see New
// for the exact rule.
func (c *client) Stream(ctx context.Context, req *Request, emit func(Event)) (*Response, error) {
	if err := missingKey(&c.cfg); err != nil {
		return nil, err
	}
	run, err := c.runner(req)
	if err != nil {
		return nil, err
	}
	rp := newReplay(emit, newNonce())
	var requestFails, streamFails int
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("model request: %w", err)
		}
		resp, started, err := c.attempt(ctx, run, rp)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("model request: %w", ctx.Err())
		}
		// A stream that started and failed is reconnected with a fresh
		// request budget, as if the turn had asked again.
		fails, limit := &requestFails, c.cfg.RequestMaxRetries
		if started {
			fails, limit, requestFails = &streamFails, c.cfg.StreamMaxRetries, 0
		}
		*fails++
		retry, after := classify(err)
		if !retry || *fails > limit {
			if n == 1 {
				return nil, err
			}
			return nil, fmt.Errorf("model request failed after %d attempts: %w", n, err)
		}
		delay := after
		if delay <= 0 {
			delay = backoff(c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay, *fails)
		}
		emit(Event{Kind: Retrying, Retry: &RetryInfo{Attempt: n + 1, DelayMs: delay.Milliseconds(), Message: err.Error()}})
		if err := c.clock.sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("model request: %w", err)
		}
		rp.retry()
	}
}

// runner returns the function that makes one attempt at req on the
// client's wire API. The body is encoded once, for every attempt.
func (c *client) runner(req *Request) (runFunc, error) {
	run := c.runResponses
	var p any
	var err error
	if c.cfg.WireAPI == WireChat {
		run = c.runChat
		p, err = newChatBody(req)
	} else {
		p, err = newResponsesBody(req)
	}
	if err != nil {
		return nil, err
	}
	body, err := marshalBody(p)
	if err != nil {
		return nil, fmt.Errorf("model: encoding the request: %w", err)
	}
	return func(ctx context.Context, at *attempt) (*Response, error) {
		return run(ctx, body, req, at)
	}, nil
}

// attempt makes one attempt under an idle watchdog. started reports
// whether the server had answered with a stream (a success status) before
// the attempt ended.
func (c *client) attempt(ctx context.Context, run runFunc, rp *replay) (resp *Response, started bool, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	at := &attempt{replay: rp, idle: newWatchdog(c.clock, c.cfg.IdleTimeout, cancel)}
	defer at.idle.stop()
	resp, err = run(actx, at)
	if resp != nil && resp.RateLimits == nil {
		resp.RateLimits = at.rateLimits
	}
	started = at.http.responded && at.http.status == 0
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(actx), errStalled) {
		return nil, started, fmt.Errorf("%w: no data from the model server for %v", errStalled, c.cfg.IdleTimeout)
	}
	if err != nil && at.http.status != 0 {
		// The status and body as the server sent them.
		return nil, false, at.http.err()
	}
	var me *Error
	var mf *malformedEventError
	if err != nil && ctx.Err() == nil && !errors.As(err, &me) && !errors.Is(err, errTruncated) &&
		!errors.As(err, &mf) && !errors.Is(err, errEventTooLarge) {
		if at.http.responded {
			return nil, started, fmt.Errorf("model stream broke: %w", err)
		}
		return nil, false, &connectError{provider: c.cfg.Provider, url: c.cfg.BaseURL, err: err}
	}
	return resp, started, err
}

// backoff is the delay before retry n (1-based): exponential from base,
// capped at most, with ±20% jitter.
func backoff(base, most time.Duration, n int) time.Duration {
	d := most
	if n <= 30 {
		if e := base << (n - 1); e > 0 && e < most {
			d = e
		}
	}
	d = time.Duration(float64(d) * (0.8 + 0.4*mrand.Float64()))
	return min(d, most)
}

func newNonce() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// watchdog cancels an attempt that has been silent for too long. It runs
// only while the attempt waits for the server (armed), not while the
// caller's emit is busy.
type watchdog struct {
	d time.Duration
	t timer
}

// newWatchdog returns a watchdog that cancels after d of silence; for d
// zero (no idle timeout) it never does.
func newWatchdog(c clock, d time.Duration, cancel context.CancelCauseFunc) *watchdog {
	if d <= 0 {
		return &watchdog{}
	}
	return &watchdog{d: d, t: c.afterFunc(d, func() { cancel(errStalled) })}
}

// arm restarts the countdown: the attempt is waiting for the server.
func (w *watchdog) arm() {
	if w.t != nil {
		w.t.Reset(w.d)
	}
}

// disarm stops the countdown: something arrived.
func (w *watchdog) disarm() { w.stop() }

func (w *watchdog) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}
