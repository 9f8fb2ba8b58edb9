package netproxy

import (
	"context"
	"net/netip"
	"sync"
)

// Client is who connects through one endpoint of the proxy: the command
// a tool call or a terminal runs.
type Client struct {
	Command    string
	CallID     string
	TerminalID string
}

// Question is what the proxy asks its [Decider] about a host and port.
type Question struct {
	Host string
	Port int
	// Local: the host is a service on this machine or its local network
	// (Addrs says what it resolved to).
	Local  bool
	Addrs  []netip.Addr
	Client Client
}

// Answer is a [Decider]'s verdict on a [Question].
type Answer struct {
	Allow bool
	// Remember keeps the verdict for this host and port (and locality)
	// for the rest of the proxy's life: the session.
	Remember bool
	// Reason, for a denial, replaces the 403's default text (the user
	// denied access).
	Reason string
}

// A Decider answers the proxy's questions: the user, through an
// approval, or a rule when nobody can be asked. Decide blocks until it
// has an answer or ctx ends (which denies).
type Decider interface {
	Decide(ctx context.Context, q Question) Answer
}

// DeciderFunc adapts a function to [Decider].
type DeciderFunc func(ctx context.Context, q Question) Answer

// Decide calls f.
func (f DeciderFunc) Decide(ctx context.Context, q Question) Answer { return f(ctx, q) }

type questionKey struct {
	host  string
	port  int
	local bool
}

// pending is an open question others wait on.
type pending struct {
	done     chan struct{}
	answer   Answer
	canceled bool // the asker went away: waiters ask again
}

// decisions is the session's memory of answers and its open questions.
type decisions struct {
	mu      sync.Mutex
	decided map[questionKey]Answer
	open    map[questionKey]*pending
}

// ask returns the session's remembered answer, waits for an open
// question on the same key, or asks d; questions on one key are asked
// one at a time.
func (s *decisions) ask(ctx context.Context, d Decider, q Question) Answer {
	k := questionKey{q.Host, q.Port, q.Local}
	for {
		s.mu.Lock()
		if a, ok := s.decided[k]; ok {
			s.mu.Unlock()
			return a
		}
		if p := s.open[k]; p != nil {
			s.mu.Unlock()
			select {
			case <-p.done:
			case <-ctx.Done():
				return Answer{}
			}
			if p.canceled {
				continue
			}
			return p.answer
		}
		p := &pending{done: make(chan struct{})}
		if s.open == nil {
			s.open = map[questionKey]*pending{}
			s.decided = map[questionKey]Answer{}
		}
		s.open[k] = p
		s.mu.Unlock()

		a := Answer{}
		if d != nil {
			a = d.Decide(ctx, q)
		}
		s.mu.Lock()
		delete(s.open, k)
		p.answer = a
		p.canceled = !a.Allow && ctx.Err() != nil
		if a.Remember && !p.canceled {
			s.decided[k] = a
		}
		s.mu.Unlock()
		close(p.done)
		return a
	}
}
