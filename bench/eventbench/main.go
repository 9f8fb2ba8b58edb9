// Command eventbench measures how fast model output reaches the editor:
// the latency from a model delta leaving the model server to its
// `agent/event` arriving at the editor (p50/p99), and the end-to-end
// throughput in deltas per second.
//
//	go run ./bench/eventbench -bin bin/agent-ls [-deltas 20000] [-latency-deltas 2000] [-stream-only]
//
// The program is both the model server (a minimal Responses API stream on
// loopback) and the editor, so both ends read one clock: each delta's text
// is the time it was written.
//
// Then the stream rows: the first delta of each of 21 turns, model →
// editor, median (goal ≤ 5 ms); and 50,000 small deltas at 10,000 a
// second into an editor that reads nothing for a second, then 512 bytes
// a millisecond: every character must arrive (deltas joined are fine)
// and the server's peak RSS stay within 50 MB over idle.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

var epoch = time.Now()

func main() {
	bin := flag.String("bin", "bin/agent-ls", "the agent-ls binary")
	deltas := flag.Int("deltas", 20000, "deltas in the throughput run")
	latDeltas := flag.Int("latency-deltas", 2000, "deltas in the latency run")
	pace := flag.Duration("pace", 250*time.Microsecond, "gap between deltas in the latency run")
	streamOnly := flag.Bool("stream-only", false, "only the first delta and the slow editor")
	flag.Parse()
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	if *streamOnly {
		if err := streamRows(*bin); err != nil {
			fmt.Fprintln(os.Stderr, "eventbench:", err)
			os.Exit(1)
		}
		return
	}

	lat, _, err := run(*bin, *latDeltas, *pace)
	if err != nil {
		fmt.Fprintln(os.Stderr, "eventbench:", err)
		os.Exit(1)
	}
	slices.Sort(lat)
	fmt.Printf("model delta → agent/event latency (%d deltas, one every %v): p50 %.3f ms  p99 %.3f ms  max %.3f ms  (goal p99 < 1 ms)\n",
		len(lat), *pace, stats.MS(stats.Percentile(lat, 50)), stats.MS(stats.Percentile(lat, 99)), stats.MS(lat[len(lat)-1]))

	_, elapsed, err := run(*bin, *deltas, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "eventbench:", err)
		os.Exit(1)
	}
	fmt.Printf("end-to-end throughput: %d deltas in %.1f ms = %.0f deltas/s  (goal ≥ 20000/s)\n",
		*deltas, stats.MS(elapsed), float64(*deltas)/elapsed.Seconds())

	var stops []time.Duration
	for range 10 {
		d, err := interrupt(*bin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "eventbench:", err)
			os.Exit(1)
		}
		stops = append(stops, d)
	}
	slices.Sort(stops)
	fmt.Printf("agent/interrupt while streaming → turnCompleted(interrupted): median %.2f ms  max %.2f ms  (goal < 200 ms)\n",
		stats.MS(stops[len(stops)/2]), stats.MS(stops[len(stops)-1]))

	if err := streamRows(*bin); err != nil {
		fmt.Fprintln(os.Stderr, "eventbench:", err)
		os.Exit(1)
	}
}

