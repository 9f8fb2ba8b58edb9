package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is a stdio server's process, started so that its whole
// process group is killed without grace and it is reaped once, whatever
// ends it.
type process struct {
	cmd    *exec.Cmd
	stdout *os.File // agent-ls's ends of the pipes
	stdin  *os.File
	exited chan struct{} // closed when the process has been reaped
}

// reapDelay bounds how long the reaping waits for the server's stderr
// after it exited, if something it started keeps it open.
const reapDelay = 2 * time.Second

// startProcess starts the stdio server's command, in a process group of
// its own, with the environment the config gives it.
func (s *server) startProcess() (*process, error) {
	// The process's life is the set's, not the startup timeout's.
	cmd := exec.CommandContext(s.set.ctx, s.cfg.Command, s.cfg.Args...)
	cmd.Env = ServerEnv(s.set.opts.Environ(), s.cfg.Env)
	cmd.Dir = s.cfg.Cwd
	cmd.Stderr = &s.stderr
	setGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	p, err := startProcess(cmd)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", s.cfg.Command, err)
	}
	return p, nil
}

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

// transport is the SDK's stdio transport over the process's stdin and
// stdout: its stdout read through a stdoutFilter, a write to its stdin
// given up after writeTimeout (a server that reads nothing breaks the
// connection, not agent-ls). Closing it closes the pipes, not the
// process. When the process has exited, reading ends, and says so, even
// if something it started keeps its stdout open.
func (p *process) transport(log *floodLog, writeTimeout time.Duration) *sdk.IOTransport {
	ended := func() error {
		if p.state() != nil {
			return fmt.Errorf("%w: the server's process exited", errConnectionClosed)
		}
		return nil
	}
	go func() {
		<-p.exited
		p.stdout.Close()
	}()
	return stdioTransport(p.stdout, &deadlineWriter{f: p.stdin, timeout: writeTimeout}, maxMessageBytes, log, ended)
}

// deadlineWriter writes to a pipe, each write given up after timeout.
type deadlineWriter struct {
	f       *os.File
	timeout time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	if err := w.f.SetWriteDeadline(time.Now().Add(w.timeout)); err != nil {
		return w.f.Write(p)
	}
	n, err := w.f.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("%w: the server read nothing of its stdin for %s: %w", errConnectionClosed, w.timeout, err)
	}
	return n, err
}

func (w *deadlineWriter) Close() error { return w.f.Close() }

// closePipes closes agent-ls's ends of the pipes (a connection that
// failed in its handshake has no session to close them).
func (p *process) closePipes() {
	p.stdin.Close()
	p.stdout.Close()
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
