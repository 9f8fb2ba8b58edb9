package acp

// The replay of a kept session (session/load): thousands of updates for
// a long session. The SDK encodes each (its SessionUpdate.MarshalJSON
// encodes the variant, decodes it into a map and encodes that again),
// which is most of a load's CPU; the updates of a batch are encoded in
// parallel and written in order.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"runtime"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/event"
)

// replayBatch is how many updates are encoded together.
const replayBatch = 256

// replay sends a kept session's conversation (session/load): the user's
// prompts, the agent's text and thoughts, each tool call with its result
// and diff blocks, the plans, and last the latest usage. The updates
// reach the outbox in order, after what was queued before.
func (s *server) replay(ss *session, items []json.RawMessage) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	v := newEventView()
	rewound := rewoundTurns(items)
	enc := newReplayEncoders(s, runtime.GOMAXPROCS(0))
	defer enc.close()
	batch := make([]sdk.SessionUpdate, 0, replayBatch)
	var usage *sdk.SessionUpdate
	for _, raw := range items {
		ev, err := event.Parse(raw)
		if err != nil {
			s.log.Warn("acp: a kept event could not be read; skipped", "session", ss.id, "err", err)
			continue
		}
		ss.noteKept(ev)
		if rewound[ev.TurnID] {
			continue // a rewound turn is replayed as nothing
		}
		for _, u := range v.updates(ev, ss.info.Cwd, true) {
			if u.UsageUpdate != nil {
				// Only the latest usage says anything now: it is
				// sent last.
				usage = &u
				continue
			}
			batch = append(batch, u)
		}
		if len(batch) >= replayBatch {
			s.pushEncoded(enc.encode(ss.id, batch))
			batch = batch[:0]
		}
	}
	if usage != nil {
		batch = append(batch, *usage)
	}
	if len(batch) > 0 {
		s.pushEncoded(enc.encode(ss.id, batch))
	}
}

// pushEncoded queues messages encoded by the SDK, each written whole
// through the wire as the SDK writes its own.
func (s *server) pushEncoded(msgs [][]byte) {
	s.out.push("", func() {
		for _, m := range msgs {
			if _, err := s.wire.Write(m); err != nil {
				s.log.Debug("acp: session/update not sent", "err", err)
				return
			}
		}
	})
}

// replayEncoders encode session/update notifications exactly as the
// connection sends them. The SDK encodes a message only as it sends it,
// so each encoder is a connection of the SDK whose peer is a buffer.
type replayEncoders struct {
	conns []*sdk.AgentSideConnection
	bufs  []*bytes.Buffer
	// ins are the connections' input: nothing comes in; closed, the
	// connections end (after their logger is set: the SDK's reader
	// reads it when its input ends).
	ins []*io.PipeWriter
}

func newReplayEncoders(agent sdk.Agent, n int) *replayEncoders {
	e := &replayEncoders{}
	log := slog.New(slog.DiscardHandler)
	for range max(1, n) {
		buf := &bytes.Buffer{}
		r, w := io.Pipe()
		c := sdk.NewAgentSideConnection(agent, buf, r)
		c.SetLogger(log)
		e.conns, e.bufs, e.ins = append(e.conns, c), append(e.bufs, buf), append(e.ins, w)
	}
	return e
}

// close ends the encoders' connections.
func (e *replayEncoders) close() {
	for _, w := range e.ins {
		w.Close()
	}
}

// encode returns the messages of updates about session id, in order: the
// n encoders take every n-th update each, at once. An update the SDK
// cannot encode is left out (as sending it would have failed).
func (e *replayEncoders) encode(id string, updates []sdk.SessionUpdate) [][]byte {
	out := make([][]byte, len(updates))
	var wg sync.WaitGroup
	for k := range e.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < len(updates); i += len(e.conns) {
				e.bufs[k].Reset()
				err := e.conns[k].SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: updates[i]})
				if err == nil {
					out[i] = bytes.Clone(e.bufs[k].Bytes())
				}
			}
		}()
	}
	wg.Wait()
	kept := out[:0]
	for _, m := range out {
		if m != nil {
			kept = append(kept, m)
		}
	}
	return kept
}
