package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-ls/agent-ls/bench/benchrow"
	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

// The stream rows' goals.
const (
	firstDeltaGoal = 5 * time.Millisecond
	// slowPeakGoal bounds the server's peak RSS over idle while a slow
	// editor falls behind a fast stream: what stays queued is coalesced,
	// so it does not grow with the stream.
	slowPeakGoal = 50_000_000
)

// firstDeltas starts turns one after another, each streaming a few
// deltas one every millisecond, and returns for each how long its first
// delta took from the model server to the editor.
func firstDeltas(bin string, turns int) ([]time.Duration, error) {
	ed, stop, err := startServer(bin, 5, time.Millisecond)
	if err != nil {
		return nil, err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	events := ed.EventStream()
	var lat []time.Duration
	for range turns {
		var started struct {
			TurnID string `json:"turnId"`
		}
		if err := ed.Request(ctx, "agent/startTurn", map[string]any{"prompt": "stream"}, &started); err != nil {
			return nil, err
		}
		first := true
		for done := false; !done; {
			ev, err := events.Next(ctx)
			if err != nil {
				return nil, err
			}
			now := time.Since(epoch)
			switch {
			case ev.Type == event.TypeMessageDelta && first && ev.TurnID == started.TurnID:
				sent, err := strconv.ParseInt(strings.TrimSpace(ev.Delta), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("delta %q: %w", ev.Delta, err)
				}
				lat = append(lat, now-time.Duration(sent))
				first = false
			case ev.Type == event.TypeTurnCompleted && ev.TurnID == started.TurnID:
				done = true
			}
		}
	}
	return lat, nil
}

// slowResult is what a slow editor saw of a fast stream.
type slowResult struct {
	sent, got      int           // characters
	intact         bool          // got is exactly what was sent
	messages       int           // messageDelta events received
	idle, peak     int64         // the server's RSS once initialized, and its peak (VmHWM) after
	behind         time.Duration // from the model's last delta to the editor's
	streamDuration time.Duration
}

// slowEditor streams n deltas at rate a second into a server whose
// editor reads nothing for pause, then at most chunk bytes a
// millisecond, and checks that every character arrives.
func slowEditor(bin string, n, rate int, pause time.Duration, chunk int) (slowResult, error) {
	var res slowResult
	sentText := make(chan string, 1)
	var modelDone atomic.Int64
	srv, url, err := modelServer(func(w http.ResponseWriter, r *http.Request) {
		text := streamAtRate(w, n, rate)
		modelDone.Store(int64(time.Since(epoch)))
		sentText <- text
	})
	if err != nil {
		return res, err
	}
	defer srv.Close()
	dir, err := os.MkdirTemp("", "eventbench-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	defer os.RemoveAll(dir + ".state")
	cmd, ed, slow, err := startSlow(bin, dir, url, chunk)
	if err != nil {
		return res, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	defer ed.Disconnect()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := ed.Initialize(ctx, editor.Options{Events: true, WorkspaceFolders: []string{dir}}); err != nil {
		return res, err
	}
	time.Sleep(300 * time.Millisecond)
	res.idle, _ = stats.Memory(cmd.Process.Pid, "VmRSS")
	_ = stats.ResetPeak(cmd.Process.Pid)
	events := ed.EventStream()
	slow.throttle(pause)
	var started struct {
		TurnID string `json:"turnId"`
	}
	start := time.Now()
	if err := ed.Request(ctx, "agent/startTurn", map[string]any{"prompt": "stream"}, &started); err != nil {
		return res, err
	}
	var got strings.Builder
	var lastAt time.Duration
	for {
		ev, err := events.Next(ctx)
		if err != nil {
			return res, err
		}
		switch ev.Type {
		case event.TypeMessageDelta:
			got.WriteString(ev.Delta)
			res.messages++
			lastAt = time.Since(epoch)
		case event.TypeTurnCompleted:
			if ev.Status != string(event.StatusCompleted) {
				return res, fmt.Errorf("turn %s: %s", ev.Status, ev.Error)
			}
			res.peak, _ = stats.Memory(cmd.Process.Pid, "VmHWM")
			text := <-sentText
			res.sent, res.got = len(text), got.Len()
			res.intact = got.String() == text
			res.behind = lastAt - time.Duration(modelDone.Load())
			res.streamDuration = time.Since(start)
			return res, nil
		}
	}
}

// startSlow starts the server in dir against the model at url, with an
// editor that reads it through a slowReader of chunk bytes.
func startSlow(bin, dir, url string, chunk int) (*exec.Cmd, *editor.Editor, *slowReader, error) {
	cmd := exec.Command(bin, "serve", "--log-level", "error")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+dir+".state", "OPENAI_BASE_URL="+url, "OPENAI_API_KEY=bench", "AGENT_LS_MODEL=bench-model", "AGENT_LS_WIRE_API=responses")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	slow := &slowReader{r: stdout, chunk: chunk}
	return cmd, editor.Connect(pipes{slow, stdin}, editor.Config{}), slow, nil
}

// modelServer serves handle on loopback and returns the API root.
func modelServer(handle http.HandlerFunc) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: handle}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String() + "/v1", nil
}

