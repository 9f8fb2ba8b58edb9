package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"golang.org/x/oauth2"

	"github.com/agent-ls/agent-ls/internal/tools"
)

// startAuthSet is startSet with the token folder dir.
func startAuthSet(t *testing.T, dir string, cfgs ...ServerConfig) (*Set, *tools.Registry, *failures) {
	t.Helper()
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	f := &failures{}
	set, err := NewSet(cfgs, Options{Registry: reg, Failed: f.add, ClientVersion: "test", AuthDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	set.Start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	set.Ready(ctx)
	return set, reg, f
}

// login runs Login with the fake browser.
func login(t *testing.T, cfg ServerConfig, dir string, tamper func(url.Values)) (*LoginResult, string, error) {
	t.Helper()
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Login(ctx, cfg, LoginOptions{AuthDir: dir, Out: &out, OpenBrowser: fakeBrowser(t, tamper), Timeout: 20 * time.Second})
	return res, out.String(), err
}

// stored reads the server's stored record.
func stored(t *testing.T, dir string, cfg ServerConfig) *authRecord {
	t.Helper()
	r, err := TokenStore{Dir: dir}.load(cfg.Name, cfg.URL)
	if err != nil || r == nil {
		t.Fatalf("no stored authorization for %s: %v", cfg.URL, err)
	}
	return r
}

// TestOAuthLogin: the authorization code flow against an authorization
// server on loopback (protected resource metadata, its metadata,
// dynamic registration, PKCE, the loopback redirect) stores a 0600 file
// in a 0700 folder, with the token and what refreshes it; a later
// connection sends the token and lists the tools; logout removes it.
func TestOAuthLogin(t *testing.T) {
	as := newAuthServer(t)
	u, _ := protectedServer(t, as, false)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	cfg := ServerConfig{Name: "remote", URL: u}

	res, out, err := login(t, cfg, dir, nil)
	if err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	mustContain(t, "login output", out, "http://127.0.0.1:", "/authorize?", "code_challenge_method=S256", "redirect_uri=http%3A%2F%2F127.0.0.1%3A")
	if !res.Registered || as.registrations.Load() != 1 {
		t.Errorf("registered %v, registrations %d", res.Registered, as.registrations.Load())
	}
	fi, err := os.Stat(res.File)
	if err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(res.File) != dir {
		t.Fatalf("token file %s: %v %v", res.File, fi.Mode(), err)
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("token folder: %v %v", di.Mode(), err)
	}
	rec := stored(t, dir, cfg)
	if !as.valid(rec.Token.AccessToken) || rec.Token.RefreshToken == "" || rec.TokenURL != as.srv.URL+"/token" || !strings.HasPrefix(rec.ClientID, "client-") {
		t.Fatalf("stored %+v", rec)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want the token alone (no temporary file left)", len(entries))
	}

	set, reg, fails := startAuthSet(t, dir, cfg)
	if st := statusOf(t, set, "remote"); st.State != StateReady || !slices.Contains(st.Tools, "echo") {
		t.Fatalf("status %+v, failures %q", st, fails.list())
	}
	if r := call(t, reg, nil, "remote__echo", map[string]any{"text": "with a token"}); r.Output.Text != "echo: with a token" {
		t.Errorf("echo: %+v", r.Output)
	}

	removed, err := TokenStore{Dir: dir}.Remove("remote")
	if err != nil || len(removed) != 1 || removed[0] != res.File {
		t.Fatalf("remove: %q %v", removed, err)
	}
	if _, err := os.Stat(res.File); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the token file is still there: %v", err)
	}
	if removed, err := (TokenStore{Dir: dir}).Remove("remote"); err != nil || len(removed) != 0 {
		t.Errorf("a second remove: %q %v", removed, err)
	}
}

// TestOAuthRefresh: an expired token is refreshed with the stored client
// and token endpoint, the new one sent and saved back.
func TestOAuthRefresh(t *testing.T) {
	as := newAuthServer(t)
	u, _ := protectedServer(t, as, false)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", URL: u}
	if _, out, err := login(t, cfg, dir, nil); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	rec := stored(t, dir, cfg)
	old := rec.Token.AccessToken
	rec.Token.Expiry = time.Now().Add(-time.Minute)
	if err := (TokenStore{Dir: dir}).save(rec); err != nil {
		t.Fatal(err)
	}
	as.expireAccess()

	set, reg, fails := startAuthSet(t, dir, cfg)
	if st := statusOf(t, set, "remote"); st.State != StateReady {
		t.Fatalf("status %+v, failures %q", st, fails.list())
	}
	if as.refreshes.Load() != 1 {
		t.Errorf("%d refreshes, want 1", as.refreshes.Load())
	}
	now := stored(t, dir, cfg)
	if now.Token.AccessToken == old || !as.valid(now.Token.AccessToken) || !now.Token.Expiry.After(time.Now()) {
		t.Errorf("the refreshed token was not saved: %+v", now.Token)
	}
	if fi, err := os.Stat(TokenStore{Dir: dir}.path(cfg.Name, cfg.URL)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("after the refresh: %v %v", fi.Mode(), err)
	}
	if r := call(t, reg, nil, "remote__echo", map[string]any{"text": "x"}); r.Output.Text != "echo: x" {
		t.Errorf("echo: %+v", r.Output)
	}
}

// TestOAuthNeedsLogin: a server answering 401 (no token; a token it no
// longer takes; a token that cannot be refreshed; a token stored for
// another url) is needsLogin, with the hint, told once, and not started
// again.
func TestOAuthNeedsLogin(t *testing.T) {
	as := newAuthServer(t)
	u, refused := protectedServer(t, as, false)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", URL: u}
	check := func(name string, set *Set, reg *tools.Registry, fails *failures, why string) {
		t.Helper()
		st := statusOf(t, set, "remote")
		if st.State != StateNeedsLogin || len(st.Tools) != 0 {
			t.Fatalf("%s: status %+v", name, st)
		}
		mustContain(t, name, st.Error, "run `agent-ls mcp login remote`", why)
		if f := fails.list(); len(f) != 1 || !strings.Contains(f[0], "run `agent-ls mcp login remote`") {
			t.Errorf("%s: failures %q", name, f)
		}
		before := refused.Load()
		if r := call(t, reg, nil, "remote__echo", map[string]any{"text": "x"}); !r.Output.Failed {
			t.Errorf("%s: a call went through: %+v", name, r.Output)
		}
		time.Sleep(100 * time.Millisecond)
		if n := refused.Load(); n != before {
			t.Errorf("%s: the server was asked %d more times after it refused", name, n-before)
		}
		if st := statusOf(t, set, "remote"); st.State != StateNeedsLogin || len(fails.list()) != 1 {
			t.Errorf("%s: later %+v, %q", name, st, fails.list())
		}
	}

	set, reg, fails := startAuthSet(t, dir, cfg)
	check("no token", set, reg, fails, "no token is stored")

	if _, out, err := login(t, cfg, dir, nil); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	other := cfg
	other.URL = strings.Replace(u, "127.0.0.1", "localhost", 1)
	set, reg, fails = startAuthSet(t, dir, other)
	check("another url", set, reg, fails, "no token is stored")

	as.expireAccess()
	set, reg, fails = startAuthSet(t, dir, cfg)
	check("token refused", set, reg, fails, "HTTP 401 to the stored token")

	rec := stored(t, dir, cfg)
	rec.Token.Expiry = time.Now().Add(-time.Minute)
	if err := (TokenStore{Dir: dir}).save(rec); err != nil {
		t.Fatal(err)
	}
	as.revokeAll()
	set, reg, fails = startAuthSet(t, dir, cfg)
	check("refresh refused", set, reg, fails, "could not be refreshed")
}

// TestOAuthNeedsLoginMidSession: a token the server stops taking during
// a session fails the next call with the hint, and the server is
// needsLogin.
func TestOAuthNeedsLoginMidSession(t *testing.T) {
	as := newAuthServer(t)
	u, _ := protectedServer(t, as, false)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", URL: u}
	if _, out, err := login(t, cfg, dir, nil); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	set, reg, fails := startAuthSet(t, dir, cfg)
	if st := statusOf(t, set, "remote"); st.State != StateReady {
		t.Fatalf("status %+v", st)
	}
	as.revokeAll()
	r := call(t, reg, nil, "remote__echo", map[string]any{"text": "x"})
	if !r.Output.Failed {
		t.Fatalf("the call went through: %+v", r.Output)
	}
	mustContain(t, "call", r.Output.Text, "run `agent-ls mcp login remote`")
	if st := statusOf(t, set, "remote"); st.State != StateNeedsLogin {
		t.Errorf("status %+v", st)
	}
	if f := fails.list(); len(f) != 1 {
		t.Errorf("failures %q", f)
	}
}

// TestOAuthSSE: a server of the older HTTP+SSE transport, whose SDK
// transport takes no OAuth handler, gets the login's token through the
// round tripper, and is needsLogin without one.
func TestOAuthSSE(t *testing.T) {
	as := newAuthServer(t)
	u, _ := protectedServer(t, as, true)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", URL: u, Transport: TransportSSE}
	set, _, _ := startAuthSet(t, dir, cfg)
	if st := statusOf(t, set, "remote"); st.State != StateNeedsLogin {
		t.Fatalf("before the login: %+v", st)
	}
	if _, out, err := login(t, cfg, dir, nil); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	set, reg, fails := startAuthSet(t, dir, cfg)
	if st := statusOf(t, set, "remote"); st.State != StateReady || st.Transport != TransportSSE {
		t.Fatalf("status %+v, %q", st, fails.list())
	}
	if r := call(t, reg, nil, "remote__echo", map[string]any{"text": "sse"}); r.Output.Text != "echo: sse" {
		t.Errorf("echo: %+v", r.Output)
	}
}

// TestOAuthSSEFallback: with no transport configured, a server of the
// older transport is logged in to over its streamable refusal, and a
// session reaches it over SSE with the token.
func TestOAuthSSEFallback(t *testing.T) {
	as := newAuthServer(t)
	u, _ := protectedServer(t, as, true)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", URL: u}
	if _, out, err := login(t, cfg, dir, nil); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	set, _, fails := startAuthSet(t, dir, cfg)
	if st := statusOf(t, set, "remote"); st.State != StateReady || st.Transport != TransportSSE {
		t.Fatalf("status %+v, %q", st, fails.list())
	}
}

// TestOAuthForbidden: a 403 asks for a login only when it is
// insufficient_scope; another is left to the transport.
func TestOAuthForbidden(t *testing.T) {
	for _, c := range []struct {
		header string
		login  bool
	}{
		{`Bearer error="insufficient_scope", scope="mcp:admin"`, true},
		{`Bearer error="invalid_request"`, false},
		{"", false},
	} {
		a := &storedAuth{name: "remote", log: slog.New(slog.DiscardHandler)}
		resp := &http.Response{StatusCode: http.StatusForbidden, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("no"))}
		if c.header != "" {
			resp.Header.Set("WWW-Authenticate", c.header)
		}
		err := a.Authorize(context.Background(), nil, resp)
		if got := err != nil && errors.Is(err, ErrNeedsLogin) && a.needsLogin() != nil; got != c.login {
			t.Errorf("%q: needs login %v (%v), want %v", c.header, got, err, c.login)
		}
		if !c.login && err != nil {
			t.Errorf("%q: %v", c.header, err)
		}
	}
}

