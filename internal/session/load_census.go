package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
)

// census is what a first, quick pass over a record finds, so that the
// pass that reads it allocates each of its lists once, at its size: a
// fresh process pays for every page it touches first, and a list grown
// by doubling touches twice its size (a resume of 1,000 turns spent a
// third of its time growing them).
type census struct {
	// items are the item lines before the first compaction line, then
	// after each one: the history's length at the end of each
	// stretch, but for the compaction's own items.
	items []int
	// events and eventBytes are the event lines and their length: an
	// upper bound on the history items and their JSON.
	events     int
	eventBytes int
}

// compactionPrefix starts every compaction line.
var compactionPrefix = []byte(`{"t":"compaction"`)

// count reads a record from br, looking at each line's start only.
func count(br *bufio.Reader) (census, error) {
	c := census{items: []int{0}}
	start, event := true, false // at a line's start; in an event line
	for {
		l, err := br.ReadSlice('\n')
		if start {
			event = bytes.HasPrefix(l, eventPrefix)
			switch {
			case event:
				c.events++
			case bytes.HasPrefix(l, itemPrefix):
				c.items[len(c.items)-1]++
			case bytes.HasPrefix(l, compactionPrefix):
				c.items = append(c.items, 0)
			}
		}
		if event {
			c.eventBytes += len(l)
		}
		start = !errors.Is(err, bufio.ErrBufferFull)
		if err == io.EOF {
			return c, nil
		}
		if err != nil && start {
			return c, err
		}
	}
}

// itemsAfter is how many item lines follow the k-th compaction line
// before the next one (0 when the count does not say).
func (c census) itemsAfter(k int) int {
	if k < 0 || k >= len(c.items) {
		return 0
	}
	return c.items[k]
}

// presize counts the record's lines from the start of f, then goes back
// to it, and sizes the lists the reading fills.
func (r *reader) presize(f io.ReadSeeker, br *bufio.Reader) error {
	c, err := count(br)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	br.Reset(f)
	r.sizes = c
	r.ld.Items = make([]HistoryItem, 0, c.events+1)
	r.ld.Record.History = make([]model.Item, 0, c.itemsAfter(0))
	r.ld.arena = make([]byte, answerRoom, answerRoom+c.eventBytes+answerTail)
	return nil
}

// usageTotal is in a usage event that carries the session's total.
var usageTotal = []byte(`"total":`)

// keepUsage takes the session's token use from the last usage event
// that carries a total.
func (r *reader) keepUsage() {
	if r.usage == nil {
		return
	}
	var u struct {
		Total *event.UsageTotal `json:"total"`
	}
	if err := json.Unmarshal(r.usage, &u); err == nil && u.Total != nil {
		r.ld.Record.Usage = *u.Total
	}
}
