package tools

import (
	"fmt"
	"sort"
	"sync"
)

// Registry maps tool names to handlers. It is built once and then only
// read, so it is safe for concurrent use.
type Registry struct {
	handlers map[string]Handler
	names    []string // registration order, which is the order offered to the model
	schemas  sync.Map // tool name → *compiledSchema, filled lazily
}

// NewRegistry returns a registry holding hs, in that order.
func NewRegistry(hs ...Handler) (*Registry, error) {
	r := &Registry{handlers: make(map[string]Handler, len(hs))}
	for _, h := range hs {
		if err := r.Register(h); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds h. Two tools with one name are a programming or
// configuration error (an MCP server shadowing a built-in), so it fails.
func (r *Registry) Register(h Handler) error {
	name := h.Spec().Name
	if name == "" {
		return fmt.Errorf("register tool: empty name")
	}
	if _, dup := r.handlers[name]; dup {
		return fmt.Errorf("register tool %q: a tool with that name is already registered", name)
	}
	r.handlers[name] = h
	r.names = append(r.names, name)
	return nil
}

// Lookup returns the handler registered under name.
func (r *Registry) Lookup(name string) (Handler, bool) {
	h, ok := r.handlers[name]
	return h, ok
}

// Specs returns the specs of all tools in registration order.
func (r *Registry) Specs() []Spec {
	specs := make([]Spec, 0, len(r.names))
	for _, n := range r.names {
		specs = append(specs, r.handlers[n].Spec())
	}
	return specs
}

// Names returns the registered tool names, sorted.
func (r *Registry) Names() []string {
	names := append([]string(nil), r.names...)
	sort.Strings(names)
	return names
}
