package tools

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-ls/agent-ls/internal/jsonschema"
)

// Registry holds the tools the model may call. Tools come from sources
// (the built-ins, each MCP server) that may come and go while turns run,
// so the registry is copy-on-write: every change builds a new immutable
// Snapshot and swaps it in, and a reader (a turn's model request, the
// calls answering it) works on the snapshot it took, untouched by changes
// made meanwhile.
type Registry struct {
	mu   sync.Mutex // serialises writers; readers never take it
	snap atomic.Pointer[Snapshot]
}

// Source says where tools come from.
type Source struct {
	// Name identifies the source ("builtin", an MCP server's name);
	// Replace and Unregister act on all of its tools.
	Name string
	// External marks schemas written outside agent-ls (an MCP server's):
	// they are sanitized into what the model APIs accept before being
	// offered or used to validate calls.
	External bool
	// Supersedes lets this source's tools, added to a snapshot by With,
	// take the place of the tools of the same name from a source of the
	// same name (a session's own resource tools, which cover the
	// configured servers too); no other tool can be shadowed.
	Supersedes bool
}

// BuiltinSource is the source of the tools compiled into agent-ls.
var BuiltinSource = Source{Name: "builtin"}

// Snapshot is the registry's content at one moment. It is never changed
// after it is published, so any number of goroutines may use it.
type Snapshot struct {
	byName map[string]*entry
	sorted []*entry // by name: the order offered to the model, stable for prompt caching
	hooks  []Hook
}

// entry is one registered tool with what registration computed once.
type entry struct {
	h      Handler
	spec   Spec               // as offered to the model (sanitized when external)
	schema *jsonschema.Schema // compiled Parameters; nil when the tool takes none
	source string
	// supersedes: Source.Supersedes.
	supersedes bool
}

// NewRegistry returns a registry holding the built-in tools hs.
func NewRegistry(hs ...Handler) (*Registry, error) {
	r := &Registry{}
	r.snap.Store(&Snapshot{byName: map[string]*entry{}})
	if err := r.Register(BuiltinSource, hs...); err != nil {
		return nil, err
	}
	return r, nil
}

// Snapshot returns the current content of the registry.
func (r *Registry) Snapshot() *Snapshot { return r.snap.Load() }

// Register adds the tools hs of src. Nothing changes when one fails:
// two tools with one name (an MCP server shadowing a built-in) or a
// parameter schema that does not compile (every problem is listed).
func (r *Registry) Register(src Source, hs ...Handler) error {
	return r.update(src, hs, false)
}

// Replace swaps all tools of src for hs (an MCP server's tools/list after
// list_changed), in one step: a turn sees either the old set or the new.
// Nothing changes when one of hs fails as in Register.
func (r *Registry) Replace(src Source, hs ...Handler) error {
	return r.update(src, hs, true)
}

// Unregister removes every tool of the source named name (an MCP server
// that went away).
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	byName := maps.Clone(old.byName)
	maps.DeleteFunc(byName, func(_ string, e *entry) bool { return e.source == name })
	r.snap.Store(newSnapshot(byName, old.hooks))
}

// AddHook adds h around every call made from snapshots taken afterwards.
func (r *Registry) AddHook(h Hook) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	r.snap.Store(newSnapshot(old.byName, append(slices.Clip(old.hooks), h)))
}

