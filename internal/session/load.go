package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
)

// Loaded is a session read back from its record.
type Loaded struct {
	// Record is what agent.Manager.Restore takes.
	Record    agent.SessionRecord
	CreatedAt time.Time
	UpdatedAt time.Time
	// Items are the events that draw the conversation (the history
	// items of agent/resumeSession: turnStarted, message, reasoning,
	// toolCall, toolResult, fileChange, plan, compacted, steered,
	// turnCompleted),
	// in order. A turn the record shows no end of (agent-ls stopped
	// during it) ends with a turnCompleted of status interrupted.
	Items []HistoryItem
	// Problems say what could not be read: a last line cut short by a
	// crash (ignored), a line that does not parse (skipped).
	Problems []string
	// arena is where the items' JSON were read (see ItemsArray).
	arena []byte
}

// HistoryItem is one event of a session's conversation as it was sent:
// its JSON is the agent/event object. It is parsed only when asked.
type HistoryItem struct {
	TurnID string
	Type   event.Type
	JSON   json.RawMessage
}

// Event parses the item.
func (h HistoryItem) Event() (event.Event, error) { return event.Parse(h.JSON) }

// itemPrefix starts every item line.
var itemPrefix = []byte(`{"t":"item","item":`)

// redrawn are the event types a client redraws a conversation from.
var redrawn = map[event.Type]bool{
	event.TypeTurnStarted: true, event.TypeMessage: true, event.TypeReasoning: true,
	event.TypeToolCall: true, event.TypeToolResult: true, event.TypeFileChange: true,
	event.TypePlan: true, event.TypeCompacted: true, event.TypeTurnCompleted: true,
	event.TypeSteered: true, event.TypeModeChanged: true, event.TypeWebSearch: true, event.TypeRewound: true,
}

// stoppedDuringTurn is the error of a turn that agent-ls did not finish.
const stoppedDuringTurn = "agent-ls stopped during this turn"

// Load reads session id's record.
func (st *Store) Load(id string) (*Loaded, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	f, err := os.Open(st.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	ld := &Loaded{UpdatedAt: fi.ModTime()}
	r := &reader{ld: ld, undo: map[string]int{}, contents: blobFile(st.undoPath(id))}
	if err := r.read(f); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	if ld.Record.Info.SessionID != id {
		return nil, fmt.Errorf("session %s: its record names session %q", id, ld.Record.Info.SessionID)
	}
	return ld, nil
}

// reader rebuilds a session from its lines.
type reader struct {
	ld       *Loaded
	undo     map[string]int // turn → index in Record.Undo
	contents blobFile
	// open is the turn started and not yet completed; openItems the ids
	// of the items its history gained, and openMessages the messages it
	// finished, which a crash may have kept from the history.
	open         string
	openItems    map[string]bool
	openMessages []HistoryItem
	// head holds an event line's header while it is read; turn is the
	// turn id of the last event read.
	head []byte
	turn string
	// planTurn is the last turn started in plan mode.
	planTurn string
	// sizes is what the first pass counted; compactions the compaction
	// lines read so far.
	sizes       census
	compactions int
	// usage is the last usage event with the session's total so far.
	usage []byte
}

// knownTypes are the event types by name, so reading one allocates
// nothing.
var knownTypes = func() map[string]event.Type {
	m := map[string]event.Type{}
	for _, t := range event.Types() {
		m[string(t)] = t
	}
	return m
}()

// plainHeader reads an event line's header as agent-ls writes it
// ({"t":"event","at":…,"turn":"ID","seq":N,"type":"TYPE"), without the
// JSON decoder, which costs most of a resume for these lines. ok is
// false for anything else (an escape in a string, a missing field, an
// unknown type), which the decoder then reads.
func plainHeader(h []byte) (turn []byte, seq int64, typ event.Type, ok bool) {
	turn, ok = plainString(h, `"turn":"`)
	if !ok {
		return nil, 0, "", false
	}
	name, ok := plainString(h, `"type":"`)
	if !ok {
		return nil, 0, "", false
	}
	if typ, ok = knownTypes[string(name)]; !ok {
		return nil, 0, "", false
	}
	j := bytes.Index(h, []byte(`"seq":`))
	if j < 0 {
		return nil, 0, "", false
	}
	digits := h[j+len(`"seq":`):]
	n := 0
	for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
		n++
	}
	if n == 0 || n > 18 || (n < len(digits) && digits[n] != ',' && digits[n] != '}') {
		return nil, 0, "", false
	}
	for _, d := range digits[:n] {
		seq = seq*10 + int64(d-'0')
	}
	return turn, seq, typ, true
}

// plainString returns the string after key up to its closing quote, when
// it has no escape.
func plainString(h []byte, key string) ([]byte, bool) {
	j := bytes.Index(h, []byte(key))
	if j < 0 {
		return nil, false
	}
	v := h[j+len(key):]
	end := bytes.IndexByte(v, '"')
	if end < 0 || bytes.IndexByte(v[:end], '\\') >= 0 {
		return nil, false
	}
	return v[:end], true
}

