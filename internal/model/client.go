package model

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// client is the Client of both wire APIs.
type client struct {
	cfg       Config
	responses responses.ResponseService
	chat      openai.ChatCompletionService
}

// New returns a Client for cfg. It does no I/O; a missing API key for
// OpenAI's own endpoint is reported by the first Stream, at once.
func New(cfg Config) (Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// The services are built from explicit options only (openai.NewClient
	// would also read OPENAI_* variables behind our back), and openai-go's
	// own retries are off: Stream owns the retry loop.
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &client{
		cfg:       cfg,
		responses: responses.NewResponseService(opts...),
		chat:      openai.NewChatCompletionService(opts...),
	}, nil
}

// attempt is the state of one attempt at a request.
type attempt struct {
	replay *replay
	idle   *watchdog
	http   httpCapture
}

// runFunc makes one attempt.
type runFunc func(ctx context.Context, at *attempt) (*Response, error)

// Stream implements Client. It makes up to 1+MaxRetries attempts; before
// each retry it emits a Retrying event and then waits (exponential backoff
// with jitter, or the server's Retry-After). Text already delivered is not
// delivered again by a retried attempt: see replay for the exact rule.
func (c *client) Stream(ctx context.Context, req *Request, emit func(Event)) (*Response, error) {
	if c.cfg.APIKey == "" && isOpenAI(c.cfg.BaseURL) {
		return nil, ErrMissingAPIKey
	}
	var run runFunc
	switch c.cfg.WireAPI {
	case WireChat:
		params, err := chatParams(req)
		if err != nil {
			return nil, err
		}
		run = func(ctx context.Context, at *attempt) (*Response, error) {
			return c.runChat(ctx, params, req, at)
		}
	default:
		params, err := responsesParams(req)
		if err != nil {
			return nil, err
		}
		run = func(ctx context.Context, at *attempt) (*Response, error) {
			return c.runResponses(ctx, params, at)
		}
	}

	rp := newReplay(emit, newNonce())
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("model request: %w", err)
		}
		resp, err := c.attempt(ctx, run, rp)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("model request: %w", ctx.Err())
		}
		retry, after := classify(err)
		if !retry {
			if n > 1 {
				return nil, fmt.Errorf("model request failed after %d attempts: %w", n, err)
			}
			return nil, err
		}
		if n > c.cfg.MaxRetries {
			return nil, fmt.Errorf("model request failed after %d attempts: %w", n, err)
		}
		delay := after
		if delay <= 0 {
			delay = backoff(c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay, n)
		}
		emit(Event{Kind: Retrying, Retry: &RetryInfo{Attempt: n + 1, DelayMs: delay.Milliseconds(), Message: err.Error()}})
		if err := sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("model request: %w", err)
		}
		rp.retry()
	}
}

// attempt makes one attempt under an idle watchdog.
func (c *client) attempt(ctx context.Context, run runFunc, rp *replay) (*Response, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	at := &attempt{replay: rp, idle: newWatchdog(c.cfg.IdleTimeout, cancel)}
	defer at.idle.stop()
	resp, err := run(actx, at)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(actx), errStalled) {
		return nil, fmt.Errorf("%w: no data from the model server for %v", errStalled, c.cfg.IdleTimeout)
	}
	if err != nil && at.http.status != 0 {
		// The status and body as the server sent them, not as openai-go
		// managed to parse them.
		return nil, at.http.err()
	}
	return resp, err
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

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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
	t *time.Timer
}

func newWatchdog(d time.Duration, cancel context.CancelCauseFunc) *watchdog {
	return &watchdog{d: d, t: time.AfterFunc(d, func() { cancel(errStalled) })}
}

// arm restarts the countdown: the attempt is waiting for the server.
func (w *watchdog) arm() { w.t.Reset(w.d) }

// disarm stops the countdown: something arrived.
func (w *watchdog) disarm() { w.t.Stop() }

func (w *watchdog) stop() { w.t.Stop() }
