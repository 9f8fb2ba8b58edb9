package app

import (
	"os"
	"sync"

	"github.com/agent-ls/agent-ls/internal/mcp"
)

// mcpRoots are the roots the configured MCP servers are offered: the
// folders of the sessions of the agent managers the root built, until
// the manager is closed; before a manager's first session, its own
// folder (a language server's workspace, exec's folder; acp's working
// directory, which its sessions' folders replace). A change is passed to
// the set, which tells the servers (roots/list_changed).
type mcpRoots struct {
	set *mcp.Set // nil: no servers

	mu     sync.Mutex
	owners map[*rootsOwner]bool
}

// rootsOwner is one manager's share of the roots, guarded by roots.mu.
type rootsOwner struct {
	roots   *mcpRoots
	initial string          // the manager's folder
	dirs    map[string]bool // its sessions' folders
}

// owner starts a manager's share with its folder ("" is the process's
// working directory).
func (m *mcpRoots) owner(cwd string) *rootsOwner {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	o := &rootsOwner{roots: m, initial: cwd, dirs: map[string]bool{}}
	m.mu.Lock()
	if m.owners == nil {
		m.owners = map[*rootsOwner]bool{}
	}
	m.owners[o] = true
	m.mu.Unlock()
	m.update()
	return o
}

// add offers a session's folder.
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
		if len(o.dirs) == 0 && o.initial != "" {
			dirs = append(dirs, o.initial)
		}
		for d := range o.dirs {
			dirs = append(dirs, d)
		}
	}
	// Under the lock: two updates cannot pass each other.
	m.set.SetRoots(mcp.RootsOf(dirs...))
	m.mu.Unlock()
}
