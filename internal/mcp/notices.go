package mcp

import "sync"

// Notices carries what MCP servers have to tell the user (a server that
// failed to start, one given up) to whoever listens, keeping what comes
// before anyone does (a front end not ready yet, a session whose answer
// is not out yet). The zero value keeps messages until Listen.
type Notices struct {
	mu      sync.Mutex
	tell    func(string)
	pending []string
}

// Add tells msg, or keeps it until someone listens.
func (n *Notices) Add(msg string) {
	n.mu.Lock()
	tell := n.tell
	if tell == nil {
		n.pending = append(n.pending, msg)
	}
	n.mu.Unlock()
	if tell != nil {
		tell(msg)
	}
}

// Listen sends the messages kept, then every later one, to tell.
func (n *Notices) Listen(tell func(string)) {
	n.mu.Lock()
	pending := n.pending
	n.tell, n.pending = tell, nil
	n.mu.Unlock()
	for _, m := range pending {
		tell(m)
	}
}
