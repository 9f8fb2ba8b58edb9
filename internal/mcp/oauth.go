package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// ErrNeedsLogin is wrapped by the error of a url server that asks for
// authorization (HTTP 401) which agent-ls has no token for, or whose
// token could not be refreshed: its state is StateNeedsLogin and it is
// not started again until `agent-ls mcp login` ran. A session never runs
// the interactive flow itself.
var ErrNeedsLogin = errors.New("the server asks for authorization")

// LoginHint is what the user is told to do for the server name in
// StateNeedsLogin.
func LoginHint(name string) string {
	return fmt.Sprintf("run `agent-ls mcp login %s`", name)
}

// needsLoginError is the error of a server in StateNeedsLogin.
func needsLoginError(name string, why string) error {
	return fmt.Errorf("%w (%s): %s", ErrNeedsLogin, why, LoginHint(name))
}

// staticAuth reports whether the server's config gives its own
// authorization (bearer_token_env_var, or an Authorization header), which
// takes precedence over a stored OAuth token.
func (c *ServerConfig) staticAuth() bool {
	if c.BearerToken != "" {
		return true
	}
	for k := range c.HTTPHeaders {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// refreshTimeout bounds one refresh of a token.
const refreshTimeout = 30 * time.Second

// storedAuth authorizes one connection to a url server with the token
// `agent-ls mcp login` stored: the SDK's streamable-HTTP transport asks
// it as its auth.OAuthHandler, the SSE transport's round tripper as an
// oauth2.TokenSource. An expired token is refreshed with the stored
// client and token endpoint, and the new one saved back. Authorize never
// runs a flow: it records that the server refused, and the connection
// fails with ErrNeedsLogin.
type storedAuth struct {
	store TokenStore
	name  string
	url   string
	log   *slog.Logger

	once sync.Once
	rec  *authRecord
	ts   oauth2.TokenSource // nil when nothing is stored
	err  error

	mu   sync.Mutex
	last string // the access token last saved

	refused atomic.Bool
	why     atomic.Value // string: why the server or the refresh refused
}

var _ auth.OAuthHandler = (*storedAuth)(nil)

// newStoredAuth is the authorization of a connection to the server of
// cfg: nil when its config gives its own or there is no token folder.
func newStoredAuth(cfg *ServerConfig, dir string, log *slog.Logger) *storedAuth {
	if cfg.Stdio() || cfg.staticAuth() || dir == "" {
		return nil
	}
	return &storedAuth{store: TokenStore{Dir: dir}, name: cfg.Name, url: cfg.URL, log: log}
}

// init loads the stored record once per connection.
func (a *storedAuth) init() {
	a.once.Do(func() {
		a.rec, a.err = a.store.load(a.name, a.url)
		if a.rec == nil || a.err != nil {
			return
		}
		a.use(a.rec)
	})
}

// use makes rec the record the tokens come from. The refreshes outlive
// any one request: the background context, as the SDK's own handler
// does, with a client that gives up on a token endpoint that does not
// answer.
func (a *storedAuth) use(rec *authRecord) {
	a.rec, a.last = rec, rec.Token.AccessToken
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: refreshTimeout})
	a.ts = rec.config().TokenSource(ctx, rec.Token)
}

// reload takes up the record stored since this connection loaded its
// own, when it holds other tokens: another agent-ls (a second editor, an
// exec) refreshed first, and an authorization server that rotates
// refresh tokens refuses the one this connection holds. a.mu is held.
func (a *storedAuth) reload() bool {
	rec, err := a.store.load(a.name, a.url)
	if err != nil || rec == nil ||
		(rec.Token.RefreshToken == a.rec.Token.RefreshToken && rec.Token.AccessToken == a.rec.Token.AccessToken) {
		return false
	}
	a.log.Info("MCP server: the stored token changed since it was loaded; using it")
	a.use(rec)
	return true
}

// TokenSource is the stored token's source, nil when none is stored
// (requests then go without a token, and a 401 means needsLogin).
func (a *storedAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	a.init()
	if a.err != nil {
		return nil, a.err
	}
	if a.ts == nil {
		return nil, nil
	}
	return a, nil
}