// interrupt starts a turn whose model stream never ends, interrupts it
// after the first delta and returns how long the turn took to end.
func interrupt(bin string) (time.Duration, error) {
	ed, stop, err := startServer(bin, 1, -1)
	if err != nil {
		return 0, err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events := ed.EventStream()
	var started struct {
		SessionID string `json:"sessionId"`
		TurnID    string `json:"turnId"`
	}
	if err := ed.Request(ctx, "agent/startTurn", map[string]any{"prompt": "stream"}, &started); err != nil {
		return 0, err
	}
	var t0 time.Time
	for {
		ev, err := events.Next(ctx)
		if err != nil {
			return 0, err
		}
		switch ev.Type {
		case event.TypeMessageDelta:
			if t0.IsZero() {
				t0 = time.Now()
				go ed.Request(ctx, "agent/interrupt", map[string]any{"sessionId": started.SessionID}, nil)
			}
		case event.TypeTurnCompleted:
			if ev.Status != string(event.StatusInterrupted) {
				return 0, fmt.Errorf("turn ended %s", ev.Status)
			}
			return time.Since(t0), nil
		}
	}
}

// run streams n deltas through the server and returns each delta's
// latency and the time from the first delta sent to the last received.
func run(bin string, n int, pace time.Duration) ([]time.Duration, time.Duration, error) {
	ed, stop, err := startServer(bin, n, pace)
	if err != nil {
		return nil, 0, err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	events := ed.EventStream()
	var started struct {
		TurnID string `json:"turnId"`
	}
	if err := ed.Request(ctx, "agent/startTurn", map[string]any{"prompt": "stream"}, &started); err != nil {
		return nil, 0, err
	}
	lat := make([]time.Duration, 0, n)
	var first time.Duration = -1
	var last time.Duration
	for {
		ev, err := events.Next(ctx)
		if err != nil {
			return nil, 0, err
		}
		now := time.Since(epoch)
		switch ev.Type {
		case event.TypeMessageDelta:
			// An editor that falls behind gets deltas joined into one.
			for _, f := range strings.Fields(ev.Delta) {
				sent, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return nil, 0, fmt.Errorf("delta %q: %w", ev.Delta, err)
				}
				if first < 0 {
					first = time.Duration(sent)
				}
				lat = append(lat, now-time.Duration(sent))
			}
			last = now
		case event.TypeTurnCompleted:
			if ev.Status != string(event.StatusCompleted) {
				return nil, 0, fmt.Errorf("turn %s: %s", ev.Status, ev.Error)
			}
			if len(lat) != n {
				return nil, 0, fmt.Errorf("received %d of %d deltas", len(lat), n)
			}
			return lat, last - first, nil
		}
	}
}

// startServer starts a model server streaming n deltas (pace < 0: one
// delta, then silence until the client goes away) and agent-ls against it,
// with an editor that has initialized it.
func startServer(bin string, n int, pace time.Duration) (*editor.Editor, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pace < 0 {
			stall(w, r)
			return
		}
		stream(w, n, pace)
	})}
	go srv.Serve(ln)
	dir, err := os.MkdirTemp("", "eventbench-")
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	cmd := exec.Command(bin, "serve", "--log-level", "error")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+dir+".state", "OPENAI_BASE_URL=http://"+ln.Addr().String()+"/v1", "OPENAI_API_KEY=bench", "AGENT_LS_MODEL=bench-model", "AGENT_LS_WIRE_API=responses")
	cmd.Stderr = os.Stderr
	ed, err := editor.Start(cmd, editor.Config{})
	if err != nil {
		srv.Close()
		os.RemoveAll(dir)
		os.RemoveAll(dir + ".state")
		return nil, nil, err
	}
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ed.Shutdown(ctx)
		ed.Exit(ctx)
		srv.Close()
		os.RemoveAll(dir)
		os.RemoveAll(dir + ".state") // the sessions' records, outside the workspace
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := ed.Initialize(ctx, editor.Options{Events: true, WorkspaceFolders: []string{dir}}); err != nil {
		stop()
		return nil, nil, err
	}
	return ed, stop, nil
}

// stall sends the start of a message and one delta, then nothing.
func stall(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "data: {\"type\":\"response.created\",\"sequence_number\":1,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n")
	fmt.Fprint(w, "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"1 \"}\n\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// stream writes a Responses API stream of n deltas, each carrying the
// time it was written.
func stream(w http.ResponseWriter, n int, pace time.Duration) {
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
	for i := 0; i < n; i++ {
		if pace > 0 {
			time.Sleep(pace)
		}
		ev(fmt.Sprintf(`"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"%d "`, time.Since(epoch).Nanoseconds()))
		if pace > 0 || i%64 == 63 {
			fl.Flush()
		}
	}
	msg := `{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"done","annotations":[]}]}`
	ev(`"type":"response.output_item.done","output_index":0,"item":` + msg)
	ev(`"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","output":[` + msg + `],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}`)
	fl.Flush()
}
