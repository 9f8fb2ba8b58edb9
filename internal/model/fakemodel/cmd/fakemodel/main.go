// Command fakemodel serves a scripted OpenAI model on the loopback
// interface, for tests that start agent-ls from outside Go (editor tests):
//
//	fakemodel -script turns.json [-log requests.jsonl]
//
// It reads the script (the JSON format of fakemodel.Script; "-" reads
// stdin), listens on 127.0.0.1 on a free port, prints the API root (the
// OPENAI_BASE_URL to give agent-ls, ending in /v1) as the first line on
// stdout, and serves the Responses and Chat Completions streaming APIs
// until it is interrupted or terminated. Every request is appended to the
// log as one JSON line ({"seq", "method", "path", "step", "authorization",
// "body"}; authorization only when the request had that header).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakemodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	script := fs.String("script", "", "the JSON script of model turns (\"-\": stdin)")
	logPath := fs.String("log", "", "append every request to this file as a JSON line")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *script == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: fakemodel -script FILE [-log FILE]")
		return 2
	}
	steps, err := readScript(*script, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "fakemodel:", err)
		return 1
	}
	srv := fakemodel.New(steps...)
	defer srv.Close()
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, "fakemodel:", err)
			return 1
		}
		defer f.Close()
		srv.LogRequests(f)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintln(stdout, srv.URL())
	<-ctx.Done()
	if n := srv.Remaining(); n > 0 {
		fmt.Fprintf(stderr, "fakemodel: %d scripted steps were not served\n", n)
	}
	return 0
}

func readScript(path string, stdin io.Reader) ([]fakemodel.Step, error) {
	if path == "-" {
		return fakemodel.ParseScript(stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return fakemodel.ParseScript(f)
}
