package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// imageFlags collects exec's repeatable -i FILE.
type imageFlags []string

func (f *imageFlags) String() string { return strings.Join(*f, ",") }

func (f *imageFlags) Set(v string) error {
	if v == "" {
		return fmt.Errorf("an empty image path")
	}
	*f = append(*f, v)
	return nil
}

// readImages reads exec's image files, relative to the directory exec
// was started in, as the data URLs a prompt carries. Their count and
// size are checked when the turn starts, against the model.
func readImages(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		u, err := agent.ImageFile(abs)
		if err != nil {
			return nil, fmt.Errorf("-i %s: %w", p, err)
		}
		out = append(out, u)
	}
	return out, nil
}
