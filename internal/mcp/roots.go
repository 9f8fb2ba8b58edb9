package mcp

//lint:file-ignore SA1019 roots and logging are deprecated from MCP 2026-07-28 on; agent-ls speaks 2025-11-25, where they are current.

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every client declares the roots capability with listChanged and answers
// roots/list with the Set's roots: the workspace folders of the sessions
// it serves, as file:// URIs named by their last element (SetRoots). When
// they change, each connected server is sent
// notifications/roots/list_changed.

// maxRoots bounds the roots offered.
const maxRoots = 100

// Root is a folder offered to servers as a root.
type Root struct {
	URI  string // file://
	Name string
}

// RootsOf turns absolute folder paths into roots, sorted and without
// repeats; a relative path is left out.
func RootsOf(dirs ...string) []Root {
	var out []Root
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(d)}
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path // C:/x is file:///C:/x
		}
		name := filepath.Base(d)
		if name == string(filepath.Separator) || name == "." {
			name = d
		}
		out = append(out, Root{URI: u.String(), Name: name})
	}
	slices.SortFunc(out, func(a, b Root) int { return strings.Compare(a.URI, b.URI) })
	out = slices.CompactFunc(out, func(a, b Root) bool { return a.URI == b.URI })
	if len(out) > maxRoots {
		out = out[:maxRoots]
	}
	return out
}

// SetRoots makes roots the Set's roots (see RootsOf), telling the
// servers connected if they changed. It never blocks on a server.
func (s *Set) SetRoots(roots []Root) {
	if s.Empty() {
		return
	}
	s.roots.set(roots)
}

// Roots are the Set's roots.
func (s *Set) Roots() []Root {
	if s.Empty() {
		return nil
	}
	s.roots.mu.Lock()
	defer s.roots.mu.Unlock()
	return slices.Clone(s.roots.roots)
}

// rootsState holds a Set's roots and the clients that offer them.
type rootsState struct {
	mu      sync.Mutex
	roots   []Root
	clients map[*sdk.Client]*rootsClient
}

// rootsClient is what one client was last given. Its mu serialises the
// changes, each of which gives the latest roots.
type rootsClient struct {
	mu    sync.Mutex
	given []Root
}

// set replaces the roots and tells every client, each in the
// background: notifying a server that does not read could block.
func (r *rootsState) set(roots []Root) {
	r.mu.Lock()
	if slices.Equal(r.roots, roots) {
		r.mu.Unlock()
		return
	}
	r.roots = slices.Clone(roots)
	clients := make(map[*sdk.Client]*rootsClient, len(r.clients))
	for c, rc := range r.clients {
		clients[c] = rc
	}
	r.mu.Unlock()
	for c, rc := range clients {
		go r.sync(c, rc)
	}
}

// attach gives c the roots and keeps it told of their changes until
// detach. Called before c connects, so the first roots are no change.
func (r *rootsState) attach(c *sdk.Client) (detach func()) {
	if r == nil {
		return func() {}
	}
	rc := &rootsClient{}
	r.mu.Lock()
	if r.clients == nil {
		r.clients = map[*sdk.Client]*rootsClient{}
	}
	r.clients[c] = rc
	r.mu.Unlock()
	r.sync(c, rc)
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.clients, c)
	}
}

// sync gives c the current roots: those new or renamed are added, those
// gone removed; the SDK sends roots/list_changed for each of the two.
func (r *rootsState) sync(c *sdk.Client, rc *rootsClient) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	r.mu.Lock()
	roots := slices.Clone(r.roots)
	r.mu.Unlock()
	keep := map[string]string{}
	for _, root := range roots {
		keep[root.URI] = root.Name
	}
	var gone []string
	given := map[string]string{}
	for _, root := range rc.given {
		given[root.URI] = root.Name
		if _, ok := keep[root.URI]; !ok {
			gone = append(gone, root.URI)
		}
	}
	var added []*sdk.Root
	for _, root := range roots {
		if name, ok := given[root.URI]; !ok || name != root.Name {
			added = append(added, &sdk.Root{URI: root.URI, Name: root.Name})
		}
	}
	// New roots first: a server that lists them between the two
	// notifications sees more roots, never fewer than both lists share.
	if len(added) > 0 {
		c.AddRoots(added...)
	}
	if len(gone) > 0 {
		c.RemoveRoots(gone...)
	}
	rc.given = roots
}