// Token is the current access token, refreshed (and saved) when it
// expired. A refresh the authorization server refuses, or an expired
// token with no refresh token, gives no token and no error: the request
// goes without one, and the server's 401 makes the state needsLogin.
func (a *storedAuth) Token() (*oauth2.Token, error) {
	a.init()
	if a.ts == nil {
		return nil, a.err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rec.Token.RefreshToken == "" && !a.rec.Token.Valid() {
		a.why.Store("the stored token expired and has no refresh token")
		return nil, nil
	}
	tok, err := a.ts.Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && a.reload() {
		tok, err = a.ts.Token()
	}
	if err != nil {
		if errors.As(err, &re) {
			a.log.Info("MCP server: the token could not be refreshed", "err", err)
			a.why.Store("the token could not be refreshed: " + err.Error())
			return nil, nil
		}
		return nil, fmt.Errorf("refreshing the OAuth token: %w", err)
	}
	if tok.AccessToken != a.last {
		a.last = tok.AccessToken
		rec := *a.rec
		rec.Token = tok
		if err := a.store.save(&rec); err != nil {
			a.log.Warn("MCP server: the refreshed token could not be saved", "err", err)
		} else {
			a.log.Info("MCP server: token refreshed and saved")
		}
	}
	return tok, nil
}

// Authorize is called by the SDK's transport on a 401 or 403: no flow
// runs in a session. A 403 that is not insufficient_scope is left to the
// transport, as the SDK's own handler leaves it.
func (a *storedAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusForbidden {
		cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		scope := false
		for _, c := range cs {
			scope = scope || c.Params["error"] == "insufficient_scope"
		}
		if !scope {
			return nil
		}
	}
	a.refuse(resp.StatusCode)
	return needsLoginError(a.name, a.reason())
}

// refuse records that the server answered status to the token sent, or
// to none.
func (a *storedAuth) refuse(status int) {
	if a.why.Load() == nil {
		a.init()
		switch {
		case a.rec == nil:
			a.why.Store(fmt.Sprintf("HTTP %d, and no token is stored", status))
		default:
			a.why.Store(fmt.Sprintf("HTTP %d to the stored token", status))
		}
	}
	a.refused.Store(true)
}

// reason says why the server needs a login.
func (a *storedAuth) reason() string {
	if s, ok := a.why.Load().(string); ok {
		return s
	}
	return "HTTP 401"
}

// needsLogin is the error of a connection the server refused; nil when
// it did not.
func (a *storedAuth) needsLogin() error {
	if a == nil || !a.refused.Load() {
		return nil
	}
	return needsLoginError(a.name, a.reason())
}

// needsLogin gives the server up until a login: its connection (cn, or
// the current one) is closed, its tools withdrawn, and the user told once
// (Options.Failed). It is not started again in this set: the session
// never runs the interactive flow, and retrying cannot help.
func (s *server) needsLogin(err error, cn *conn) error {
	s.mu.Lock()
	if cn != nil && s.conn != cn {
		// Another call already reported this connection.
		s.mu.Unlock()
		return err
	}
	cn, s.conn = s.conn, nil
	told := s.state == StateNeedsLogin
	s.state, s.err, s.disabled, s.failedAt = StateNeedsLogin, err, true, time.Now()
	s.tokenSeen = s.tokenFile()
	s.offered = nil
	s.mu.Unlock()
	if cn != nil {
		cn.close()
	}
	s.log.Info("MCP server needs a login", "err", err)
	s.set.opts.Registry.Unregister(SourceName(s.cfg.Name))
	s.set.releaseNames(s.cfg.Name, nil)
	s.set.offerResourceTools()
	if !told && s.set.opts.Failed != nil {
		s.set.opts.Failed(s.cfg.Name, err)
	}
	return err
}

// tokenFile is what the token store holds for s, nil for nothing.
func (s *server) tokenFile() os.FileInfo {
	if s.set.opts.AuthDir == "" {
		return nil
	}
	fi, err := os.Stat(TokenStore{Dir: s.set.opts.AuthDir}.path(s.cfg.Name, s.cfg.URL))
	if err != nil {
		return nil
	}
	return fi
}

// revive starts a server that needed a login again when a token for it
// was stored after that (`agent-ls mcp login` run meanwhile, in another
// terminal): its tools come back for the next request, without a restart
// of agent-ls. It returns at once when there is nothing to do; a start
// it makes is waited for within ctx.
func (s *server) revive(ctx context.Context) {
	s.mu.Lock()
	since, seen, waiting := s.failedAt, s.tokenSeen, s.state == StateNeedsLogin
	s.mu.Unlock()
	if !waiting || s.set.opts.AuthDir == "" {
		return
	}
	// A token stored since: the file is there and is not the one there
	// was at the failure (compared by file, size and time: a file's time
	// is the kernel's coarse clock, which a login in the same few
	// milliseconds would not move past the failure's).
	fi := s.tokenFile()
	if fi == nil || seen != nil && os.SameFile(fi, seen) && fi.Size() == seen.Size() && fi.ModTime().Equal(seen.ModTime()) {
		return
	}
	s.mu.Lock()
	if s.state != StateNeedsLogin || !s.failedAt.Equal(since) {
		s.mu.Unlock()
		return
	}
	s.disabled, s.failures, s.err, s.state = false, 0, nil, StateStarting
	s.failedAt = time.Time{}
	s.mu.Unlock()
	s.log.Info("MCP server: a login was stored; starting it again")
	if _, err := s.client(ctx); err != nil {
		s.log.Info("MCP server: the start after the login failed", "err", err)
	}
}
