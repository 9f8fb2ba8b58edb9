package app

import (
	"os"
	"sync"

	"github.com/agent-ls/agent-ls/internal/mcp"
)

// mcpRoots are the roots the configured MCP servers are offered: the
// workspace folders of the agent managers the root built (a language
// server's workspace, exec's or acp's folder) and the folders of their
// sessions, until the manager is closed. A change is passed to the set,
// which tells the servers (roots/list_changed).
type mcpRoots struct {
	set *mcp.Set // nil: no servers

	mu     sync.Mutex
	owners map[*rootsOwner]bool
}

// rootsOwner is one manager's share of the roots.
type rootsOwner struct {
	roots *mcpRoots
	dirs  map[string]bool // guarded by roots.mu
}

// owner starts a manager's share with its workspace folder ("" is the
// process's working directory).
func (m *mcpRoots) owner(cwd string) *rootsOwner {
	o := &rootsOwner{roots: m, dirs: map[string]bool{}}
	m.mu.Lock()
	if m.owners == nil {
		m.owners = map[*rootsOwner]bool{}
	}
	m.owners[o] = true
	m.mu.Unlock()
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	o.add(cwd)
	return o
}

// add offers dir too (a session's folder).
func (o *rootsOwner) add(dir string) {
	if dir == "" {
		return
	}
	o.roots.mu.Lock()
	fresh := !o.dirs[dir]
	o.dirs[dir] = true
	o.roots.mu.Unlock()
	if fresh {
		o.roots.update()
	}
}

// drop withdraws the manager's folders (it was closed).
func (o *rootsOwner) drop() {
	o.roots.mu.Lock()
	delete(o.roots.owners, o)
	o.roots.mu.Unlock()
	o.roots.update()
}

// update gives the set the folders of every owner.
func (m *mcpRoots) update() {
	if m.set.Empty() {
		return
	}
	m.mu.Lock()
	var dirs []string
	for o := range m.owners {
		for d := range o.dirs {
			dirs = append(dirs, d)
		}
	}
	// Under the lock: two updates cannot pass each other.
	m.set.SetRoots(mcp.RootsOf(dirs...))
	m.mu.Unlock()
}
