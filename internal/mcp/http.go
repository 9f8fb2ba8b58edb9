package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transports of a url server (ServerConfig.Transport).
const (
	// TransportStreamableHTTP is MCP's streamable HTTP.
	TransportStreamableHTTP = "streamable-http"
	// TransportSSE is the older HTTP+SSE transport (protocol
	// 2024-11-05): a GET stream whose first event names the endpoint
	// the messages are POSTed to.
	TransportSSE = "sse"
)

// connectHTTP makes the MCP handshake with the url server, and logs and
// returns the transport it went over (see handshakeHTTP). cn gets the
// stored OAuth authorization the connection uses, if any; a server that
// refused it (or the lack of one) fails with ErrNeedsLogin.
func (s *server) connectHTTP(ctx context.Context, cn *conn, serverLog *floodLog, h clientHooks) (*client, string, error) {
	cn.auth = newStoredAuth(&s.cfg, s.set.opts.AuthDir, s.log)
	cl, transport, err := s.handshakeHTTP(ctx, cn.auth, serverLog, h)
	if err == nil {
		s.log.Info("MCP server connected", "transport", transport)
	} else if nl := cn.auth.needsLogin(); nl != nil {
		s.log.Info("MCP server needs a login", "err", err)
		err = nl
	}
	return cl, transport, err
}

// handshakeHTTP makes the MCP handshake with the url server over the
// configured transport, and says which it was. With none configured,
// streamable HTTP is tried first, and the HTTP+SSE transport when the
// server answers the initialize POST with 400, 404 or 405: what MCP's
// backwards compatibility asks of clients that support older servers.
func (s *server) handshakeHTTP(ctx context.Context, a *storedAuth, serverLog *floodLog, h clientHooks) (*client, string, error) {
	clientVersion := s.set.opts.ClientVersion
	if s.cfg.Transport == TransportSSE {
		cl, err := connectClient(ctx, s.sseTransport(a), clientVersion, serverLog, h)
		return cl, TransportSSE, err
	}
	rt := newHeaderTransport(s.cfg.URL, s.headers())
	tr := streamableOver(s.cfg.URL, rt)
	if a != nil {
		tr.OAuthHandler = a
	}
	cl, err := connectClient(ctx, tr, clientVersion, serverLog, h)
	if err == nil || s.cfg.Transport != "" || a.needsLogin() != nil {
		return cl, TransportStreamableHTTP, err
	}
	switch code := rt.firstPost.Load(); code {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		s.log.Info("MCP server refuses streamable HTTP; trying the older HTTP+SSE transport", "status", code)
	default:
		return nil, "", err
	}
	cl, sseErr := connectClient(ctx, s.sseTransport(a), clientVersion, serverLog, h)
	if sseErr != nil {
		return nil, "", fmt.Errorf("%w; then over HTTP+SSE: %w", err, sseErr)
	}
	return cl, TransportSSE, nil
}

// headers are the server's headers, its bearer token among them.
func (s *server) headers() http.Header {
	headers := http.Header{}
	for k, v := range s.cfg.HTTPHeaders {
		headers.Set(k, v)
	}
	if s.cfg.BearerToken != "" {
		headers.Set("Authorization", "Bearer "+s.cfg.BearerToken)
	}
	return headers
}

// httpTransport is the SDK's streamable-HTTP transport to the server at
// url, every request carrying headers (the configured ones, the bearer
// token among them).
func httpTransport(url string, headers http.Header) *sdk.StreamableClientTransport {
	return streamableOver(url, newHeaderTransport(url, headers))
}

// streamableOver is the SDK's streamable-HTTP transport to the server at
// url, every request going through rt.
func streamableOver(url string, rt *headerTransport) *sdk.StreamableClientTransport {
	return &sdk.StreamableClientTransport{
		Endpoint:     url,
		HTTPClient:   &http.Client{Transport: rt, CheckRedirect: sameOrigin},
		MaxEventSize: maxMessageBytes,
	}
}