// read applies the record's lines as they are read: a record is read
// once, through a small buffer, and only what the session keeps is
// allocated (a fresh process pays dearly for memory it touches first).
func (r *reader) read(f io.ReadSeeker) error {
	br := bufio.NewReaderSize(f, 256<<10)
	if err := r.presize(f, br); err != nil {
		return err
	}
	var long []byte // a line longer than the buffer
	n := 0
	for {
		l, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, l...)
			continue
		}
		if long != nil {
			l, long = append(long, l...), nil
		}
		if err == io.EOF {
			if len(l) > 0 {
				r.ld.Problems = append(r.ld.Problems, fmt.Sprintf("the last line (%d) was cut short (%d bytes, agent-ls stopped while writing it) and is ignored", n+1, len(l)))
			}
			break
		}
		if err != nil {
			return err
		}
		n++
		l = l[:len(l)-1]
		if n == 1 {
			if err := r.first(l); err != nil {
				return err
			}
			continue
		}
		if err := r.line(l); err != nil {
			r.ld.Problems = append(r.ld.Problems, fmt.Sprintf("line %d is skipped: %v", n, err))
		}
	}
	if n == 0 {
		return errors.New("the record has no complete line")
	}
	r.closeOpen()
	r.keepQueued()
	r.keepUsage()
	return nil
}

// keepQueued keeps what the prompts still queued carry, and forgets that
// of prompts that ran or were removed.
func (r *reader) keepQueued() {
	rec := &r.ld.Record
	if len(rec.Queued) == 0 {
		return
	}
	waiting := make(map[string]bool, len(rec.Queue))
	for _, q := range rec.Queue {
		waiting[q.TurnID] = true
	}
	for id := range rec.Queued {
		if !waiting[id] {
			delete(rec.Queued, id)
		}
	}
	if len(rec.Queued) == 0 {
		rec.Queued = nil
	}
}

// first reads the first line, the session's.
func (r *reader) first(b []byte) error {
	var l line
	if err := json.Unmarshal(b, &l); err != nil || l.T != kindSession || l.Info == nil {
		return fmt.Errorf("the first line is not a session's (%v)", err)
	}
	if l.V > Version {
		return fmt.Errorf("the record is of version %d; this agent-ls reads up to %d", l.V, Version)
	}
	r.ld.Record.Info, r.ld.CreatedAt = *l.Info, l.At
	return nil
}