// TestOAuthLoginRefused: a redirect carrying another state is refused
// and nothing is stored; so is a login that gets no redirect in time.
func TestOAuthLoginRefused(t *testing.T) {
	as := newAuthServer(t)
	u, _ := protectedServer(t, as, false)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", URL: u}
	_, out, err := login(t, cfg, dir, func(q url.Values) { q.Set("state", "forged") })
	if err == nil || !strings.Contains(err.Error(), "another state") {
		t.Fatalf("a forged state: %v\n%s", err, out)
	}
	if (TokenStore{Dir: dir}).Has(cfg.Name, cfg.URL) {
		t.Error("a token was stored")
	}

	var buf strings.Builder
	_, err = Login(context.Background(), cfg, LoginOptions{AuthDir: dir, Out: &buf, Timeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no answer from the browser within 300ms") {
		t.Fatalf("no browser: %v", err)
	}
	mustContain(t, "the URL is printed without a browser", buf.String(), "/authorize?")
}

// TestOAuthLoginClients: a server whose authorization server has no
// registration endpoint takes the configured client (its secret sent to
// the token endpoint, and stored for the refreshes); without one the
// login says so. A server answering without authorization, a command
// server and a configured bearer token are refused.
func TestOAuthLoginClients(t *testing.T) {
	as := newAuthServer(t)
	as.noDCR, as.preID, as.preSecret = true, "pre-id", "pre-secret"
	u, _ := protectedServer(t, as, false)
	dir := t.TempDir()
	_, _, err := login(t, ServerConfig{Name: "remote", URL: u}, dir, nil)
	if err == nil || !strings.Contains(err.Error(), "registration") {
		t.Errorf("no client: %v", err)
	}
	cfg := ServerConfig{Name: "remote", URL: u, OAuthClientID: "pre-id", OAuthClientSecret: "pre-secret"}
	res, out, err := login(t, cfg, dir, nil)
	if err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	if rec := stored(t, dir, cfg); res.Registered || rec.ClientID != "pre-id" || rec.ClientSecret != "pre-secret" || as.registrations.Load() != 0 {
		t.Errorf("stored %+v", rec)
	}

	open := httptest.NewServer(mcpserver.NewStreamableHTTPServer(testServer()))
	t.Cleanup(open.Close)
	if _, _, err := login(t, ServerConfig{Name: "open", URL: open.URL + "/mcp"}, dir, nil); !errors.Is(err, ErrNoAuthNeeded) {
		t.Errorf("open server: %v", err)
	}
	if _, _, err := login(t, ServerConfig{Name: "local", Command: "true"}, dir, nil); err == nil || !strings.Contains(err.Error(), "url servers") {
		t.Errorf("stdio server: %v", err)
	}
	if _, _, err := login(t, ServerConfig{Name: "static", URL: u, BearerToken: "x"}, dir, nil); err == nil || !strings.Contains(err.Error(), "precedence") {
		t.Errorf("static token: %v", err)
	}
}

// TestOAuthStaticTokenFirst: a bearer token in the config is sent in
// place of a stored one.
func TestOAuthStaticTokenFirst(t *testing.T) {
	as := newAuthServer(t)
	u, _ := protectedServer(t, as, false)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", URL: u}
	if _, out, err := login(t, cfg, dir, nil); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	cfg.BearerToken = "configured"
	set, _, _ := startAuthSet(t, dir, cfg)
	// The configured token is not one the server takes: the server
	// fails as before, not needsLogin, and no stored token was sent.
	if st := statusOf(t, set, "remote"); st.State != StateFailed {
		t.Errorf("status %+v", st)
	}
}

// TestTokenStoreKeys: files are per name and url, a name's own prefix
// never matches another's, and a file holding another server's record is
// not taken.
func TestTokenStoreKeys(t *testing.T) {
	dir := t.TempDir()
	s := TokenStore{Dir: dir}
	tok := &oauth2.Token{AccessToken: "a"}
	for _, r := range []authRecord{{Server: "a", URL: "http://x/1"}, {Server: "a", URL: "http://x/2"}, {Server: "a/b", URL: "http://x/1"}, {Server: "a_b", URL: "http://x/1"}} {
		r.Token = tok
		if err := s.save(&r); err != nil {
			t.Fatal(err)
		}
	}
	if p1, p2 := s.path("a/b", "u"), s.path("a_b", "u"); p1 == p2 {
		t.Errorf("one file for two names: %s", p1)
	}
	b, _ := os.ReadFile(s.path("a", "http://x/1"))
	if err := os.WriteFile(s.path("a", "http://x/3"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if s.Has("a", "http://x/3") {
		t.Error("a record of another url was taken")
	}
	var rec authRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Token.AccessToken != "a" {
		t.Errorf("record %s: %v", b, err)
	}
	removed, err := s.Remove("a")
	if err != nil || len(removed) != 3 {
		t.Errorf("removed %q %v", removed, err)
	}
	if !s.Has("a/b", "http://x/1") || !s.Has("a_b", "http://x/1") {
		t.Error("another server's token was removed")
	}
}

// TestOAuthLoginRevivesTheServer: a server that needed a login starts
// again once `agent-ls mcp login` stored a token meanwhile (in another
// process): the next Ready brings its tools back, without a new Set; a
// Ready with no new token asks the server nothing.
func TestOAuthLoginRevivesTheServer(t *testing.T) {
	as := newAuthServer(t)
	u, refused := protectedServer(t, as, false)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	cfg := ServerConfig{Name: "remote", URL: u}
	set, reg, _ := startAuthSet(t, dir, cfg)
	if st := statusOf(t, set, "remote"); st.State != StateNeedsLogin {
		t.Fatalf("status before the login: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before := refused.Load()
	set.Ready(ctx)
	if n := refused.Load(); n != before {
		t.Errorf("a Ready without a new token asked the server %d times", n-before)
	}
	if _, out, err := login(t, cfg, dir, nil); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	set.Ready(ctx)
	if st := statusOf(t, set, "remote"); st.State != StateReady || !slices.Contains(st.Tools, "echo") {
		t.Fatalf("status after the login: %+v", st)
	}
	if r := call(t, reg, nil, "remote__echo", map[string]any{"text": "back"}); r.Output.Text != "echo: back" {
		t.Errorf("echo: %+v", r.Output)
	}
}

// TestOAuthRefreshBySecondProcess: two agent-ls hold the same stored
// token and the authorization server rotates refresh tokens: the one
// that refreshes second, with the refresh token the first used up, takes
// up the token the first saved instead of needing a login.
func TestOAuthRefreshBySecondProcess(t *testing.T) {
	as := newAuthServer(t)
	u, _ := protectedServer(t, as, false)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "remote", URL: u}
	if _, out, err := login(t, cfg, dir, nil); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	rec := stored(t, dir, cfg)
	rec.Token.Expiry = time.Now().Add(-time.Minute)
	if err := (TokenStore{Dir: dir}).save(rec); err != nil {
		t.Fatal(err)
	}
	as.expireAccess()
	log := slog.New(slog.DiscardHandler)
	first, second := newStoredAuth(&cfg, dir, log), newStoredAuth(&cfg, dir, log)
	first.init()
	second.init() // both loaded the expired token and the same refresh token

	a, err := first.Token()
	if err != nil || a == nil || !as.valid(a.AccessToken) {
		t.Fatalf("the first refresh: %+v, %v", a, err)
	}
	b, err := second.Token()
	if err != nil || b == nil || b.AccessToken != a.AccessToken || second.needsLogin() != nil {
		t.Fatalf("the second process: %+v, %v, %v", b, err, second.needsLogin())
	}
	if n := as.refreshes.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1: the second took up the first's token", n)
	}
}
