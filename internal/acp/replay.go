package acp

// The replay of a kept session (session/load): thousands of updates for
// a long session, encoded by appendUpdate (replay_encode.go) where it
// can, by the SDK otherwise, and written in batches.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/event"
)

// replayBatch is how many bytes of updates are queued together.
const replayBatch = 256 << 10

// replay sends a kept session's conversation (session/load): the user's
// prompts, the agent's text and thoughts, each tool call with its result
// and diff blocks, the plans, and last the latest usage. The updates
// reach the outbox in order, after what was queued before.
func (s *server) replay(ss *session, items []json.RawMessage) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	v := newEventView()
	rewound := rewoundTurns(items)
	enc := &replayEncoder{agent: s}
	defer enc.close()
	var batch [][]byte
	var buf []byte // the batch's messages, one after another
	var usage *sdk.SessionUpdate
	flush := func() {
		if len(batch) > 0 {
			s.pushEncoded(batch)
		}
		batch, buf = nil, nil
	}
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
			buf, batch = enc.append(buf, batch, ss.id, &u)
		}
		if len(buf) >= replayBatch {
			flush()
		}
	}
	if usage != nil {
		buf, batch = enc.append(buf, batch, ss.id, usage)
	}
	flush()
}

// pushEncoded queues encoded messages, each written whole through the
// wire as the SDK writes its own.
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

// replayEncoder encodes session/update notifications exactly as the
// connection sends them: appendUpdate where it can, else the SDK, which
// encodes a message only as it sends it, through a connection of its own
// whose peer is a buffer (made when first needed).
type replayEncoder struct {
	agent sdk.Agent
	conn  *sdk.AgentSideConnection
	out   *bytes.Buffer
	// in is the connection's input: nothing comes in; closed, the
	// connection ends (after its logger is set: the SDK's reader reads
	// it when its input ends).
	in *io.PipeWriter
}

// append adds u's message to buf and to msgs (which share buf's memory).
// An update the SDK cannot encode is left out (as sending it would have
// failed).
func (e *replayEncoder) append(buf []byte, msgs [][]byte, id string, u *sdk.SessionUpdate) ([]byte, [][]byte) {
	start := len(buf)
	buf, ok := appendUpdate(buf, id, u)
	if !ok {
		m, err := e.sdkEncode(id, *u)
		if err != nil {
			return buf, msgs
		}
		buf = append(buf, m...)
	}
	// Capped, a message cannot grow into the next; when buf moves, the
	// earlier ones keep the old memory.
	return buf, append(msgs, buf[start:len(buf):len(buf)])
}

// sdkEncode is the message the SDK's connection writes for u.
func (e *replayEncoder) sdkEncode(id string, u sdk.SessionUpdate) ([]byte, error) {
	if e.conn == nil {
		e.out = &bytes.Buffer{}
		r, w := io.Pipe()
		e.conn, e.in = sdk.NewAgentSideConnection(e.agent, e.out, r), w
		e.conn.SetLogger(slog.New(slog.DiscardHandler))
	}
	e.out.Reset()
	if err := e.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u}); err != nil {
		return nil, err
	}
	return e.out.Bytes(), nil
}

// close ends the SDK's connection, if one was made.
func (e *replayEncoder) close() {
	if e.in != nil {
		e.in.Close()
	}
}
