package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// authServer is an OAuth 2.1 authorization server on loopback, as MCP's
// authorization spec asks of one: RFC 8414 metadata, dynamic client
// registration (RFC 7591), the authorization code grant with PKCE (S256
// only), refresh tokens. Its authorization endpoint approves at once (a
// user who clicks "allow"), redirecting to the client's registered
// redirect URI.
type authServer struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	clients  map[string][]string // client id → redirect URIs
	codes    map[string]authCode
	access   map[string]time.Time // access token → expiry
	refresh  map[string]bool
	resource string // the resource the tokens must be asked for

	refreshes     atomic.Int64
	registrations atomic.Int64
	// noDCR: the server has no registration endpoint.
	noDCR bool
	// preregistered client, accepted without registration.
	preID, preSecret string
}

type authCode struct {
	client, redirect, challenge, resource string
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, clients: map[string][]string{}, codes: map[string]authCode{}, access: map[string]time.Time{}, refresh: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *authServer) metadata(w http.ResponseWriter, r *http.Request) {
	m := map[string]any{
		"issuer":                                a.srv.URL,
		"authorization_endpoint":                a.srv.URL + "/authorize",
		"token_endpoint":                        a.srv.URL + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_post"},
		"scopes_supported":                      []string{"mcp:tools", "offline_access"},
	}
	if !a.noDCR {
		m["registration_endpoint"] = a.srv.URL + "/register"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(m)
}

func (a *authServer) register(w http.ResponseWriter, r *http.Request) {
	var md struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
		http.Error(w, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
		return
	}
	for _, u := range md.RedirectURIs {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			http.Error(w, `{"error":"invalid_redirect_uri"}`, http.StatusBadRequest)
			return
		}
	}
	id := "client-" + rand.Text()
	a.mu.Lock()
	a.clients[id] = md.RedirectURIs
	a.mu.Unlock()
	a.registrations.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]any{"client_id": id, "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (a *authServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	uris, ok := a.clients[q.Get("client_id")]
	a.mu.Unlock()
	if q.Get("client_id") == a.preID && a.preID != "" {
		ok, uris = true, []string{q.Get("redirect_uri")}
	}
	switch {
	case !ok:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case !slices.Contains(uris, q.Get("redirect_uri")):
		http.Error(w, "unregistered redirect_uri", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE (S256) and response_type=code are required", http.StatusBadRequest)
		return
	}
	code := "code-" + rand.Text()
	a.mu.Lock()
	a.codes[code] = authCode{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), resource: q.Get("resource")}
	a.mu.Unlock()
	to, _ := url.Parse(q.Get("redirect_uri"))
	to.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":%q}`, code)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		c, ok := a.codes[r.Form.Get("code")]
		delete(a.codes, r.Form.Get("code"))
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		switch {
		case !ok || c.client != r.Form.Get("client_id") || c.redirect != r.Form.Get("redirect_uri"):
			fail("invalid_grant")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			fail("invalid_grant") // the PKCE verifier does not match
			return
		case c.resource != a.resource || r.Form.Get("resource") != a.resource:
			fail("invalid_target")
			return
		case c.client == a.preID && a.preSecret != "" && r.Form.Get("client_secret") != a.preSecret:
			fail("invalid_client")
			return
		}
	case "refresh_token":
		if !a.refresh[r.Form.Get("refresh_token")] {
			fail("invalid_grant")
			return
		}
		delete(a.refresh, r.Form.Get("refresh_token"))
		a.refreshes.Add(1)
	default:
		fail("unsupported_grant_type")
		return
	}
	access, refresh := "at-"+rand.Text(), "rt-"+rand.Text()
	a.access[access] = time.Now().Add(time.Hour)
	a.refresh[refresh] = true
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh, "scope": "mcp:tools"})
}

// valid reports whether tok is a live access token.
func (a *authServer) valid(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.access[tok]
	return ok && time.Now().Before(exp)
}

// revokeAll ends every access and refresh token.
func (a *authServer) revokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
	clear(a.refresh)
}

// expireAccess ends every access token, refresh tokens still good.
func (a *authServer) expireAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
}

// protectedServer serves testServer over streamable HTTP (or, with sse,
// the older HTTP+SSE transport) on loopback as an OAuth protected
// resource of as: its metadata (RFC 9728) at the well-known path of its
// MCP endpoint, and a 401 pointing at it for a request without a live
// token. It returns the MCP endpoint's URL and the count of 401s.
func protectedServer(t *testing.T, as *authServer, sse bool) (string, *atomic.Int64) {
	t.Helper()
	var h http.Handler = mcpserver.NewStreamableHTTPServer(testServer())
	path := "/mcp"
	if sse {
		h, path = mcpserver.NewSSEServer(testServer()), "/sse"
	}
	var base string
	var refused atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource"+path {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"resource": base + path, "authorization_servers": []string{as.srv.URL},
				"scopes_supported": []string{"mcp:tools"}, "bearer_methods_supported": []string{"header"},
			})
			return
		}
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !as.valid(tok) {
			refused.Add(1)
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope="mcp:tools"`, base+"/.well-known/oauth-protected-resource"+path))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	base = srv.URL
	as.resource = base + path
	return base + path, &refused
}

// fakeBrowser opens the authorization URL as a browser whose user
// approves: it follows the redirects, to the loopback redirect URI at
// the end. tamper, if set, changes the redirect URI's query first.
func fakeBrowser(t *testing.T, tamper func(url.Values)) func(context.Context, string) error {
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	return func(ctx context.Context, u string) error {
		wg.Go(func() {
			hc := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if tamper != nil && strings.HasPrefix(req.URL.String(), "http://127.0.0.1:") && req.URL.Path == redirectPath {
					q := req.URL.Query()
					tamper(q)
					req.URL.RawQuery = q.Encode()
				}
				return nil
			}}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			resp, err := hc.Do(req)
			if err != nil {
				t.Logf("fake browser: %v", err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Logf("fake browser: %s: %s", resp.Status, b)
		})
		return nil
	}
}
