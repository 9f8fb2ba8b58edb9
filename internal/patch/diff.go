package patch

import (
	"strings"
)

// NewPath is where the file is after the change: MovePath for a move,
// Path otherwise.
func (c Change) NewPath() string {
	if c.MovePath != "" {
		return c.MovePath
	}
	return c.Path
}

// Summary is Codex's report of an applied patch, which models expect:
// "Success. Updated the following files:" then "A <path>" for each added
// file, "M <path>" for each updated one (its destination when moved) and
// "D <path>" for each deleted one, paths as written in the patch.
func (cs ChangeSet) Summary() string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, k := range []struct {
		kind   Kind
		letter string
	}{{Add, "A "}, {Update, "M "}, {Delete, "D "}} {
		for _, c := range cs {
			if c.Kind == k.kind {
				b.WriteString(k.letter + c.NewPath() + "\n")
			}
		}
	}
	return b.String()
}
