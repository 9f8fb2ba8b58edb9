package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// errVerdict is run's error for a hook that exited with VerdictExitCode.
var errVerdict = errors.New("the hook gave its verdict")

// pipeDrain bounds the wait for the hook's standard error once it exited:
// a process it left in the background may hold the pipe open.
const pipeDrain = time.Second

// run runs hook h once with input on its standard input, in dir, and
// returns its standard error as a reason. The error is errVerdict for
// exit status 2, nil for 0, and says what went wrong otherwise.
func run(ctx context.Context, h *Hook, dir string, input []byte) (reason string, err error) {
	runCtx, cancel := context.WithTimeout(ctx, h.timeout())
	defer cancel()
	cmd := exec.CommandContext(runCtx, h.Command[0], h.Command[1:]...)
	cmd.Dir = dir
	// The user's own environment, whatever the policy for the model's
	// commands says: a hook is the user's command, as in their shell.
	cmd.Env = os.Environ()
	cmd.Stdin = bytes.NewReader(input)
	stderr := &headBuffer{max: MaxReasonBytes + 1}
	cmd.Stderr = stderr
	cmd.WaitDelay = pipeDrain
	ownGroup(cmd)
	err = cmd.Run()
	reason = trimReason(stderr.buf.Bytes())
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s hook %s: %w", h.Event, h.name(), ctx.Err())
	case runCtx.Err() != nil:
		return "", fmt.Errorf("%s hook %s timed out after %s and was killed with its process group", h.Event, h.name(), h.timeout())
	case err == nil || errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay: the hook exited 0 but left something holding
		// its standard error; its status is what counts.
		return "", nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return "", fmt.Errorf("%s hook %s: %w", h.Event, h.name(), err)
	}
	if exit.ExitCode() == VerdictExitCode {
		return reason, errVerdict
	}
	msg := fmt.Sprintf("%s hook %s failed (%s)", h.Event, h.name(), exit.ProcessState)
	if reason != "" {
		msg += ": " + textcut.FirstLine(reason, 200)
	}
	return "", errors.New(msg)
}

// headBuffer keeps the first max bytes written to it and drops the rest,
// never failing a write (a hook must not die of a full pipe).
type headBuffer struct {
	buf bytes.Buffer
	max int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
