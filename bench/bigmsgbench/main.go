// Command bigmsgbench measures what large messages cost the server in
// memory, as the system sees it (/proc/PID/status), and prints a PASS or
// FAIL line for each ceiling agent-ls holds to:
//
//   - idle: the server's RSS (VmRSS) once initialized, the baseline;
//   - a code action over an open document of -mb MB: the document opened,
//     the code actions asked for over all of it and "Agent: Explain this"
//     run, a turn against the fake model on loopback, to its end: peak RSS
//     (VmHWM) at most 3 times the document over idle;
//   - that document closed: RSS back within twice idle within 10 s;
//   - 300 whole-document didChange of 2 MiB, sent as soon as the server
//     is initialized: peak RSS under 100 MB;
//   - 1,000 documents of 20 KB opened at once (an editor restoring its
//     session): didOpen handled at 10,000 a second or more and RSS at
//     most twice their size over idle; then a line typed into each (the
//     rate and RSS printed), and RSS back within twice idle within 10 s of
//     their didClose.
//
// It also prints, without a ceiling, the peak and what stays after a code
// action request carrying -mb MB of diagnostics.
//
//	go run ./bench/bigmsgbench -bin bin/agent-ls [-bin old/agent-ls] [-mb 50] [-many-only]
//
// MB are 10^6 bytes. A FAIL is printed, never an exit status: the
// benchmarks are not tests.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// The ceilings.
const (
	actionPeakFactor = 3                // peak over idle, in document sizes
	closedFactor     = 2                // RSS after didClose, in idle RSS
	closedWithin     = 10 * time.Second // time for that
	changes          = 300
	changeSize       = 2 << 20
	changePeak       = 100_000_000 // bytes of RSS
	manyDocs         = 1000
	manyDocSize      = 20_000
	manyDocsRate     = 10_000 // didOpen a second
	manyDocsFactor   = 2      // RSS over idle, in the documents' size
)

// manyOnly runs only the 1,000 documents (-many-only).
var manyOnly bool

type bins []string

func (b *bins) String() string     { return strings.Join(*b, ",") }
func (b *bins) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	if os.Getenv(keepTextsEnv) != "" {
		runKeepTexts()
		return
	}
	var binaries bins
	flag.Var(&binaries, "bin", "an agent-ls binary (repeatable)")
	mb := flag.Int("mb", 50, "size of the large document, in MB")
	flag.BoolVar(&manyOnly, "many-only", false, "only the 1,000 documents")
	flag.Parse()
	if len(binaries) == 0 {
		binaries = bins{"bin/agent-ls"}
	}
	size := *mb * 1_000_000
	for _, bin := range binaries {
		fmt.Printf("  %s\n", bin)
		if err := run(bin, size); err != nil {
			fmt.Fprintf(os.Stderr, "bigmsgbench: %s: %v\n", bin, err)
			os.Exit(1)
		}
	}
}

func run(bin string, size int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "bigmsgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	m := fakemodel.New()
	defer m.Close()
	for range 10 {
		m.Add(fakemodel.Say("It repeats one line."))
	}
	if manyOnly {
		return manyDocuments(ctx, server{bin: bin, dir: dir, model: m.URL()})
	}
	if err := largeDocument(ctx, server{bin: bin, dir: dir, model: m.URL()}, size); err != nil {
		return fmt.Errorf("code action over a large document: %w", err)
	}
	if err := manyChanges(ctx, server{bin: bin, dir: dir, model: m.URL()}); err != nil {
		return fmt.Errorf("didChange: %w", err)
	}
	if err := largeDiagnostics(ctx, server{bin: bin, dir: dir, model: m.URL()}, size); err != nil {
		return fmt.Errorf("diagnostics: %w", err)
	}
	if err := manyDocuments(ctx, server{bin: bin, dir: dir, model: m.URL()}); err != nil {
		return fmt.Errorf("many documents: %w", err)
	}
	return nil
}

// server is one agent-ls process and the editor fake driving it.
type server struct {
	bin, dir, model string
	cmd             *exec.Cmd
	ed              *editor.Editor
	// stdin is the server's input, shared with ed, for frames encoded
	// ahead.
	stdin *lockedWriter
}

