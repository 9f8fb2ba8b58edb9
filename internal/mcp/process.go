package mcp

import (
	"os"
	"os/exec"
	"time"
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
func (p *process) transport() *streamTransport {
	return newStreamTransport(p.stdout, p.stdin, func() {
		p.stdin.Close()
		p.stdout.Close()
	})
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
