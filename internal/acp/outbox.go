package acp

import (
	"context"
	"sync"
)

// outbox sends what the agent tells the client in the order it was told,
// from one goroutine, so a turn never waits on a slow client: Event only
// queues. A request to the client (a permission, a file write) first
// waits until everything queued before it is out, so the client has the
// tool call it is about. Work pushed with a key replaces the queued work
// of the same key that has not run yet (live command output coalesces
// into the latest state when the client reads slowly).
type outbox struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*job
	keyed   map[string]*job
	closed  bool
	stopped chan struct{}
}

type job struct {
	key string
	run func()
}

func newOutbox() *outbox {
	o := &outbox{keyed: map[string]*job{}, stopped: make(chan struct{})}
	o.cond = sync.NewCond(&o.mu)
	go o.loop()
	return o
}

func (o *outbox) loop() {
	defer close(o.stopped)
	for {
		o.mu.Lock()
		for len(o.queue) == 0 && !o.closed {
			o.cond.Wait()
		}
		if len(o.queue) == 0 {
			o.mu.Unlock()
			return
		}
		j := o.queue[0]
		o.queue[0] = nil
		o.queue = o.queue[1:]
		if j.key != "" && o.keyed[j.key] == j {
			delete(o.keyed, j.key)
		}
		o.mu.Unlock()
		j.run()
	}
}

// push queues run. With a key, run replaces the queued job of that key
// if it has not started; without one, it always runs.
func (o *outbox) push(key string, run func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	if key != "" {
		if j, ok := o.keyed[key]; ok {
			j.run = run
			return
		}
	}
	j := &job{key: key, run: run}
	if key != "" {
		o.keyed[key] = j
	}
	o.queue = append(o.queue, j)
	o.cond.Signal()
}

// flush waits until everything queued before it has been sent, or ctx
// ends.
func (o *outbox) flush(ctx context.Context) error {
	done := make(chan struct{})
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.queue = append(o.queue, &job{run: func() { close(done) }})
	o.cond.Signal()
	o.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-o.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close sends what is queued, then stops.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.cond.Signal()
	o.mu.Unlock()
	<-o.stopped
}
