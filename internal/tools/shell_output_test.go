package tools

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// seqBytes is the size of the output of `seq 1 n`.
func seqBytes(n int) int64 {
	var total int64
	for i := 1; i <= n; i++ {
		total += int64(len(strconv.Itoa(i))) + 1
	}
	return total
}

// TestShellCountsHugeOutputExactly runs a command whose output is far
// larger than what is kept and checks the exact totals, the head and the
// tail, and that the live stream stays bounded, says what it did not show
// and ends with the last lines.
func TestShellCountsHugeOutputExactly(t *testing.T) {
	const n = 3_000_000
	env, log := shellEnv(t, allowDirect(), sandbox.DangerFullAccess)
	out, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"seq", "1", strconv.Itoa(n)}, "timeout_ms": 120000})
	if err != nil {
		t.Fatal(err)
	}
	total := seqBytes(n)
	omitted := total - seqBytes(128) - (seqBytes(n) - seqBytes(n-128))
	for _, want := range []string{
		fmt.Sprintf("Total output lines: %d\n", n),
		fmt.Sprintf("Total output bytes: %d\n", total),
		"Output:\n1\n2\n",
		fmt.Sprintf("\n128\n[... omitted lines 129 to %d of %d (%d of %d bytes) ...]\n%d\n", n-128, n, omitted, total, n-127),
	} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("summary lacks %q:\n%s", want, out.Text[:min(len(out.Text), 600)])
		}
	}
	if !strings.HasSuffix(out.Text, "\n"+strconv.Itoa(n)) {
		t.Errorf("summary does not end with the last line: %q", out.Text[len(out.Text)-40:])
	}
	live := log.output()
	if len(live) > liveMaxBytes+2*liveTailBytes+1024 {
		t.Errorf("%d bytes streamed live, more than the bound", len(live))
	}
	if !strings.Contains(live, "not shown live; the full output is summarised in the tool result") {
		t.Errorf("live stream does not say what it dropped: %q", live[len(live)-min(len(live), 400):])
	}
	if !strings.HasSuffix(live, fmt.Sprintf("\n%d\n%d\n", n-1, n)) {
		t.Errorf("live stream does not end with the last lines: %q", live[len(live)-min(len(live), 100):])
	}
}

func TestSummarizeCounts(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"short, no final newline", []string{"a\nb"}, []string{"a\nb"}},
		{"one huge line", []string{strings.Repeat("x", 3<<20)},
			[]string{fmt.Sprintf("[... omitted part of line 1 of 1 (%d of %d bytes) ...]", 3<<20-10<<10, 3<<20)}},
		{"last line without newline", []string{strings.Repeat("l\n", 500), "end"},
			[]string{"[... omitted lines 129 to 373 of 501 (490 of 1003 bytes) ...]", "l\nend"}},
		{"split characters", []string{strings.Repeat("é", 3<<20)}, []string{"part of line 1 of 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCapture()
			for _, w := range tc.writes {
				// In small writes, as a pipe delivers them.
				for b := []byte(w); len(b) > 0; {
					n := min(len(b), 4093)
					c.Write(b[:n])
					b = b[n:]
				}
			}
			sum := summarize(c, shellHeadTailLines, shellMaxOutputBytes)
			for _, want := range tc.want {
				if !strings.Contains(sum.text, want) {
					t.Errorf("summary lacks %q: %q", want, sum.text[:min(200, len(sum.text))])
				}
			}
			if strings.Contains(sum.text, "\uFFFD") {
				t.Error("a character was cut")
			}
			if len(sum.text) > shellMaxOutputBytes+200 {
				t.Errorf("summary is %d bytes", len(sum.text))
			}
		})
	}
}

func TestLiveOutputKeepsCharactersWhole(t *testing.T) {
	var got []event.ExecOutput
	l := newLiveOutput(func(p event.Payload) { got = append(got, p.(event.ExecOutput)) }, "c")
	in := []byte(strings.Repeat("añ€😀", 20000))
	for b := in; len(b) > 0; {
		n := min(len(b), 7)
		l.write("stdout", b[:n])
		b = b[n:]
	}
	l.close()
	var all bytes.Buffer
	for _, e := range got {
		if strings.Contains(e.Chunk, "\uFFFD") {
			t.Fatalf("chunk with a cut character: %q", e.Chunk)
		}
		if len(e.Chunk) > liveChunkBytes {
			t.Fatalf("chunk of %d bytes", len(e.Chunk))
		}
		all.WriteString(e.Chunk)
	}
	if !bytes.Equal(all.Bytes(), in) {
		t.Errorf("live output differs from the input (%d vs %d bytes)", all.Len(), len(in))
	}
}
