package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/lspframe"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// codec encodes LSP payloads with the union-aware protocol codec and passes
// already-encoded JSON through untouched (protocol's own codec is not
// exported).
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = bytes.Clone(data)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// stream reads the LSP Content-Length framing (lspframe) with one
// difference from jsonrpc2's reader: a malformed message does not end the connection. jsonrpc2
// v1.0.1 stops reading (and so closes the connection) when a frame's header
// is invalid or its body is not a JSON-RPC message. This stream answers such
// a frame itself, with a ParseError or InvalidRequest response whose id is
// null (or the request's id when it has a readable one), and reads on.
//
// It implements jsonrpc2's raw frame interface (ReadFrame and WriteFrame),
// so the connection still reads frames without decoding them twice and
// still accepts batches. Writes go through lspframe's Writer, which, unlike
// jsonrpc2's header stream, does not keep a large message's buffer.
type stream struct {
	in  *bufio.Reader
	out *lspframe.Writer
	rwc io.Closer
	log *slog.Logger
	buf []byte
	big bool // the last frame read was large
	// cutter, when set, cuts the texts out of document notifications
	// (doctext.go).
	cutter *textCutter
}

// readBuffer is the size of the stream's read buffer, which holds the
// whole of most frames.
const readBuffer = 64 << 10

func newStream(rwc io.ReadWriteCloser, log *slog.Logger) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, readBuffer), out: lspframe.NewWriter(rwc), rwc: rwc, log: log}
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	return msg, n, err
}

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.out.Compose(func(buf []byte) []byte { return jsonrpc2.AppendMessage(buf, msg) })
}

func (s *stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.out.WriteFrame(data)
}

func (s *stream) Close() error { return s.rwc.Close() }

// ReadFrame returns the body of the next well-formed message, answering
// malformed ones on the way.
func (s *stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	if s.big {
		// The large message before this read has been handled (or, for
		// a request, handed to its handler).
		s.big = false
		releaseLater()
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if s.cutter != nil {
			s.cutter.texts.reset()
		}
		body, n, err := s.readFrame()
		if errors.Is(err, lspframe.ErrBadHeader) {
			s.log.Warn("dropping a message with a bad header", "err", err)
			s.reject(ctx, jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.ParseError, err.Error()))
			if err := lspframe.Resync(s.in); err != nil {
				return nil, 0, err
			}
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		if s.cutter != nil && len(body) >= cutMin {
			body, _ = s.cutter.cut(body)
		}
		reply, pass := screen(body)
		if reply != nil {
			if _, err := s.WriteFrame(ctx, reply); err != nil {
				s.log.Warn("answering a message the connection may not handle", "err", err)
			}
		}
		if pass == nil {
			continue
		}
		body = pass
		if id, rpcErr, answer := check(body); rpcErr != nil {
			s.log.Warn("dropping a malformed message", "err", rpcErr.Message, "body", textcut.Cut(string(body), 200))
			if answer {
				s.reject(ctx, id, rpcErr)
			}
			continue
		}
		return body, n, nil
	}
}

// readFrame reads one header block and the body it announces.
func (s *stream) readFrame() ([]byte, int64, error) {
	length, headerLen, err := lspframe.ReadHeader(s.in)
	if err != nil {
		return nil, 0, err
	}
	var body []byte
	switch {
	case length <= readBuffer:
		// Read where it lies, valid until the next read as s.buf is:
		// frames the size of a document take few reads and no copy.
		body, err = s.in.Peek(length)
		if err == nil {
			_, err = s.in.Discard(length)
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return body, int64(headerLen + length), err
	case length > bigFrame:
		body = make([]byte, length) // not kept: see bigmsg.go
		s.big = true
	case cap(s.buf) < length:
		s.buf = make([]byte, length)
		fallthrough
	default:
		body = s.buf[:length]
	}
	if _, err := io.ReadFull(s.in, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	return body, int64(headerLen + length), nil
}

// check reports whether body is a message the connection can handle. If
// not, it returns the error to answer with, the id to answer to, and
// whether to answer at all: a broken response from the peer is dropped
// rather than answered with a response of our own.
func check(body []byte) (jsonrpc2.ID, *jsonrpc2.Error, bool) {
	if i := bytes.IndexFunc(body, func(r rune) bool { return r != ' ' && r != '\t' && r != '\r' && r != '\n' }); i >= 0 && body[i] == '[' {
		if _, err := jsonrpc2.ParseRequests(body); err != nil {
			return jsonrpc2.ID{}, codeError(body, err), true
		}
		return jsonrpc2.ID{}, nil, false // members are judged one by one by the connection
	}
	if _, err := jsonrpc2.DecodeMessage(body); err == nil {
		return jsonrpc2.ID{}, nil, false
	}
	if !json.Valid(body) {
		return jsonrpc2.ID{}, jsonrpc2.NewError(jsonrpc2.ParseError, "parse error: the message is not valid JSON"), true
	}
	var peek struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	_ = json.Unmarshal(body, &peek) // a non-object leaves peek empty
	if peek.Method == nil && peek.ID != nil {
		return jsonrpc2.ID{}, jsonrpc2.ErrInvalidRequest, false
	}
	var id jsonrpc2.ID
	var num int64
	var str string
	if json.Unmarshal(peek.ID, &num) == nil {
		id = jsonrpc2.NewNumberID(num)
	} else if json.Unmarshal(peek.ID, &str) == nil {
		id = jsonrpc2.NewStringID(str)
	}
	return id, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "invalid request: not a JSON-RPC 2.0 request object"), true
}

func codeError(body []byte, err error) *jsonrpc2.Error {
	var rpcErr *jsonrpc2.Error
	if !json.Valid(body) {
		return jsonrpc2.NewError(jsonrpc2.ParseError, "parse error: the message is not valid JSON")
	}
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
}

func (s *stream) reject(ctx context.Context, id jsonrpc2.ID, rpcErr *jsonrpc2.Error) {
	if _, err := s.Write(ctx, jsonrpc2.NewResponse(id, nil, rpcErr)); err != nil {
		s.log.Warn("answering a malformed message", "err", err)
	}
}