// streamAtRate writes a Responses API stream of n small deltas, rate a
// second (flushed every millisecond), and returns their text.
func streamAtRate(w http.ResponseWriter, n, rate int) string {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	seq := 0
	ev := func(body string) {
		seq++
		fmt.Fprintf(w, "data: {\"sequence_number\":%d,%s}\n\n", seq, body)
	}
	ev(`"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}`)
	ev(`"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}`)
	ev(`"type":"response.content_part.added","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":""}`)
	fl.Flush()
	var text strings.Builder
	perMs := max(rate/1000, 1)
	start := time.Now()
	for i := 0; i < n; i++ {
		if i%perMs == 0 {
			fl.Flush()
			time.Sleep(time.Until(start.Add(time.Duration(i/perMs) * time.Millisecond)))
		}
		d := "w" + strconv.Itoa(i) + " "
		text.WriteString(d)
		ev(`"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"` + d + `"`)
	}
	msg := `{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"` + text.String() + `","annotations":[]}]}`
	ev(`"type":"response.output_item.done","output_index":0,"item":` + msg)
	ev(`"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","output":[` + msg + `],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}`)
	fl.Flush()
	return text.String()
}

// slowReader is the server's output as a slow editor reads it: once
// throttled, nothing for a pause, then at most chunk bytes a millisecond.
type slowReader struct {
	r     io.Reader
	chunk int
	mu    sync.Mutex
	from  time.Time // throttled from then on; zero: not throttled
}

func (s *slowReader) throttle(pause time.Duration) {
	s.mu.Lock()
	s.from = time.Now().Add(pause)
	s.mu.Unlock()
}

func (s *slowReader) Read(p []byte) (int, error) {
	s.mu.Lock()
	from := s.from
	s.mu.Unlock()
	if from.IsZero() {
		return s.r.Read(p)
	}
	time.Sleep(time.Until(from))
	time.Sleep(time.Millisecond)
	return s.r.Read(p[:min(len(p), s.chunk)])
}

type pipes struct {
	io.Reader
	io.WriteCloser
}

func (p pipes) Close() error {
	var errs []error
	if c, ok := p.Reader.(interface{ Close() error }); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(append(errs, p.WriteCloser.Close())...)
}

// streamRows measures and prints the stream rows: the first delta of a
// turn to an editor that reads at normal speed, and a fast stream into
// a slow editor.
func streamRows(bin string) error {
	lat, err := firstDeltas(bin, 21)
	if err != nil {
		return fmt.Errorf("first delta: %w", err)
	}
	slices.Sort(lat)
	first := lat[len(lat)/2]
	ok := first <= firstDeltaGoal
	fmt.Printf("  %s first delta of a turn, model → editor: median %.3f ms  max %.3f ms over %d turns (goal ≤ %v)\n",
		benchrow.Verdict(ok), stats.MS(first), stats.MS(lat[len(lat)-1]), len(lat), firstDeltaGoal)
	benchrow.Emit(benchrow.Row{Name: "stream: first delta → editor", Value: stats.MS(first), Unit: "ms",
		Goal: fmt.Sprintf("≤ %d ms", firstDeltaGoal.Milliseconds()), Verdict: benchrow.Verdict(ok)})

	const n, rate, chunk = 50_000, 10_000, 512
	pause := time.Second
	res, err := slowEditor(bin, n, rate, pause, chunk)
	if err != nil {
		return fmt.Errorf("slow editor: %w", err)
	}
	over := res.peak - res.idle
	fmt.Printf("  %s %d deltas at %d/s into an editor that reads nothing for %v, then %d bytes a millisecond: %d of %d characters arrived%s, in %d messageDelta events, %.1f s after the model's last delta\n",
		benchrow.Verdict(res.intact), n, rate, pause, chunk, res.got, res.sent, map[bool]string{true: " intact", false: " NOT intact"}[res.intact], res.messages, res.behind.Seconds())
	fmt.Printf("  %s server's peak RSS meanwhile: %.0f MB, %.0f MB over idle (ceiling %.0f MB over idle)\n",
		benchrow.Verdict(over <= slowPeakGoal), float64(res.peak)/1e6, float64(over)/1e6, float64(slowPeakGoal)/1e6)
	benchrow.Emit(benchrow.Row{Name: "stream: slow editor, text kept", Value: float64(res.got), Unit: "chars",
		Goal: fmt.Sprintf("all %d", res.sent), Verdict: benchrow.Verdict(res.intact)})
	benchrow.Emit(benchrow.Row{Name: "stream: slow editor, peak RSS over idle", Value: float64(over) / 1e6, Unit: "MB",
		Goal: fmt.Sprintf("≤ %.0f MB", float64(slowPeakGoal)/1e6), Verdict: benchrow.Verdict(over <= slowPeakGoal)})
	return nil
}