// line applies one line; b is the reader's and is not kept.
func (r *reader) line(b []byte) error {
	if bytes.HasPrefix(b, eventPrefix) {
		return r.event(b)
	}
	if bytes.HasPrefix(b, itemPrefix) && b[len(b)-1] == '}' {
		// The most common line, read straight into the history.
		h := &r.ld.Record.History
		*h = append(*h, model.Item{})
		it := &(*h)[len(*h)-1]
		if err := readItem(b[len(itemPrefix):len(b)-1], it); err != nil {
			*h = (*h)[:len(*h)-1]
			return err
		}
		if r.open != "" && it.ID != "" {
			r.openItems[it.ID] = true
		}
		return nil
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	rec := &r.ld.Record
	switch l.T {
	case kindItem:
		if l.Item == nil {
			return errors.New("an item line without its item")
		}
		rec.History = append(rec.History, *l.Item)
		if r.open != "" && l.Item.ID != "" {
			r.openItems[l.Item.ID] = true
		}
	case kindEvent:
		return errors.New("an event line without its event")
	case kindSettings:
		if l.Info != nil && l.Info.SessionID == rec.Info.SessionID {
			rec.Info = *l.Info
		}
	case kindCompaction:
		r.compactions++
		rec.History = append(make([]model.Item, 0, len(l.Items)+r.sizes.itemsAfter(r.compactions)), l.Items...)
		// Where the turns so far began is gone with their items.
		for i := range rec.Checkpoints {
			rec.Checkpoints[i].HistoryStart = -1
		}
	case kindUndo:
		r.undoLine(l)
	case kindCheckpoint:
		r.checkpointLine(l)
	case kindRewound:
		r.rewoundLine(l)
	case kindUndone:
		if i, ok := r.undo[l.Turn]; ok {
			rec.Undo[i].Undone = true
		}
	case kindApproval:
		if l.Rule != nil {
			rec.Approvals = append(rec.Approvals, *l.Rule)
		}
	case kindQueued:
		if l.Input != nil && l.Turn != "" {
			if rec.Queued == nil {
				rec.Queued = map[string]agent.TurnInput{}
			}
			rec.Queued[l.Turn] = *l.Input
		}
	}
	return nil
}

// event reads an event line's header; the event itself is kept as it
// is, for the client that redraws it.
func (r *reader) event(b []byte) error {
	i := bytes.Index(b, evKey)
	if i < 0 || b[len(b)-1] != '}' {
		return errors.New("an event line without its event")
	}
	var l struct {
		Turn string     `json:"turn"`
		Seq  int64      `json:"seq"`
		Type event.Type `json:"type"`
	}
	if turn, seq, typ, ok := plainHeader(b[:i]); ok {
		if string(turn) != r.turn { // events come in runs of one turn
			r.turn = string(turn)
		}
		l.Turn, l.Seq, l.Type = r.turn, seq, typ
	} else {
		r.head = append(append(r.head[:0], b[:i]...), '}')
		if err := json.Unmarshal(r.head, &l); err != nil {
			return err
		}
	}
	if l.Type == event.TypeTurnStarted {
		// Before this turn's items: the last one's end comes first.
		r.closeOpen()
	}
	item := HistoryItem{TurnID: l.Turn, Type: l.Type, JSON: b[i+len(evKey) : len(b)-1]}
	if redrawn[l.Type] {
		// Kept: the line is the reader's buffer.
		item.JSON = r.keep(item.JSON)
	}
	rec := &r.ld.Record
	rec.Seq = max(rec.Seq, l.Seq)
	switch l.Type {
	case event.TypeTurnStarted:
		// Queued prompts take their turn ids when they are queued, so
		// turns may start out of order or not at all: the next id goes
		// on after the highest one.
		rec.Turns = max(rec.Turns+1, turnNumber(rec.Info.SessionID, l.Turn))
		r.open, r.openItems, r.openMessages = l.Turn, map[string]bool{}, nil
		r.turnMode(l.Turn, item.JSON)
	case event.TypeModeChanged:
		var mc event.ModeChanged
		if err := json.Unmarshal(item.JSON, &mc); err != nil {
			return err
		}
		rec.Info.Mode, rec.Planned = agent.Mode(mc.Mode), false
	case event.TypeMessage:
		if r.open == l.Turn {
			r.openMessages = append(r.openMessages, item)
		}
	case event.TypeTurnCompleted:
		if r.open == l.Turn {
			r.open = ""
		}
		r.planEnded(l.Turn, item.JSON)
	case event.TypeUsage:
		// Each usage event carries the session's total so far: the
		// last one is the session's, read at the end.
		if bytes.Contains(item.JSON, usageTotal) && json.Valid(item.JSON) {
			r.usage = append(r.usage[:0], item.JSON...)
		}
	case event.TypeQueueChanged:
		// Each carries the whole queue: the last one is the session's.
		var q event.QueueChanged
		if err := json.Unmarshal(item.JSON, &q); err != nil {
			return err
		}
		rec.Queue = q.Items
	}
	if redrawn[l.Type] {
		r.ld.Items = append(r.ld.Items, item)
	}
	return nil
}

// turnMode notes turn as the last one started in plan mode when its
// turnStarted (ev) says so.
func (r *reader) turnMode(turn string, ev []byte) {
	r.planTurn = ""
	if bytes.Contains(ev, []byte(`"mode"`)) {
		var ts event.TurnStarted
		if err := json.Unmarshal(ev, &ts); err == nil && ts.Mode == string(agent.ModePlan) {
			r.planTurn = turn
		}
	}
}

// planEnded notes a plan to approve when turn, started in plan mode,
// completed (its turnCompleted is ev) while the session is in plan mode.
func (r *reader) planEnded(turn string, ev []byte) {
	rec := &r.ld.Record
	if r.planTurn != turn || rec.Info.Mode != agent.ModePlan {
		return
	}
	var tc event.TurnCompleted
	if json.Unmarshal(ev, &tc) == nil && tc.Status == event.StatusCompleted {
		rec.Planned = true
	}
}

// turnNumber is the number of turn id turn of session id (agent-ls
// numbers them "<session>-t<N>"), 0 for an id of another form.
func turnNumber(session, turn string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(turn, session+"-t"))
	if err != nil || n < 0 || !strings.HasPrefix(turn, session+"-t") {
		return 0
	}
	return n
}

// closeOpen ends a turn the record shows no end of: its finished
// messages that had not reached the history yet (a response cut short)
// join it, and the redraw shows the turn interrupted. Calls left without
// output are answered by agent.Manager.Restore.
func (r *reader) closeOpen() {
	if r.open == "" {
		return
	}
	for _, item := range r.openMessages {
		ev, err := item.Event()
		m, ok := ev.Payload.(event.Message)
		if err == nil && ok && !r.openItems[m.ItemID] {
			r.ld.Record.History = append(r.ld.Record.History, model.Item{Type: model.ItemMessage, Role: model.RoleAssistant, ID: m.ItemID, Text: m.Text})
		}
	}
	end := event.Event{SessionID: r.ld.Record.Info.SessionID, TurnID: r.open,
		Payload: event.TurnCompleted{Status: event.StatusInterrupted, Error: stoppedDuringTurn}}
	if b, err := json.Marshal(end); err == nil {
		r.ld.Items = append(r.ld.Items, HistoryItem{TurnID: r.open, Type: event.TypeTurnCompleted, JSON: r.keep(b)})
	}
	r.open, r.openItems, r.openMessages = "", nil, nil
}
