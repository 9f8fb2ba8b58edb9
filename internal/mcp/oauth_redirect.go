package mcp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// redirectPath is the path of the loopback redirect URI.
const redirectPath = "/callback"

// redirectListener is the loopback end of the authorization code flow:
// an HTTP server on 127.0.0.1 and an ephemeral port that takes one
// redirect from the browser, checks its state, and answers with a short
// page. Any later request is told the login is over.
type redirectListener struct {
	ln  net.Listener
	srv *http.Server
	url string // the redirect URI, http://127.0.0.1:PORT/callback

	mu    sync.Mutex
	state string // what the redirect must carry back
	done  bool
	got   chan redirectResult
}

type redirectResult struct {
	res *auth.AuthorizationResult
	err error
}

// listenRedirect starts the loopback listener.
func listenRedirect() (*redirectListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the browser's redirect on 127.0.0.1: %w", err)
	}
	r := &redirectListener{ln: ln, got: make(chan redirectResult, 1)}
	r.url = fmt.Sprintf("http://127.0.0.1:%d%s", ln.Addr().(*net.TCPAddr).Port, redirectPath)
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *redirectListener) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}

// expect sets the state the redirect must carry: the one in the
// authorization URL authURL.
func (r *redirectListener) expect(authURL string) error {
	u, err := url.Parse(authURL)
	if err != nil {
		return fmt.Errorf("the authorization URL: %w", err)
	}
	st := u.Query().Get("state")
	if st == "" {
		return errors.New("the authorization URL carries no state")
	}
	r.mu.Lock()
	r.state = st
	r.mu.Unlock()
	return nil
}

func (r *redirectListener) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != redirectPath {
		http.NotFound(w, req)
		return
	}
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		page(w, http.StatusGone, "This login is over", "agent-ls already took its answer. Run `agent-ls mcp login` again if needed.")
		return
	}
	r.done = true
	want := r.state
	r.mu.Unlock()
	q := req.URL.Query()
	var res redirectResult
	switch {
	case q.Get("state") != want || want == "":
		res.err = errors.New("the browser's redirect carries another state than the authorization request: refused (a stale or forged redirect)")
	case q.Get("error") != "":
		res.err = fmt.Errorf("the authorization server refused: %s %s", q.Get("error"), q.Get("error_description"))
	case q.Get("code") == "":
		res.err = errors.New("the browser's redirect carries no authorization code")
	default:
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
	}
	if res.err != nil {
		page(w, http.StatusBadRequest, "agent-ls: login failed", res.err.Error())
	} else {
		page(w, http.StatusOK, "agent-ls: authorized", "You can close this tab and go back to the terminal.")
	}
	r.got <- res
}

// wait waits for the redirect, at most timeout.
func (r *redirectListener) wait(ctx context.Context, timeout time.Duration) (*auth.AuthorizationResult, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-r.got:
		return res.res, res.err
	case <-t.C:
		return nil, fmt.Errorf("no answer from the browser within %s: the authorization was not completed", timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// page answers the browser with a small HTML page.
func page(w http.ResponseWriter, status int, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>%s</title><h1>%s</h1><p>%s</p>\n",
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
}