// lockedWriter writes one frame at a time, from the editor or from sync.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// pipes are the server's stdout and stdin, as the editor's connection.
type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error { return errors.Join(p.WriteCloser.Close(), p.ReadCloser.Close()) }

// start starts the server and initializes it.
func (s *server) start(ctx context.Context) error {
	abs, err := filepath.Abs(s.bin)
	if err != nil {
		return err
	}
	s.cmd = exec.Command(abs, "--stdio")
	s.cmd.Dir = s.dir
	s.cmd.Env = append(os.Environ(), "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+s.model,
		"AGENT_LS_MODEL=gpt-5-codex", "XDG_STATE_HOME="+filepath.Join(s.dir, ".state"))
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.stdin = &lockedWriter{w: stdin}
	s.ed = editor.Connect(pipes{stdout, s.stdin}, editor.Config{})
	_, err = s.ed.Initialize(ctx, editor.Options{Events: true, WorkspaceFolders: []string{s.dir}})
	return err
}

func (s *server) stop() {
	s.ed.Disconnect()
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// status reads one memory field of the server's /proc/PID/status, in
// bytes (0 where it does not say).
func (s *server) status(field string) int64 {
	n, _ := stats.Memory(s.cmd.Process.Pid, field)
	return n
}

// cpuTime is the CPU time the server has used so far.
func (s *server) cpuTime() time.Duration { return stats.CPUTime(s.cmd.Process.Pid) }

// resetPeak starts VmHWM again from the current RSS.
func (s *server) resetPeak() error { return stats.ResetPeak(s.cmd.Process.Pid) }

// idle is the server's RSS once start-up has settled.
func (s *server) idle() int64 {
	time.Sleep(500 * time.Millisecond)
	return s.status("VmRSS")
}

// docURI is the URI of a file in the server's folder.
func (s *server) docURI(name string) string { return string(uri.File(filepath.Join(s.dir, name))) }

// largeDocument opens a document of size bytes, runs a code action over
// all of it to the end of its turn, then closes it.
func largeDocument(ctx context.Context, s server, size int) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	defer s.stop()
	idle := s.idle()
	fmt.Printf("       idle RSS %s\n", mb(idle))
	if err := s.resetPeak(); err != nil {
		return err
	}
	line := strings.Repeat("x", 99) + "\n"
	lines := size / len(line)
	docURI := s.docURI("big.txt")
	if err := s.ed.Open(ctx, docURI, "text", strings.Repeat(line, lines)); err != nil {
		return err
	}
	if err := s.explain(ctx, docURI, protocol.Range{End: protocol.Position{Line: uint32(lines)}}); err != nil {
		return err
	}
	peak := s.status("VmHWM") - idle
	report(peak <= int64(actionPeakFactor*size), "code action over an open %s document, its turn run: peak RSS %s over idle (ceiling %s, %d× the document)",
		mb(int64(size)), mb(peak), mb(int64(actionPeakFactor*size)), actionPeakFactor)
	if err := s.ed.Close(ctx, docURI); err != nil {
		return err
	}
	start := time.Now()
	rss := s.status("VmRSS")
	for rss > closedFactor*idle && time.Since(start) < closedWithin {
		time.Sleep(250 * time.Millisecond)
		rss = s.status("VmRSS")
	}
	report(rss <= closedFactor*idle, "didClose: RSS %s after %.1f s (ceiling %s, %d× idle, within %v)",
		mb(rss), time.Since(start).Seconds(), mb(closedFactor*idle), closedFactor, closedWithin)
	return nil
}