// sseTransport is the SDK's HTTP+SSE transport to the server, with the
// headers and redirects of streamable HTTP. Its stream lives as long as
// the set, not the startup timeout. The SDK's SSE transport takes no
// auth.OAuthHandler: the round tripper sends a's token, and records a 401.
func (s *server) sseTransport(a *storedAuth) *lastingSSE {
	rt := newHeaderTransport(s.cfg.URL, s.headers())
	rt.auth = a
	return &lastingSSE{
		SSEClientTransport: sdk.SSEClientTransport{
			Endpoint:     s.cfg.URL,
			HTTPClient:   &http.Client{Transport: rt, CheckRedirect: sameOrigin},
			MaxEventSize: maxMessageBytes,
		},
		life: s.set.ctx,
	}
}

// lastingSSE is the SDK's SSE client transport, whose GET stream is
// made with the context given to Connect: that context (the startup
// timeout) bounds the connecting alone, and life the stream.
type lastingSSE struct {
	sdk.SSEClientTransport
	life context.Context
}

func (t *lastingSSE) Connect(ctx context.Context) (sdk.Connection, error) {
	life, cancel := context.WithCancel(t.life)
	stop := context.AfterFunc(ctx, cancel)
	c, err := t.SSEClientTransport.Connect(life)
	if !stop() {
		err = errors.Join(ctx.Err(), err)
	}
	if err != nil {
		if c != nil {
			_ = c.Close()
		}
		cancel()
		return nil, err
	}
	return &cancelConn{Connection: c, cancel: cancel}, nil
}

// cancelConn ends its stream's context when closed.
type cancelConn struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *cancelConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// headerTransport adds the configured headers to every request the SDK
// makes; those the SDK sets itself (the content types, the session, the
// protocol version) are its own. The headers are for the server's own
// origin: a request elsewhere (an SSE endpoint event naming another
// host) is refused. firstPost keeps the status of the first POST, the
// initialize of streamable HTTP. auth, when set (the SSE transport),
// gives the bearer token and hears of a 401.
type headerTransport struct {
	base      http.RoundTripper
	headers   http.Header
	auth      *storedAuth
	origin    string // scheme://host
	firstPost atomic.Int32
}

// newHeaderTransport is a round tripper adding headers to the requests
// to the origin of rawURL, a URL Validate accepted.
func newHeaderTransport(rawURL string, headers http.Header) *headerTransport {
	t := &headerTransport{base: http.DefaultTransport, headers: headers}
	if u, err := url.Parse(rawURL); err == nil {
		t.origin = u.Scheme + "://" + u.Host
	}
	return t
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if origin := req.URL.Scheme + "://" + req.URL.Host; origin != t.origin {
		return nil, fmt.Errorf("the server sends agent-ls to %s, another origin, where it does not go: its headers and token are for %s only",
			req.URL.Redacted(), t.origin)
	}
	req = req.Clone(req.Context())
	for k, vs := range t.headers {
		if _, set := req.Header[k]; !set {
			req.Header[k] = vs
		}
	}
	if t.auth != nil && req.Header.Get("Authorization") == "" {
		tok, err := t.auth.Token()
		if err != nil {
			return nil, err
		}
		if tok != nil {
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && t.auth != nil && resp.StatusCode == http.StatusUnauthorized {
		t.auth.refuse(resp.StatusCode)
	}
	if err == nil && req.Method == http.MethodPost {
		t.firstPost.CompareAndSwap(0, int32(resp.StatusCode))
	}
	return resp, err
}

// sameOrigin follows a redirect only within the server's own scheme and
// host: the configured headers (the bearer token, other secrets the
// config gives) go with every request, and they are meant for the
// configured server alone.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if first := via[0].URL; req.URL.Host != first.Host || req.URL.Scheme != first.Scheme {
		return fmt.Errorf("the server redirects to %s, another origin, which is not followed: its headers and token are for %s://%s only",
			req.URL.Redacted(), first.Scheme, first.Host)
	}
	return nil
}
