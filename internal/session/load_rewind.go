package session

import "slices"

// checkpointLine keeps a turn's checkpoint; a later line of the same turn
// replaces the earlier one (where the turn began is the first's).
func (r *reader) checkpointLine(l line) {
	if l.Checkpoint == nil || l.Checkpoint.TurnID == "" {
		return
	}
	rec := &r.ld.Record
	for i := range rec.Checkpoints {
		if rec.Checkpoints[i].TurnID == l.Checkpoint.TurnID {
			start := rec.Checkpoints[i].HistoryStart
			rec.Checkpoints[i] = *l.Checkpoint
			rec.Checkpoints[i].HistoryStart = start
			return
		}
	}
	rec.Checkpoints = append(rec.Checkpoints, *l.Checkpoint)
}

// rewoundLine takes rewound turns out of the history, as the rewind did.
func (r *reader) rewoundLine(l line) {
	rec := &r.ld.Record
	if l.Keep != nil && *l.Keep >= 0 && *l.Keep <= len(rec.History) {
		rec.History = rec.History[:*l.Keep]
	}
	for i := range rec.Checkpoints {
		if slices.Contains(l.Turns, rec.Checkpoints[i].TurnID) {
			rec.Checkpoints[i].Rewound = true
		}
	}
}
