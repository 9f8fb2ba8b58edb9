package model

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when told: sleep returns at once
// (the time it would have waited is recorded and passes), and timers fire
// when advance moves past their deadline, or at once when armed after
// stallNextWait.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	slept  []time.Duration
	timers []*fakeTimer
	// stall: the next timer armed (Reset) expires at once, as if the
	// server stayed silent for its whole duration.
	stall bool
}

type fakeTimer struct {
	c     *fakeClock
	f     func()
	at    time.Duration
	armed bool
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.slept = append(c.slept, d)
	c.mu.Unlock()
	c.advance(d)
	return ctx.Err()
}

func (c *fakeClock) afterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, f: f, at: c.now + d, armed: true}
	c.timers = append(c.timers, t)
	return t
}

// advance moves the clock by d and fires the timers that come due.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due []func()
	for _, t := range c.timers {
		if t.armed && t.at <= c.now {
			t.armed = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// stallNextWait makes the next wait for the server (the next timer armed)
// outlast the timer.
func (c *fakeClock) stallNextWait() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stall = true
}

// armed is the number of timers running.
func (c *fakeClock) armed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if t.armed {
			n++
		}
	}
	return n
}

// timerCount is the number of timers made so far.
func (c *fakeClock) timerCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// sleeps returns the waits so far.
func (c *fakeClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	was := t.armed
	t.at, t.armed = c.now+d, true
	stall := c.stall
	c.stall = false
	c.mu.Unlock()
	if stall {
		c.advance(d)
	}
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

// clockOf returns the fake clock newClient gave c.
func clockOf(t testing.TB, c Client) *fakeClock {
	t.Helper()
	fc, ok := c.(*client).clock.(*fakeClock)
	if !ok {
		t.Fatal("the client does not run on a fake clock")
	}
	return fc
}

// The real clock's sleep ends when the context does, not when the delay
// has passed.
func TestRealSleepEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- realClock{}.sleep(ctx, time.Hour) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("sleep returned %v, want context.Canceled", err)
	}
	if err := (realClock{}).sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("a short sleep: %v", err)
	}
}

// The real clock's timer fires once its duration has passed and not after
// Stop.
func TestRealAfterFunc(t *testing.T) {
	fired := make(chan struct{})
	tm := realClock{}.afterFunc(time.Millisecond, func() { close(fired) })
	<-fired
	if tm.Stop() {
		t.Error("Stop reports a fired timer as pending")
	}
	tm = realClock{}.afterFunc(time.Hour, func() { t.Error("a stopped timer fired") })
	if !tm.Stop() {
		t.Error("Stop reports a pending timer as fired")
	}
}
