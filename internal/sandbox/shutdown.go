package sandbox

import (
	"context"
	"sync"
)

// running are the commands started through Command or command and not yet
// waited for, so that Shutdown can end them when the agent stops.
var running = liveSet{cmds: map[*Cmd]struct{}{}}

type liveSet struct {
	mu   sync.Mutex
	cmds map[*Cmd]struct{}
}

// liveEntry is a Cmd's mark in the set: closed once it was waited for
// and its placeholders were released.
type liveEntry struct {
	once sync.Once
	done chan struct{}
}

func (s *liveSet) add(c *Cmd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.live.done = make(chan struct{})
	s.cmds[c] = struct{}{}
}

func (s *liveSet) remove(c *Cmd) {
	s.mu.Lock()
	_, ok := s.cmds[c]
	delete(s.cmds, c)
	s.mu.Unlock()
	if ok {
		c.live.once.Do(func() { close(c.live.done) })
	}
}

func (s *liveSet) snapshot() []*Cmd {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Cmd, 0, len(s.cmds))
	for c := range s.cmds {
		out = append(out, c)
	}
	return out
}

// Shutdown ends every command this process still runs and everything they
// started, and releases their placeholders; call it before exiting, on
// every route out (a clean stop, a signal, the end of stdin). It waits for
// each command to be waited for (its Wait runs elsewhere) until ctx ends,
// then releases what is left anyway: by then the helpers had their
// SIGTERM, and this process is about to exit.
func Shutdown(ctx context.Context) {
	cmds := running.snapshot()
	for _, c := range cmds {
		_ = KillGroup(c)
	}
	for _, c := range cmds {
		select {
		case <-c.live.done:
		case <-ctx.Done():
			c.done()
		}
	}
}
