package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// notifyTimeout bounds a notify program: one still running then is
// killed with its process group.
const notifyTimeout = 30 * time.Second

// Kinds of notification, as Codex's notify program receives them.
const (
	notifyTurnDone = "agent-turn-complete"
	notifyWaiting  = "approval-requested"
)

// notifier tells the user, away from the conversation, when a turn ends
// and when the agent waits on an answer (agent.Options.Attention): it runs
// the user's notify program (config notify: Codex's argv, with a JSON
// argument more) and, in exec on a terminal, rings it.
type notifier struct {
	// argv is the notify program in force (nil: none).
	argv func() []string
	// ring, when set, rings the terminal; waiting tells a question from
	// a turn's end.
	ring func(waiting bool)
	// nobodyAsked: questions are answered without the user, so waiting
	// on one is nothing to tell.
	nobodyAsked bool
	log         *slog.Logger
	// running counts the notify programs not ended yet.
	running sync.WaitGroup
}

// attention notifies of a.
func (n *notifier) attention(a agent.Attention) {
	if a.Waiting && n.nobodyAsked {
		return
	}
	payload := map[string]any{"thread-id": a.SessionID, "turn-id": a.TurnID, "cwd": a.Cwd}
	if a.Waiting {
		payload["type"], payload["kind"] = notifyWaiting, a.What
		if len(a.Command) > 0 {
			payload["command"] = a.Command
		}
	} else {
		inputs := []string{}
		if a.Prompt != "" {
			inputs = append(inputs, a.Prompt)
		}
		payload["type"], payload["status"] = notifyTurnDone, a.Status
		payload["input-messages"], payload["last-assistant-message"] = inputs, a.LastMessage
	}
	n.notify(a.Waiting, payload)
}

// notify rings the terminal and starts the notify program with payload
// as its last argument, without waiting for it.
func (n *notifier) notify(waiting bool, payload map[string]any) {
	if n.ring != nil {
		n.ring(waiting)
	}
	argv := n.argv()
	if len(argv) == 0 {
		return
	}
	data, err := json.Marshal(payload)
	if err != nil {
		n.log.Warn("notify: encoding the notification", "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:len(argv):len(argv)], string(data))...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, io.Discard, io.Discard
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		cancel()
		n.log.Warn("notify: the program did not start", "program", argv[0], "err", err)
		return
	}
	n.running.Add(1)
	go func() {
		defer n.running.Done()
		err := cmd.Wait()
		if ctx.Err() != nil {
			n.log.Warn("notify: the program ran too long and was killed", "program", argv[0], "timeout", notifyTimeout)
		} else if err != nil {
			n.log.Warn("notify: the program failed", "program", argv[0], "err", err)
		}
		cancel()
	}()
}

// Texts exec rings a terminal with: fixed, never the model's words.
const (
	ringDone    = "agent-ls: turn done"
	ringWaiting = "agent-ls: waiting for you"
)

// terminalRing is what rings exec's terminal under [tui] notifications:
// an OSC 9 desktop notification (method "osc9", or "auto" on a terminal
// known to show it) or the bell.
func terminalRing(w io.Writer, method string) func(waiting bool) {
	if method == "" || method == "auto" {
		method = "bel"
		if osc9Terminal() {
			method = "osc9"
		}
	}
	return func(waiting bool) {
		if method == "bel" {
			_, _ = io.WriteString(w, "\a")
			return
		}
		text := ringDone
		if waiting {
			text = ringWaiting
		}
		_, _ = io.WriteString(w, "\x1b]9;"+text+"\x07")
	}
}

// osc9Terminal reports whether the terminal is one known to turn OSC 9
// into a desktop notification (iTerm2, WezTerm, ghostty, kitty, Windows
// Terminal); others may show the sequence's text.
func osc9Terminal() bool {
	switch os.Getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty":
		return true
	}
	return os.Getenv("KITTY_WINDOW_ID") != "" || os.Getenv("WT_SESSION") != ""
}