func (r *Registry) update(src Source, hs []Handler, replace bool) error {
	if src.Name == "" {
		return errors.New("register tools: the source has no name")
	}
	// Compiling happens outside the lock: schemas may be large.
	entries := make([]*entry, 0, len(hs))
	var errs []error
	for _, h := range hs {
		e, err := newEntry(src, h)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		entries = append(entries, e)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.snap.Load()
	byName := maps.Clone(old.byName)
	if replace {
		maps.DeleteFunc(byName, func(_ string, e *entry) bool { return e.source == src.Name })
	}
	for _, e := range entries {
		if prev, dup := byName[e.spec.Name]; dup {
			errs = append(errs, fmt.Errorf("register tool %q from %s: a tool with that name is already registered by %s", e.spec.Name, src.Name, prev.source))
			continue
		}
		byName[e.spec.Name] = e
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	r.snap.Store(newSnapshot(byName, old.hooks))
	return nil
}

// Check reports whether h could be registered from src on its own: its
// spec has a name and its parameter schema (sanitized first when src is
// External) compiles. A source of many tools, some of them broken, checks
// each and registers those that pass, instead of losing them all.
func Check(src Source, h Handler) error {
	_, err := newEntry(src, h)
	return err
}

// newEntry takes h's spec once, sanitizes it when it comes from outside
// and compiles its parameter schema.
func newEntry(src Source, h Handler) (*entry, error) {
	spec := h.Spec()
	if spec.Name == "" {
		return nil, fmt.Errorf("register tool from %s: empty name", src.Name)
	}
	e := &entry{h: h, spec: spec, source: src.Name, supersedes: src.Supersedes}
	if spec.Type != Function {
		return e, nil
	}
	if src.External {
		clean, err := SanitizeSchema(spec.Parameters)
		if err != nil {
			return nil, fmt.Errorf("register tool %q from %s: %w", spec.Name, src.Name, err)
		}
		e.spec.Parameters = clean
	}
	if len(bytes.TrimSpace(e.spec.Parameters)) == 0 {
		return e, nil
	}
	sch, err := jsonschema.Compile(e.spec.Parameters)
	if err != nil {
		return nil, fmt.Errorf("register tool %q from %s: parameters schema: %w", spec.Name, src.Name, err)
	}
	e.schema = sch
	return e, nil
}

func newSnapshot(byName map[string]*entry, hooks []Hook) *Snapshot {
	sorted := slices.SortedFunc(maps.Values(byName), func(a, b *entry) int { return strings.Compare(a.spec.Name, b.spec.Name) })
	return &Snapshot{byName: byName, sorted: sorted, hooks: hooks}
}

// Lookup returns the handler registered under name.
func (s *Snapshot) Lookup(name string) (Handler, bool) {
	e, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	return e.h, true
}

// Without returns the snapshot without the tools named (turned off by the
// user): they are neither offered nor run, and a call of one is answered
// as a call of an unknown tool. Names of no tool are ignored.
func (s *Snapshot) Without(names ...string) *Snapshot {
	if !slices.ContainsFunc(names, func(n string) bool { _, ok := s.byName[n]; return ok }) {
		return s
	}
	byName := maps.Clone(s.byName)
	for _, n := range names {
		delete(byName, n)
	}
	return newSnapshot(byName, s.hooks)
}

// Unoffered returns the snapshot with the tools named left out of what
// is offered to the model (Specs, Names) while a call of one still runs:
// a tool another one stands in for, which models trained on it may still
// call. Names of no tool are ignored; tools s already leaves out stay
// out.
func (s *Snapshot) Unoffered(names ...string) *Snapshot {
	if !slices.ContainsFunc(names, func(n string) bool { _, ok := s.byName[n]; return ok }) {
		return s
	}
	sorted := slices.DeleteFunc(slices.Clone(s.sorted), func(e *entry) bool { return slices.Contains(names, e.spec.Name) })
	return &Snapshot{byName: s.byName, sorted: sorted, hooks: s.hooks}
}

// With returns the snapshot with the tools of other added (a session's
// own tools beside the registry's), keeping s's hooks. A name s already
// has keeps s's tool: other cannot shadow it, but for a tool of a
// Supersedes source in the place of one of a source of the same name.
func (s *Snapshot) With(other *Snapshot) *Snapshot {
	if other == nil || len(other.byName) == 0 {
		return s
	}
	byName := maps.Clone(s.byName)
	for name, e := range other.byName {
		if prev, taken := byName[name]; !taken || (e.supersedes && prev.source == e.source) {
			byName[name] = e
		}
	}
	return newSnapshot(byName, s.hooks)
}

// Specs returns the specs of all tools, sorted by name, as offered to the
// model (external schemas sanitized).
func (s *Snapshot) Specs() []Spec {
	specs := make([]Spec, 0, len(s.sorted))
	for _, e := range s.sorted {
		specs = append(specs, e.spec)
	}
	return specs
}

// Names returns the tool names, sorted.
func (s *Snapshot) Names() []string {
	names := make([]string, 0, len(s.sorted))
	for _, e := range s.sorted {
		names = append(names, e.spec.Name)
	}
	return names
}

// Lookup returns the handler currently registered under name.
func (r *Registry) Lookup(name string) (Handler, bool) { return r.Snapshot().Lookup(name) }

// Specs returns the current tool specs, sorted by name.
func (r *Registry) Specs() []Spec { return r.Snapshot().Specs() }

// Names returns the current tool names, sorted.
func (r *Registry) Names() []string { return r.Snapshot().Names() }
