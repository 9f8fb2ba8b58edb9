package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// terminal is one command session: a command exec_command started, with
// a pseudo-terminal (tty) or pipes, that may run on after the call.
type terminal struct {
	id        int
	command   []string
	cwd       string
	tty       bool
	sandboxed bool
	// mode is the session's sandbox mode when it started, network
	// whether a sandboxed command may use the network: what a stricter
	// policy later is compared with.
	mode    policy.SandboxMode
	network bool
	// cancel kills the command and everything it started.
	cancel context.CancelFunc
	// readOnly: it runs in the read-only sandbox (plan mode's), so what
	// is typed into it cannot change files either.
	readOnly bool

	cmd   *sandbox.Cmd
	input io.WriteCloser // the pty master, or the stdin pipe
	live  *liveOutput
	// done is closed once the command ended and its output was read in:
	// exitCode is set then.
	done     chan struct{}
	exitCode int

	mu    sync.Mutex // guards out, carry, killed and the order of output events
	out   *capture   // output the model has not read yet
	carry []byte     // an incomplete character at the end of the last read
	// killed says why agent-ls ended the command ("" when it ended by
	// itself), for the model's next answer and the listing.
	killed string
	inputM sync.Mutex // guards lastInput
	// lastInput is closed once the latest input was written: the next
	// waits for it.
	lastInput chan struct{}
}

// terminalSpec is what to start.
type terminalSpec struct {
	callID    string
	argv      []string
	dir       string
	tty       bool
	sandboxed bool
}

// start starts spec's command as a new session of ts, in the sandbox
// unless !spec.sandboxed; the command ends when ts closes.
func (ts *Terminals) start(env *Env, spec terminalSpec) (*terminal, error) {
	t := &terminal{command: spec.argv, cwd: spec.dir, tty: spec.tty, sandboxed: spec.sandboxed,
		readOnly: spec.sandboxed && env.Boundary != nil && env.Boundary.Mode() == policy.ReadOnly,
		done:     make(chan struct{}), out: newCaptureOf(terminalBufferBytes / 2)}
	if env.Boundary != nil {
		t.mode = env.Boundary.Mode()
	}
	t.network = spec.sandboxed && env.Exec.Network && t.mode == policy.WorkspaceWrite
	id, err := ts.add(t)
	if err != nil {
		return nil, err
	}
	if err := t.run(ts, env, spec); err != nil {
		if t.cancel != nil {
			t.cancel()
		}
		ts.forget(id)
		close(t.done)
		return nil, err
	}
	return t, nil
}

// run builds the command and starts it with its reader and waiter.
func (t *terminal) run(ts *Terminals, env *Env, spec terminalSpec) error {
	helper, err := helperPath(env)
	if err != nil {
		return err
	}
	environ := terminalEnviron(env.Exec.Env.Environ(os.Environ()), spec.tty)
	ctx, cancel := context.WithCancel(ts.ctx)
	t.cancel = cancel
	pol := commandPolicy(env, spec.dir, spec.sandboxed)
	if env.Exec.Proxy != nil && spec.sandboxed {
		pol.Proxy = env.Exec.Proxy(spec.callID, strconv.Itoa(t.id), spec.argv)
	}
	cmd, err := sandbox.Command(ctx, pol, spec.argv, environ, helper)
	if errors.Is(err, sandbox.ErrNotFound) || errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("command not found: %s", spec.argv[0])
	}
	if err != nil {
		return err
	}
	cmd.Dir = spec.dir
	t.cmd = cmd
	termID := strconv.Itoa(t.id)
	t.live = newTerminalOutput(ts.emit, termID)
	var readerDone chan struct{}
	if spec.tty {
		readerDone, err = t.startPTY()
	} else {
		err = t.startPipes()
	}
	if err != nil {
		return fmt.Errorf("start %s: %w", spec.argv[0], err)
	}
	ts.list(t)
	ts.emit(event.TerminalStarted{TerminalID: termID, CallID: spec.callID, Command: spec.argv, Cwd: spec.dir, TTY: spec.tty})
	go t.wait(ts, termID, readerDone)
	return nil
}

// startPTY starts the command on a new pseudo-terminal, its controlling
// terminal, and reads the master until the terminal closes.
func (t *terminal) startPTY() (chan struct{}, error) {
	master, slave, err := sandbox.OpenPTY()
	if err != nil {
		return nil, err
	}
	c := t.cmd
	c.AttachPTY(slave)
	err = c.Start()
	slave.Close()
	if err != nil {
		master.Close()
		return nil, err
	}
	t.input = master
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				t.write(buf[:n])
			}
			if err != nil {
				return // EIO once every holder of the slave closed it
			}
		}
	}()
	return done, nil
}

