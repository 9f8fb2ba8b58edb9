package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// errMessageTooLarge: a server sent a message longer than
// maxMessageBytes, which breaks the connection.
var errMessageTooLarge = fmt.Errorf("%w: a message from the server is longer than the %d MiB agent-ls reads", errConnectionClosed, maxMessageBytes>>20)

// streamTransport is the stdio transport: newline-delimited JSON-RPC
// messages read from r (the server's stdout) and written to w (its
// stdin).
type streamTransport struct {
	r io.Reader
	w io.Writer
	// closeFn closes both ends; reading and writing end with it.
	closeFn func()
	// max bounds one line: maxMessageBytes.
	max int

	rcv       receiver
	wmu       sync.Mutex // one message written at a time
	dmu       sync.Mutex // guards the write deadline and writes
	writes    int        // messages written, for the deadline's owner
	closeOnce sync.Once
}

func newStreamTransport(r io.Reader, w io.Writer, closeFn func()) *streamTransport {
	return &streamTransport{r: r, w: w, closeFn: closeFn, max: maxMessageBytes}
}

func (t *streamTransport) start(rcv receiver) {
	t.rcv = rcv
	go func() {
		br := bufio.NewReaderSize(t.r, 64<<10)
		for {
			line, err := readLine(br, t.max)
			if len(bytes.TrimSpace(line)) > 0 && !errors.Is(err, errMessageTooLarge) {
				rcv.handle(line)
			}
			if err != nil {
				if err == io.EOF {
					err = errors.New("the server closed its stdout")
				}
				rcv.fail(err)
				return
			}
		}
	}()
}

// deadliner is a writer whose writes can be given up (a pipe to a
// process).
type deadliner interface {
	SetWriteDeadline(time.Time) error
}

// send writes one message and its newline. A write the server does not
// read ends with ctx, and then the connection is broken: part of the
// message may have been written.
func (t *streamTransport) send(ctx context.Context, msg *outgoing) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if d, ok := t.w.(deadliner); ok {
		dl, _ := ctx.Deadline()
		t.dmu.Lock()
		t.writes++
		write := t.writes
		err := d.SetWriteDeadline(dl)
		t.dmu.Unlock()
		if err == nil {
			// An interrupt ends the write too. The deadline it sets must
			// not outlive this write, should the function run late.
			stop := context.AfterFunc(ctx, func() {
				t.dmu.Lock()
				defer t.dmu.Unlock()
				if t.writes == write {
					_ = d.SetWriteDeadline(time.Now())
				}
			})
			defer stop()
		}
	}
	buf := make([]byte, 0, len(msg.data)+1)
	buf = append(append(buf, msg.data...), '\n')
	if n, err := t.w.Write(buf); err != nil {
		if n > 0 {
			// What follows would be read as the rest of this message.
			t.rcv.fail(fmt.Errorf("a message to the server was cut after %d bytes: %w", n, err))
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: writing to the server's stdin: %w", errConnectionClosed, err)
	}
	return nil
}

func (t *streamTransport) close() {
	t.closeOnce.Do(t.closeFn)
}

// readLine reads one line, without its end, of at most max bytes; a
// longer one is errMessageTooLarge. At the end of r, the last line comes
// with io.EOF.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max+2 {
			return nil, errMessageTooLarge
		}
		line = append(line, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return line, err
		}
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) > max {
			return nil, errMessageTooLarge
		}
		return line, nil
	}
}
