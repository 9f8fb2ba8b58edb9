package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"syscall"

	"github.com/pelletier/go-toml/v2"
)

// ProjectFile is the project's config file, relative to the workspace root.
var ProjectFile = filepath.Join(".agent-ls", "config.toml")

// UserFile is the user's config file: $XDG_CONFIG_HOME/agent-ls/config.toml,
// by default ~/.config/agent-ls/config.toml; "" when there is no home.
func UserFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agent-ls", "config.toml")
}

// Inputs are what a configuration is resolved from.
type Inputs struct {
	// UserFile is the user's config file; "" reads none.
	UserFile string
	// ProjectRoot is the workspace root whose .agent-ls/config.toml may
	// narrow the settings; "" reads none.
	ProjectRoot string
	// Env, Editor and Flags are the layers over the files and the
	// profile, lowest first; nil ones are empty.
	Env, Editor, Flags *Layer
}

// Resolved is an effective configuration.
type Resolved struct {
	Config
	// Provider is the provider in use, Config.ModelProviders[ModelProvider];
	// zero when that names no provider (a Problem says so).
	Provider Provider
	// Sources names where each key's value came from, by dotted key.
	Sources map[string]string
	// Files are the config files that were read (and used).
	Files []string

	tree map[string]any // the merged layers, for Print
}

// Loader reads config files and keeps the last good version of each: a
// file that turns bad while agent-ls runs is reported and its previous
// contents stay in force.
type Loader struct {
	mu   sync.Mutex
	good map[string]*Layer
}

// Load resolves in. The problems are every error and ignored key met; a
// file with an error is left out (or its last good version used), a layer
// key with an error is left out, and the rest applies.
func (l *Loader) Load(in Inputs) (*Resolved, []Problem) {
	var probs []Problem
	user, p := l.file(in.UserFile, "user config")
	probs = append(probs, p...)
	var project *Layer
	if in.ProjectRoot != "" {
		project, p = l.file(filepath.Join(in.ProjectRoot, ProjectFile), projectSource)
		probs = append(probs, p...)
	}
	r, p := resolve(user, project, in.Env, in.Editor, in.Flags)
	return r, append(probs, p...)
}

// projectSource names the project's file: it is read leniently (see
// readFile).
const projectSource = "project config"

// file reads one config file; nil when it does not exist.
func (l *Loader) file(path, source string) (*Layer, []Problem) {
	if path == "" {
		return nil, nil
	}
	layer, probs, err := readFile(path, source, source == projectSource)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.good == nil {
		l.good = map[string]*Layer{}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		delete(l.good, path)
		return nil, nil
	case err != nil:
		probs = append(probs, Problem{Source: path, Message: err.Error()})
	}
	if layer != nil {
		// Only ignored keys: the rest of the file is good.
		l.good[path] = layer
		return layer, probs
	}
	if len(probs) > 0 {
		last := l.good[path]
		if last != nil {
			probs = append(probs, Problem{Source: path, Message: "not used: the last good version of the file stays in force"})
		} else {
			probs = append(probs, Problem{Source: path, Message: "not used until it is fixed"})
		}
		return last, probs
	}
	l.good[path] = layer
	return layer, nil
}

// readFile reads and checks one config file. An error reading it is
// returned as is (fs.ErrNotExist when it is missing); everything wrong in
// it is a Problem, and then the layer is nil. lenient drops unknown keys
// with an ignored Problem each instead of refusing the file. A project's file is read so:
// it comes with whatever repository is open, perhaps written for another
// version of agent-ls, and since it may only narrow the user's settings,
// leaving out a key it does not know loosens nothing.
func readFile(path, source string, lenient bool) (*Layer, []Problem, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, nil, err
	}
	tree, probs := parse(data, path, lenient)
	if tree == nil {
		return nil, probs, nil
	}
	return &Layer{Source: source, Tree: tree, path: path, lines: keyLines(data)}, probs, nil
}

// Parse decodes and checks a config file's contents; source names it in
// problems.
func Parse(data []byte, source string) (map[string]any, []Problem) {
	return parse(data, source, false)
}

// parse is Parse; lenient leaves unknown keys out of the tree (each an
// ignored Problem) and returns the tree with those problems when nothing
// else is wrong.
func parse(data []byte, source string, lenient bool) (map[string]any, []Problem) {
	var tree map[string]any
	if err := toml.Unmarshal(data, &tree); err != nil {
		return nil, []Problem{syntaxProblem(source, err)}
	}
	if tree == nil {
		tree = map[string]any{}
	}
	c := &checker{source: source, lines: keyLines(data), dropUnknown: lenient}
	c.check("", tree, reflect.TypeFor[Config]())
	c.values(tree) // it skips values of the wrong type
	if !slices.ContainsFunc(c.probs, func(p Problem) bool { return !p.Ignored }) {
		// What the checks pass go-toml must decode; if it does not, say
		// so rather than run on half a file.
		if _, err := decode(tree); err != nil {
			c.probs = append(c.probs, Problem{Source: source, Message: err.Error()})
		}
	}
	slices.SortStableFunc(c.probs, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	if slices.ContainsFunc(c.probs, func(p Problem) bool { return !p.Ignored }) {
		return nil, c.probs
	}
	return tree, c.probs
}

func syntaxProblem(source string, err error) Problem {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return Problem{Source: source, Line: row, Message: fmt.Sprintf("column %d: %s", col, de.Error())}
	}
	return Problem{Source: source, Message: err.Error()}
}

// decode turns a merged tree into a Config, strictly.
func decode(tree map[string]any) (*Config, error) {
	data, err := toml.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var c Config
	d := toml.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return &c, nil
}

// MaxFileBytes bounds a config file. A project's file comes with whatever
// repository is open: a link to /dev/zero or a named pipe there must not
// hang or exhaust agent-ls.
const MaxFileBytes = 1 << 20

// readBounded reads a regular file of at most MaxFileBytes. It opens
// without blocking, so a named pipe is refused rather than waited on.
func readBounded(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is over the limit of %d bytes for a config file", path, MaxFileBytes)
	}
	return data, nil
}
