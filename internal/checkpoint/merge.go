package checkpoint

import (
	"slices"

	"github.com/aymanbagabas/go-udiff"
)

// Revert takes an agent's change back from a file the user may have
// edited since: agent is the file as the agent left it, checkpoint as it
// was before the agent's change, current as it is now. The agent's
// change (agent → checkpoint, line by line) is applied to current; the
// user's edits (agent → current) stay. It reports ok false, and returns
// nothing, when an edit of the user overlaps or touches one of the
// agent's hunks: that file is a conflict, to be left as it is.
func Revert(checkpoint, agent, current []byte) (merged []byte, ok bool) {
	if string(current) == string(agent) {
		return checkpoint, true
	}
	if string(current) == string(checkpoint) {
		return current, true
	}
	back := udiff.Lines(string(agent), string(checkpoint))
	user := udiff.Lines(string(agent), string(current))
	for _, b := range back {
		for _, u := range user {
			// Touching counts: an edit right next to the agent's hunk
			// may depend on it (git merges the same way).
			if b.Start <= u.End && u.Start <= b.End {
				return nil, false
			}
		}
	}
	all := slices.Concat(back, user)
	udiff.SortEdits(all)
	out, err := udiff.ApplyBytes(agent, all)
	if err != nil {
		return nil, false
	}
	return out, true
}
