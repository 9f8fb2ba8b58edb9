package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Defaults and bounds of exec_command and write_stdin (Codex's).
const (
	defaultExecYield       = 10 * time.Second
	defaultWriteYield      = 250 * time.Millisecond
	minYield               = 250 * time.Millisecond
	maxYield               = 30 * time.Second
	minPollYield           = 5 * time.Second
	maxPollYield           = 300 * time.Second
	defaultMaxOutputTokens = 10_000
	// warnTerminals open command sessions make each answer warn.
	warnTerminals = 60
	// bytesPerToken is how output is counted in tokens, as Codex does.
	bytesPerToken = 4
)

// clampYield is the wait a call asked for in ms (def when it asked for
// nothing positive), within [lo, hi].
func clampYield(ms float64, def, lo, hi time.Duration) time.Duration {
	d := def
	if ms > 0 {
		if ms >= float64(hi/time.Millisecond) {
			return hi
		}
		d = time.Duration(ms * float64(time.Millisecond))
	}
	return min(max(d, lo), hi)
}

// collect waits until d passed or the command ended, whichever is first,
// and renders what it wrote since the last call, for the model: the wall
// time of the call since start, the exit code once it ended (and lets the
// session go), else its session id, and how much of in (the input the
// call typed, or nil) the command has not read yet. ctx's end returns
// its error; the command runs on.
func (ts *Terminals) collect(ctx context.Context, t *terminal, start time.Time, d time.Duration, maxTokens int, in *inputWrite) (Output, error) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.done:
	case <-timer.C:
	case <-ctx.Done():
		return Output{}, ctx.Err()
	}
	ended := false
	select {
	case <-t.done:
		ended = true
	default:
	}
	text, written := t.take(ended)
	var b strings.Builder
	fmt.Fprintf(&b, "Chunk ID: %s\nWall time: %.4f seconds\n", chunkID(), time.Since(start).Seconds())
	if ended {
		ts.forget(t.id)
		fmt.Fprintf(&b, "Process exited with code %d\n", t.exitCode)
		if why := t.info().Killed; why != "" {
			fmt.Fprintf(&b, "agent-ls killed this command session %s\n", why)
		}
	} else {
		fmt.Fprintf(&b, "Process running with session ID %d\n", t.id)
		if n := ts.Live(); n >= warnTerminals {
			fmt.Fprintf(&b, "Warning: %d of at most %d command sessions are open; end those you no longer need (write_stdin)\n", n, MaxTerminals)
		}
	}
	if in != nil && !ended {
		b.WriteString(in.pending())
	}
	// The count of all the command wrote, also what the session's
	// buffer could not keep (the text says how much that was).
	fmt.Fprintf(&b, "Original token count: %d\nOutput:\n", max(int64(tokenCount(text)), (written+bytesPerToken-1)/bytesPerToken))
	b.WriteString(truncateTokens(text, maxTokens))
	return Output{Text: b.String(), Failed: ended && t.exitCode != 0}, nil
}

// tokenCount is the size of s in tokens, as the model's budget counts it.
func tokenCount(s string) int { return (len(s) + bytesPerToken - 1) / bytesPerToken }

// truncateTokens keeps s whole when it fits in maxTokens, else its head
// and its tail, each half the budget, with a line saying how many tokens
// were left out between them.
func truncateTokens(s string, maxTokens int) string {
	budget := maxTokens * bytesPerToken
	if len(s) <= budget {
		return s
	}
	head := s[:runeStart(s, budget/2)]
	tail := s[runeStart(s, len(s)-budget/2):]
	left := tokenCount(s[len(head) : len(s)-len(tail)])
	return head + fmt.Sprintf("\n…%d tokens truncated…\n", left) + tail
}

// runeStart is i moved back to the start of the character it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// chunkID names one output for the model, as Codex's six hex digits.
func chunkID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
