package model

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// newFake starts a fake server with steps, closed with the test.
func newFake(t testing.TB, steps ...fakemodel.Step) *fakemodel.Server {
	t.Helper()
	srv := fakemodel.New(steps...)
	t.Cleanup(srv.Close)
	return srv
}

// newClient returns a client of srv on a fake clock (retries and idle
// timeouts wait for no real time: see clockOf); edit adjusts the config.
func newClient(t testing.TB, srv *fakemodel.Server, wire string, edit ...func(*Config)) Client {
	t.Helper()
	cfg := Config{
		WireAPI:     wire,
		BaseURL:     srv.URL(),
		IdleTimeout: time.Minute,
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.(*client).clock = &fakeClock{}
	return c
}

// recorder collects the events of a stream.
type recorder struct{ events []Event }

func (r *recorder) emit(e Event) { r.events = append(r.events, e) }

// deltas joins the deltas of kind for itemID.
func (r *recorder) deltas(kind EventKind, itemID string) string {
	var b strings.Builder
	for _, e := range r.events {
		if e.Kind == kind && e.ItemID == itemID {
			b.WriteString(e.Delta)
		}
	}
	return b.String()
}

// of returns the events of kind.
func (r *recorder) of(kind EventKind) []Event {
	var out []Event
	for _, e := range r.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// deltaItems lists the item ids deltas of kind were delivered for.
func (r *recorder) deltaItems(kind EventKind) []string {
	var ids []string
	seen := map[string]bool{}
	for _, e := range r.events {
		if e.Kind == kind && !seen[e.ItemID] {
			seen[e.ItemID] = true
			ids = append(ids, e.ItemID)
		}
	}
	return ids
}
