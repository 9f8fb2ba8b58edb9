package model

import (
	"bytes"
	"fmt"
	"slices"
)

// replay keeps what the caller has been shown across the attempts of one
// Stream call, so that a retried attempt, which makes the model start its
// answer over, shows nothing twice. It implements the rule documented on
// New: ids mapped by output position and kind, replayed deltas swallowed
// until they catch up, no more deltas for an item whose replay diverged,
// ItemDone once per item unless the item changed.
type replay struct {
	emit    func(Event)
	attempt int
	slots   []*slot // by output position
	ids     map[string]bool
	nonce   string // makes generated ids unique
}

// slot is one output position as the caller has seen it.
type slot struct {
	kind      ItemType
	id        string // the id the caller sees
	delivered []byte // text delivered through deltas
	seen      int    // bytes of text replayed by the current attempt
	attempt   int    // the attempt seen last refers to
	diverged  bool
	started   bool  // ItemStarted was delivered
	done      *Item // the item last delivered through ItemDone
}

func newReplay(emit func(Event), nonce string) *replay {
	return &replay{emit: emit, attempt: 1, ids: map[string]bool{}, nonce: nonce}
}

// retry starts a new attempt.
func (r *replay) retry() { r.attempt++ }

// item returns the slot of the current attempt's item at position pos, of
// kind kind, which the server calls upstreamID.
func (r *replay) item(pos int, kind ItemType, upstreamID string) *slot {
	if pos < 0 {
		pos = 0
	}
	if pos < len(r.slots) {
		if s := r.slots[pos]; s != nil && s.kind == kind {
			if s.attempt != r.attempt {
				s.attempt, s.seen = r.attempt, 0
			}
			return s
		}
	} else {
		r.slots = append(r.slots, make([]*slot, pos+1-len(r.slots))...)
	}
	id := upstreamID
	if id == "" || r.ids[id] {
		id = fmt.Sprintf("%s_%s_%d_%d", kindPrefix(kind), r.nonce, r.attempt, pos)
	}
	r.ids[id] = true
	s := &slot{kind: kind, id: id, attempt: r.attempt}
	r.slots[pos] = s
	return s
}

// lookup returns the slot at pos if the current attempt has touched it.
func (r *replay) lookup(pos int) *slot {
	if pos < 0 || pos >= len(r.slots) {
		return nil
	}
	if s := r.slots[pos]; s != nil && s.attempt == r.attempt {
		return s
	}
	return nil
}

// delta delivers the part of a text delta of s that the caller has not
// seen yet.
func (r *replay) delta(s *slot, kind EventKind, d string) {
	if d == "" || s.diverged {
		return
	}
	start := s.seen
	s.seen += len(d)
	old := s.delivered[min(start, len(s.delivered)):]
	overlap := min(len(old), len(d))
	if string(old[:overlap]) != d[:overlap] {
		s.diverged = true
		return
	}
	fresh := d[overlap:]
	if fresh == "" {
		return
	}
	s.delivered = append(s.delivered, fresh...)
	r.emit(Event{Kind: kind, ItemID: s.id, Delta: fresh})
}

// done delivers a finished item, under the caller's id for it.
func (r *replay) done(s *slot, it Item) {
	it.ID = s.id
	if s.done != nil && equalItems(*s.done, it) {
		return
	}
	s.done = &it
	out := it
	r.emit(Event{Kind: ItemDone, ItemID: s.id, Item: &out})
}

func equalItems(a, b Item) bool {
	return a.Type == b.Type && a.ID == b.ID && a.Role == b.Role && a.Text == b.Text &&
		a.Phase == b.Phase && a.CallID == b.CallID && a.Name == b.Name &&
		a.Arguments == b.Arguments && a.Input == b.Input && a.Output == b.Output &&
		a.EncryptedContent == b.EncryptedContent && slices.Equal(a.Summary, b.Summary) &&
		slices.Equal(a.Images, b.Images) && a.Status == b.Status && bytes.Equal(a.Action, b.Action)
}

func kindPrefix(k ItemType) string {
	switch k {
	case ItemMessage:
		return "msg"
	case ItemReasoning:
		return "rs"
	case ItemFunctionCall:
		return "fc"
	case ItemCustomToolCall:
		return "ctc"
	case ItemWebSearchCall:
		return "ws"
	}
	return "item"
}