// explain asks for the code actions over rng and runs "Agent: Explain
// this" to the end of its turn.
func (s *server) explain(ctx context.Context, docURI string, rng protocol.Range) error {
	var actions []protocol.CommandOrCodeAction
	if err := s.ed.Request(ctx, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)}, Range: rng,
	}, &actions); err != nil {
		return err
	}
	if len(actions) == 0 {
		return errors.New("no code actions")
	}
	action, ok := actions[0].(*protocol.CodeAction)
	if !ok || action.Title != "Agent: Explain this" {
		return fmt.Errorf("first code action %v", actions[0])
	}
	var turn struct {
		TurnID string `json:"turnId"`
	}
	if err := s.ed.Request(ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: action.Command.Command, Arguments: action.Command.Arguments,
	}, &turn); err != nil {
		return err
	}
	_, err := s.ed.WaitTurnCompleted(ctx, turn.TurnID)
	return err
}

// manyChanges sends whole-document changes as soon as the server is
// initialized.
func manyChanges(ctx context.Context, s server) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	defer s.stop()
	docURI := s.docURI("changed.txt")
	if err := s.ed.Open(ctx, docURI, "text", "small\n"); err != nil {
		return err
	}
	for i := range changes {
		text := strings.Repeat(string(rune('a'+i%26)), changeSize-1) + "\n"
		if err := s.ed.Change(ctx, docURI, editor.Change{Text: text}); err != nil {
			return err
		}
	}
	// Answered once the changes before it were taken.
	var actions []protocol.CommandOrCodeAction
	if err := s.ed.Request(ctx, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)},
	}, &actions); err != nil {
		return err
	}
	peak := s.status("VmHWM")
	report(peak < changePeak, "%d didChange of %d MiB from start: peak RSS %s, RSS after %s (ceiling %s)",
		changes, changeSize>>20, mb(peak), mb(s.status("VmRSS")), mb(changePeak))
	return nil
}

// largeDiagnostics sends a code action request carrying size bytes of
// diagnostics, to a fresh server.
func largeDiagnostics(ctx context.Context, s server, size int) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	defer s.stop()
	idle := s.idle()
	if err := s.resetPeak(); err != nil {
		return err
	}
	diag := strings.Repeat("y", 1000)
	params := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(s.docURI("none.txt"))},
		Range: protocol.Range{End: protocol.Position{Line: 100}}}
	for range size / len(diag) {
		params.Context.Diagnostics = append(params.Context.Diagnostics, protocol.Diagnostic{Message: protocol.String(diag)})
	}
	var actions []protocol.CommandOrCodeAction
	if err := s.ed.Request(ctx, protocol.MethodTextDocumentCodeAction, params, &actions); err != nil {
		return err
	}
	peak := s.status("VmHWM") - idle
	time.Sleep(closedWithin)
	fmt.Printf("       code action carrying %s of diagnostics: peak RSS %s over idle, RSS %s after %v\n",
		mb(int64(size)), mb(peak), mb(s.status("VmRSS")), closedWithin)
	return nil
}

// report prints a figure against its ceiling.
func report(pass bool, format string, args ...any) {
	verdict := "FAIL"
	if pass {
		verdict = "PASS"
	}
	fmt.Printf("  %s %s\n", verdict, fmt.Sprintf(format, args...))
}

// mb formats bytes in MB.
func mb(n int64) string { return fmt.Sprintf("%.0f MB", float64(n)/1e6) }

// manyDocuments opens manyDocs documents of manyDocSize bytes at once,
// as an editor restoring its session does, edits each, then closes them
// all. The notifications are encoded before the clock starts and written
// one by one, as an editor writes them, so that the rate is the server's
// and not this program's JSON encoding.
func manyDocuments(ctx context.Context, s server) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	defer s.stop()
	idle := s.idle()
	opens, edits, closes := manyFrames(s)
	cpu0, start := s.cpuTime(), time.Now()
	if err := s.sync(ctx, opens); err != nil {
		return err
	}
	rate := float64(manyDocs) / time.Since(start).Seconds()
	cpu := s.cpuTime() - cpu0
	report(rate >= manyDocsRate, "%d didOpen of %d KB: %.0f a second, from the first written to the answer of a request after the last (floor %d); the server's CPU time %.1f µs each (on a loaded machine the rate falls, the CPU time much less)",
		manyDocs, manyDocSize/1000, rate, manyDocsRate, float64(cpu.Microseconds())/manyDocs)
	if f, err := keepTexts(); err == nil {
		fmt.Printf("       beside it, a fresh Go process only making and keeping %d texts of %d KB: %.1f µs of CPU each (%.0f a second)\n",
			manyDocs, manyDocSize/1000, float64(f.Nanoseconds())/1e3, 1/f.Seconds())
	}
	total := int64(manyDocs * manyDocSize)
	over := s.status("VmRSS") - idle
	report(over <= manyDocsFactor*total, "%d open documents of %d KB: RSS %s over idle (ceiling %s, %d× their %s)",
		manyDocs, manyDocSize/1000, mb(over), mb(manyDocsFactor*total), manyDocsFactor, mb(total))
	cpu0, start = s.cpuTime(), time.Now()
	if err := s.sync(ctx, edits); err != nil {
		return err
	}
	// Each edit makes a new version of its document's text; the old
	// ones are garbage until the collector runs.
	fmt.Printf("       %d didChange, a line typed into each: %.0f a second, the server's CPU time %.1f µs each; RSS then %s over idle\n",
		manyDocs, float64(manyDocs)/time.Since(start).Seconds(), float64((s.cpuTime()-cpu0).Microseconds())/manyDocs,
		mb(s.status("VmRSS")-idle))
	if err := s.sync(ctx, closes); err != nil {
		return err
	}
	start = time.Now()
	rss := s.status("VmRSS")
	for rss > closedFactor*idle && time.Since(start) < closedWithin {
		time.Sleep(250 * time.Millisecond)
		rss = s.status("VmRSS")
	}
	report(rss <= closedFactor*idle, "didClose of the %d: RSS %s after %.1f s (idle %s; ceiling %s, %d× idle, within %v)",
		manyDocs, mb(rss), time.Since(start).Seconds(), mb(idle), mb(closedFactor*idle), closedFactor, closedWithin)
	emit("1,000 × 20 KB didOpen rate", rate, "/s", fmt.Sprintf("≥ %d /s", manyDocsRate), rate >= manyDocsRate)
	emit("1,000 × 20 KB open: RSS over idle", float64(over)/1e6, "MB", "≤ "+mb(manyDocsFactor*total), over <= manyDocsFactor*total)
	emit("1,000 × 20 KB didClose: RSS", float64(rss)/1e6, "MB", "≤ "+mb(closedFactor*idle)+" (2× idle)", rss <= closedFactor*idle)
	return nil
}

// manyFrames encodes, as the editor package does, a didOpen, a didChange
// and a didClose for each of the documents.
func manyFrames(s server) (opens, edits, closes [][]byte) {
	line := strings.Repeat("y", 79) + "\n"
	for i := range manyDocs {
		docURI := uri.URI(s.docURI(fmt.Sprintf("doc%04d.go", i)))
		// Distinct texts, as real files are.
		text := fmt.Sprintf("// %d\n", i) + strings.Repeat(line, manyDocSize/len(line))
		opens = append(opens, frame(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: docURI, LanguageID: "go", Version: 1, Text: text},
		}))
		at := protocol.Position{Line: 1}
		edits = append(edits, frame(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
			TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: docURI}, Version: 2},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{
				&protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: at, End: at}, Text: "x := 1\n"},
			},
		}))
		closes = append(closes, frame(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: docURI},
		}))
	}
	return opens, edits, closes
}

// frame is a notification framed as the editor package writes it (the
// same bytes for these documents).
func frame(method string, params any) []byte {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		panic(err)
	}
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":%s}`, method, bytes.TrimSuffix(raw.Bytes(), []byte("\n")))
	return append(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", len(body)), body...)
}

// sync writes frames, one write each, then waits for the answer to a
// request sent after them: the server handles document notifications in
// order, so the answer comes once it has handled them all.
func (s *server) sync(ctx context.Context, frames [][]byte) error {
	for _, f := range frames {
		if _, err := s.stdin.Write(f); err != nil {
			return err
		}
	}
	var actions []protocol.CommandOrCodeAction
	return s.ed.Request(ctx, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(s.docURI("doc0000.go"))},
	}, &actions)
}
