package tools

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// userInputWait is how long what the user types may wait for the
// command to read it before Write returns; the rest is typed as the
// command reads.
const userInputWait = time.Second

// maxListed bounds the sessions Terminals.List shows: past it, the oldest
// that ended and were let go are left out.
const maxListed = 2 * MaxTerminals

// Errors of what the user does to a command session.
var (
	// ErrNoTerminal: the agent session has no command session of that id.
	ErrNoTerminal = errors.New("no such command session")
	// ErrTerminalEnded: the command session's command has ended.
	ErrTerminalEnded = errors.New("the command session has ended")
)

// TerminalInfo describes a command session for the user.
type TerminalInfo struct {
	// ID is the session_id the model uses.
	ID      int
	Command []string
	Cwd     string
	TTY     bool
	Running bool
	// ExitCode is set once it ended (128+n for a signal n).
	ExitCode int
	// Killed says why agent-ls ended it, "" when it ended by itself or
	// runs.
	Killed string
	// Sandboxed: it runs in the sandbox (not escalated, not under
	// danger-full-access); Mode is the sandbox mode of the agent session
	// when it started, Network whether it may use the network.
	Sandboxed bool
	Mode      policy.SandboxMode
	Network   bool
}

// list adds t to the listed sessions, dropping the oldest ended ones
// that were let go when there are too many.
func (ts *Terminals) list(t *terminal) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.listed = append(ts.listed, t)
	for i := 0; len(ts.listed) > maxListed && i < len(ts.listed); {
		old := ts.listed[i]
		if _, kept := ts.procs[old.id]; kept {
			i++
			continue
		}
		ts.listed = slices.Delete(ts.listed, i, i+1)
	}
}

// List describes the command sessions, oldest first: those running, and
// those that ended (the latest of them once the model read their end).
func (ts *Terminals) List() []TerminalInfo {
	ts.mu.Lock()
	listed := slices.Clone(ts.listed)
	ts.mu.Unlock()
	out := make([]TerminalInfo, 0, len(listed))
	for _, t := range listed {
		out = append(out, t.info())
	}
	return out
}

// info describes t as it is now.
func (t *terminal) info() TerminalInfo {
	ti := TerminalInfo{ID: t.id, Command: slices.Clone(t.command), Cwd: t.cwd, TTY: t.tty,
		Sandboxed: t.sandboxed, Mode: t.mode, Network: t.network, Running: true}
	select {
	case <-t.done:
		ti.Running, ti.ExitCode = false, t.exitCode
	default:
	}
	t.mu.Lock()
	ti.Killed = t.killed
	t.mu.Unlock()
	return ti
}

// find returns the listed session id, or why there is none to act on.
func (ts *Terminals) find(id int) (*terminal, error) {
	ts.mu.Lock()
	var found *terminal
	for _, t := range ts.listed {
		if t.id == id {
			found = t
		}
	}
	ts.mu.Unlock()
	if found == nil {
		return nil, fmt.Errorf("%w: %d", ErrNoTerminal, id)
	}
	select {
	case <-found.done:
		return nil, fmt.Errorf("%w: command session %d exited with code %d", ErrTerminalEnded, id, found.exitCode)
	default:
	}
	return found, nil
}

// Write types data into command session id for the user: the user may
// type into any session, in the sandbox or not, without being asked. It
// returns once the command read data, or after userInputWait when it
// reads slowly or not at all: the rest is typed as it reads.
func (ts *Terminals) Write(id int, data string) error {
	t, err := ts.find(id)
	if err != nil {
		return err
	}
	if err := t.send(data).wait(userInputWait); err != nil {
		return fmt.Errorf("%w: command session %d: %w", ErrTerminalEnded, id, err)
	}
	return nil
}

// Kill ends command session id's command and everything it started, and
// returns once it was reaped and its terminalExited sent. why is what
// the model and the listing are told ("by the user", ...).
func (ts *Terminals) Kill(id int, why string) error {
	t, err := ts.find(id)
	if err != nil {
		return err
	}
	t.kill(why)
	return nil
}

// KillIf ends, as Kill does, every running session for which match
// reports true, and returns their ids.
func (ts *Terminals) KillIf(why string, match func(TerminalInfo) bool) []int {
	var ids []int
	var victims []*terminal
	for _, ti := range ts.List() {
		if !ti.Running || !match(ti) {
			continue
		}
		if t, err := ts.find(ti.ID); err == nil {
			ids = append(ids, ti.ID)
			victims = append(victims, t)
		}
	}
	for _, t := range victims {
		t.markKilled(why)
		t.cancel()
	}
	for _, t := range victims {
		<-t.done
	}
	return ids
}

// Running returns the ids of the sessions whose command still runs.
func (ts *Terminals) Running() []int {
	var ids []int
	for _, ti := range ts.List() {
		if ti.Running {
			ids = append(ids, ti.ID)
		}
	}
	return ids
}

// kill ends t's command and waits until it was reported.
func (t *terminal) kill(why string) {
	t.markKilled(why)
	t.cancel()
	<-t.done
}

// markKilled records why t is being killed, unless it ended already.
func (t *terminal) markKilled(why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.done:
	default:
		if t.killed == "" {
			t.killed = why
		}
	}
}

// IDList renders ids as the model and the user read them: "1000, 1001".
func IDList(ids []int) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(id)
	}
	return s
}
