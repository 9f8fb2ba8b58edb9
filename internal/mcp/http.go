package mcp

import (
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTransport is the SDK's streamable-HTTP transport to the server at
// url, every request carrying headers (the configured ones, the bearer
// token among them).
func httpTransport(url string, headers http.Header) *sdk.StreamableClientTransport {
	return &sdk.StreamableClientTransport{
		Endpoint: url,
		HTTPClient: &http.Client{
			Transport:     &headerTransport{base: http.DefaultTransport, headers: headers},
			CheckRedirect: sameOrigin,
		},
		MaxEventSize: maxMessageBytes,
	}
}

// headerTransport adds the configured headers to every request the SDK
// makes; those the SDK sets itself (the content types, the session, the
// protocol version) are its own.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.headers {
		if _, set := req.Header[k]; !set {
			req.Header[k] = vs
		}
	}
	return t.base.RoundTrip(req)
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
