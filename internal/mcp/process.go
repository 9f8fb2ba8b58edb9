package mcp

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is a stdio server's process, started by agent-ls itself (not
// by the SDK's CommandTransport) so that its whole process group is
// killed without grace and it is reaped once, whatever ends it.
type process struct {
	cmd    *exec.Cmd
	stdout *os.File // agent-ls's ends of the pipes
	stdin  *os.File
	exited chan struct{} // closed when the process has been reaped
}

// reapDelay bounds how long the reaping waits for the server's stderr
// after it exited, if something it started keeps it open.
const reapDelay = 2 * time.Second

// startProcess starts cmd with its stdin and stdout on pipes and reaps it
// in the background. cmd.Stderr must be set by the caller.
func startProcess(cmd *exec.Cmd) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.WaitDelay = reapDelay
	err = cmd.Start()
	// The child's ends: the child has them now, or nobody does.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	p := &process{cmd: cmd, stdout: outR, stdin: inW, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// transport is the MCP transport over the process's stdin and stdout;
// closing it closes the pipes, not the process.
func (p *process) transport() mcpsdk.Transport {
	return &mcpsdk.IOTransport{Reader: p.stdout, Writer: p.stdin}
}

// kill kills the process's group.
func (p *process) kill() { killGroup(p.cmd) }

// wait waits until the process is reaped (it was killed: that is soon).
func (p *process) wait() {
	select {
	case <-p.exited:
	case <-time.After(2 * reapDelay):
	}
}

// state is how the process ended, nil while it has not been reaped.
func (p *process) state() *os.ProcessState {
	select {
	case <-p.exited:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// headerTransport adds the configured headers (the bearer token among
// them) to every request to a streamable-HTTP server.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
	// probeTimeout bounds the wait for the answer to server/discover.
	probeTimeout time.Duration
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.headers {
		req.Header[k] = vs
	}
	if t.probeTimeout <= 0 || req.Header.Get("Mcp-Method") != methodDiscover {
		return t.base.RoundTrip(req)
	}
	// The probe of the newer protocol: a server of an older one may never
	// answer it, so its answer must begin within probeTimeout; a failed
	// request makes the SDK fall back to the initialize handshake.
	ctx, cancel := context.WithCancel(req.Context())
	timer := time.AfterFunc(t.probeTimeout, cancel)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	timer.Stop()
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody ends a request's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	defer b.cancel()
	return b.ReadCloser.Close()
}