// startPipes starts the command with pipes: stdout and stderr go to one
// stream, as a terminal shows them.
func (t *terminal) startPipes() error {
	c := t.cmd
	in, err := c.StdinPipe()
	if err != nil {
		return err
	}
	w := &streamWriter{write: t.write}
	c.Stdout, c.Stderr = w, w
	c.WaitDelay = shellPipeDrain
	if err := c.Start(); err != nil {
		return err
	}
	t.input = in
	return nil
}

// write takes output the command wrote.
func (t *terminal) write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.Write(p)
	t.live.write("stdout", p)
}

// wait reaps the command, reads in the rest of its output (a pty's
// within shellPipeDrain: something the command left may hold it) and
// reports the end.
func (t *terminal) wait(ts *Terminals, termID string, readerDone chan struct{}) {
	err := t.cmd.Wait()
	if readerDone != nil {
		select {
		case <-readerDone:
		case <-time.After(shellPipeDrain):
		}
		t.input.Close()
		<-readerDone
	} else {
		t.input.Close()
	}
	t.exitCode = exitCodeOf(t.cmd.ProcessState, err)
	t.live.close()
	t.cancel()
	ts.emit(event.TerminalExited{TerminalID: termID, ExitCode: t.exitCode})
	close(t.done)
}

// take returns the output not read yet and forgets it, and how many
// bytes the command wrote since the last read (more than the text when
// the buffer kept only its ends); an incomplete character at its end
// waits for the next read unless the command ended.
func (t *terminal) take(ended bool) (string, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.out
	t.out = newCaptureOf(terminalBufferBytes / 2)
	if !c.whole() {
		t.carry = nil
		return c.String(), c.total
	}
	b := append(t.carry, c.bytes()...)
	t.carry = nil
	if !ended {
		n := completePrefix(b)
		t.carry = append([]byte(nil), b[n:]...)
		b = b[:n]
	}
	return validUTF8(b), int64(len(b))
}

// ended reports whether t's command ended and was reaped.
func (t *terminal) ended() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// inputWrite is input on its way to a command, which takes it as fast
// as it reads: a command that does not read holds it up, never the
// call that typed it.
type inputWrite struct {
	size    int
	written atomic.Int64
	done    chan struct{} // closed once all of it was written or it failed
	err     error         // set before done is closed
}

// inputChunk is how much of an input is written at a time, so that what
// was written can be told while the rest waits.
const inputChunk = 4 << 10

// send starts writing chars to the command's input, after every earlier
// input (in the order they were sent), and returns at once.
func (t *terminal) send(chars string) *inputWrite {
	w := &inputWrite{size: len(chars), done: make(chan struct{})}
	t.inputM.Lock()
	prev := t.lastInput
	t.lastInput = w.done
	t.inputM.Unlock()
	go func() {
		defer close(w.done)
		if prev != nil {
			<-prev
		}
		select {
		case <-t.done:
			w.err = errors.New("the command has ended")
			return
		default:
		}
		for off := 0; off < len(chars); {
			n, err := io.WriteString(t.input, chars[off:min(off+inputChunk, len(chars))])
			off += n
			w.written.Add(int64(n))
			if err != nil {
				w.err = err
				return
			}
		}
	}()
	return w
}

// wait waits up to d for w to be written whole; its error then, or nil
// when it is still being written.
func (w *inputWrite) wait(d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-w.done:
		return w.err
	case <-timer.C:
		return nil
	}
}

// pending says, for the model, how much of w the command has not read
// yet; "" when it read all of it or w failed.
func (w *inputWrite) pending() string {
	select {
	case <-w.done:
		return ""
	default:
	}
	return fmt.Sprintf("The command has read %d of your %d bytes of input so far; the rest is typed as it reads (it may not be reading its input)\n",
		w.written.Load(), w.size)
}

// terminalEnviron is environ with what a command session's terminal
// needs: a TERM that says what it is (a real terminal with tty, none with
// pipes) and no pager waiting for a key.
func terminalEnviron(environ []string, tty bool) []string {
	term := "dumb"
	if tty {
		term = "xterm-256color"
	}
	set := map[string]string{"TERM": term, "PAGER": "cat", "GIT_PAGER": "cat"}
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range []string{"TERM", "PAGER", "GIT_PAGER"} {
		out = append(out, k+"="+set[k])
	}
	return out
}
