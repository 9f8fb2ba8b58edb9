package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// DefaultLoginTimeout is how long Login waits for the browser.
const DefaultLoginTimeout = 5 * time.Minute

// ErrNoAuthNeeded is Login's error for a server that answers without
// authorization.
var ErrNoAuthNeeded = errors.New("the server answers without authorization: it needs no login")

// LoginOptions configure Login.
type LoginOptions struct {
	// AuthDir is the TokenStore's folder the result is stored in.
	AuthDir string
	// Out is told the authorization URL, always, and what happens.
	Out io.Writer
	// OpenBrowser opens the authorization URL; nil, or an error, leaves
	// it to the user, who has it from Out.
	OpenBrowser func(ctx context.Context, url string) error
	// Timeout bounds the wait for the browser's redirect; 0 means
	// DefaultLoginTimeout.
	Timeout time.Duration
	// ClientVersion is agent-ls's version, told to the server.
	ClientVersion string
}

// LoginResult is what Login stored.
type LoginResult struct {
	// File holds the token, 0600.
	File string
	// Registered: the client was registered dynamically.
	Registered bool
}

// Login runs OAuth's authorization code flow for the url server of cfg,
// as MCP's authorization spec (2025-11-25) has it, through the SDK's
// auth.AuthorizationCodeHandler: the server's 401 leads to its protected
// resource metadata, the authorization server's metadata, the client
// (cfg's preregistered one, or one registered dynamically), the browser
// with a PKCE challenge, the loopback redirect and the code exchange.
// The token, the client and the token endpoint that refreshes it are
// stored in opts.AuthDir. Only `agent-ls mcp login` calls it: a session
// never opens a browser.
func Login(ctx context.Context, cfg ServerConfig, opts LoginOptions) (*LoginResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch {
	case cfg.Stdio():
		return nil, fmt.Errorf("MCP server %q is a command (stdio) server: OAuth login is for url servers", cfg.Name)
	case cfg.staticAuth():
		return nil, fmt.Errorf("MCP server %q has a bearer token or an Authorization header in its config, which takes precedence over a login: remove it to use OAuth", cfg.Name)
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	cb, err := listenRedirect()
	if err != nil {
		return nil, err
	}
	defer cb.close()
	var got atomic.Pointer[authRecord]
	h, err := auth.NewAuthorizationCodeHandler(loginConfig(cfg, cb, opts, &got))
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", cfg.Name, err)
	}
	err = authorize(ctx, cfg, h, opts.ClientVersion)
	// A token got is kept even when the handshake after it failed (a
	// server of the older transport refuses the streamable retry): the
	// authorization is done, and connecting is a session's business.
	rec := got.Load()
	switch {
	case rec == nil && err != nil:
		return nil, fmt.Errorf("MCP server %q: %w", cfg.Name, err)
	case rec == nil:
		return nil, fmt.Errorf("MCP server %q: the authorization gave no token", cfg.Name)
	}
	rec.Server, rec.URL, rec.Registered = cfg.Name, cfg.URL, cfg.OAuthClientID == ""
	store := TokenStore{Dir: opts.AuthDir}
	if err := store.save(rec); err != nil {
		return nil, err
	}
	return &LoginResult{File: store.path(cfg.Name, cfg.URL), Registered: rec.Registered}, nil
}

// loginConfig is the SDK handler's configuration: the client (cfg's, or
// dynamic registration with the loopback redirect URI), the browser
// step, and the hook that keeps the token got.
func loginConfig(cfg ServerConfig, cb *redirectListener, opts LoginOptions, got *atomic.Pointer[authRecord]) *auth.AuthorizationCodeHandlerConfig {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultLoginTimeout
	}
	c := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         cb.url,
		RequestRefreshToken: true,
		Client:              &http.Client{Timeout: 30 * time.Second},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if err := cb.expect(args.URL); err != nil {
				return nil, err
			}
			fmt.Fprintf(opts.Out, "Open this URL in a browser to authorize agent-ls for the MCP server %s:\n\n  %s\n\nWaiting for the browser (at most %s)...\n", cfg.Name, args.URL, timeout)
			if opts.OpenBrowser != nil {
				if err := opts.OpenBrowser(ctx, args.URL); err != nil {
					fmt.Fprintf(opts.Out, "(the browser could not be opened: %v; open the URL above yourself)\n", err)
				}
			}
			return cb.wait(ctx, timeout)
		},
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			got.Store(&authRecord{ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, TokenURL: oc.Endpoint.TokenURL,
				AuthStyle: oc.Endpoint.AuthStyle, Scopes: oc.Scopes, Token: tok})
			return oc.TokenSource(ctx, tok), nil
		},
	}
	if cfg.OAuthClientID != "" {
		pre := &oauthex.ClientCredentials{ClientID: cfg.OAuthClientID}
		if cfg.OAuthClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: cfg.OAuthClientSecret}
		}
		c.PreregisteredClient = pre
	} else {
		c.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{cb.url},
			ClientName:              "agent-ls",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}}
	}
	return c
}

// loginHandler is the SDK's handler, counting the authorizations it ran.
type loginHandler struct {
	*auth.AuthorizationCodeHandler
	ran atomic.Bool
}

func (h *loginHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	h.ran.Store(true)
	return h.AuthorizationCodeHandler.Authorize(ctx, req, resp)
}

// authorize makes the server ask for authorization and runs h when it
// does: the MCP handshake over streamable HTTP with h as the transport's
// OAuthHandler, or, for a server of the older HTTP+SSE transport (which
// takes no handler), a GET of its stream, whose 401 goes to h.
func authorize(ctx context.Context, cfg ServerConfig, h *auth.AuthorizationCodeHandler, clientVersion string) error {
	if cfg.Transport == TransportSSE {
		return authorizeSSE(ctx, cfg, h)
	}
	rt := newHeaderTransport(cfg.URL, http.Header{})
	tr := streamableOver(cfg.URL, rt)
	lh := &loginHandler{AuthorizationCodeHandler: h}
	tr.OAuthHandler = lh
	cl, err := connectClient(ctx, tr, clientVersion, &floodLog{log: slog.New(slog.DiscardHandler)}, clientHooks{})
	if cl != nil {
		cl.close()
	}
	switch code := rt.firstPost.Load(); {
	case err == nil && !lh.ran.Load():
		return ErrNoAuthNeeded
	case err == nil || lh.ran.Load():
		return err
	case cfg.Transport == "" && (code == http.StatusBadRequest || code == http.StatusNotFound || code == http.StatusMethodNotAllowed):
		// A server of the older transport only, as handshakeHTTP falls
		// back to.
		return authorizeSSE(ctx, cfg, h)
	default:
		return err
	}
}

// authorizeSSE runs h on the 401 of the server's SSE stream.
func authorizeSSE(ctx context.Context, cfg ServerConfig, h *auth.AuthorizationCodeHandler) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.URL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	hc := &http.Client{Transport: newHeaderTransport(cfg.URL, http.Header{}), CheckRedirect: sameOrigin}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		resp.Body.Close()
		if resp.StatusCode/100 == 2 {
			return ErrNoAuthNeeded
		}
		return fmt.Errorf("the server's stream answers %s, not a request for authorization", resp.Status)
	}
	return h.Authorize(ctx, req, resp)
}
