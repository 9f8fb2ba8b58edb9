package model

import (
	"context"
	"time"
)

// clock is the time the retry loop waits on (backoff) and the idle
// watchdog counts. Clients use the real one; tests use a fake one, so
// retries and stalls are tested without waiting.
type clock interface {
	// sleep waits for d or until ctx is done.
	sleep(ctx context.Context, d time.Duration) error
	// afterFunc calls f in its own goroutine once d has passed, unless
	// the timer is stopped first.
	afterFunc(d time.Duration, f func()) timer
}

// timer is the part of *time.Timer the watchdog uses.
type timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// realClock is the system's clock.
type realClock struct{}

func (realClock) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (realClock) afterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }
