// Command bigmsgbench measures what one large message costs the server:
// its peak memory (VmHWM) above the idle level while it takes a didOpen of
// a large document, then a code action request carrying as many bytes of
// diagnostics, and its private memory (RssAnon) a few seconds after each.
//
//	go run ./bench/bigmsgbench -bin bin/agent-ls [-bin old/agent-ls] [-mb 50]
//
// Numbers are printed, never asserted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
)

type bins []string

func (b *bins) String() string     { return strings.Join(*b, ",") }
func (b *bins) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	var binaries bins
	flag.Var(&binaries, "bin", "an agent-ls binary (repeatable)")
	mb := flag.Int("mb", 50, "size of each message in MB")
	settle := flag.Duration("settle", 5*time.Second, "wait before reading the memory left")
	flag.Parse()
	if len(binaries) == 0 {
		binaries = bins{"bin/agent-ls"}
	}
	size := *mb * 1_000_000
	fmt.Printf("memory of agent-ls for one %d MB message (peak above idle, private memory %v later)\n", *mb, *settle)
	for _, bin := range binaries {
		if err := run(bin, size, *settle); err != nil {
			fmt.Fprintf(os.Stderr, "bigmsgbench: %s: %v\n", bin, err)
			os.Exit(1)
		}
	}
}

func run(bin string, size int, settle time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "bigmsgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	abs, _ := filepath.Abs(bin)
	cmd := exec.Command(abs, "--stdio")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=test", "OPENAI_BASE_URL=http://127.0.0.1:1", "XDG_STATE_HOME="+filepath.Join(dir, ".state"))
	ed, err := editor.Start(cmd, editor.Config{})
	if err != nil {
		return err
	}
	defer ed.Disconnect()
	if _, err := ed.Initialize(ctx, editor.Options{WorkspaceFolders: []string{dir}}); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	idle := status(pid, "VmRSS")
	line := strings.Repeat("x", 99) + "\n"
	text := strings.Repeat(line, size/len(line))
	docURI := string(uri.File(filepath.Join(dir, "big.txt")))
	if err := ed.Open(ctx, docURI, "text", text); err != nil {
		return err
	}
	// A request after it is answered once the notification was taken.
	var actions []protocol.CommandOrCodeAction
	small := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)},
		Range: protocol.Range{End: protocol.Position{Line: 1}}}
	if err := ed.Request(ctx, protocol.MethodTextDocumentCodeAction, small, &actions); err != nil {
		return err
	}
	peakOpen := status(pid, "VmHWM")
	time.Sleep(settle)
	afterOpen := status(pid, "RssAnon")

	diag := strings.Repeat("y", 1000)
	big := &protocol.CodeActionParams{TextDocument: small.TextDocument, Range: protocol.Range{End: protocol.Position{Line: 100}}}
	for range size / len(diag) {
		big.Context.Diagnostics = append(big.Context.Diagnostics, protocol.Diagnostic{Message: protocol.String(diag)})
	}
	// A fresh server, so that the peak is the code action's alone.
	ed.Disconnect()
	_ = cmd.Wait()
	cmd = exec.Command(abs, "--stdio")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=test", "OPENAI_BASE_URL=http://127.0.0.1:1", "XDG_STATE_HOME="+filepath.Join(dir, ".state"))
	if ed, err = editor.Start(cmd, editor.Config{}); err != nil {
		return err
	}
	defer ed.Disconnect()
	if _, err := ed.Initialize(ctx, editor.Options{WorkspaceFolders: []string{dir}}); err != nil {
		return err
	}
	pid = cmd.Process.Pid
	idleAction := status(pid, "VmRSS")
	if err := ed.Request(ctx, protocol.MethodTextDocumentCodeAction, big, &actions); err != nil {
		return err
	}
	peakAction := status(pid, "VmHWM") - idleAction + idle
	time.Sleep(settle)
	afterAction := status(pid, "RssAnon")
	fmt.Printf("  %-40s idle RSS %4d MB | didOpen: peak +%4d MB, private after %4d MB | code action: peak +%4d MB, private after %4d MB\n",
		bin, idle/1024, (peakOpen-idle)/1024, afterOpen/1024, (peakAction-idle)/1024, afterAction/1024)
	return nil
}

// status reads one field of /proc/PID/status, in KB.
func status(pid int, field string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
