package netproxy

import (
	"context"
	"log/slog"
	"net"
)

// Endpoint is the proxy as one client (a command) reaches it: the
// sandbox gives it a listener of the command's own.
type Endpoint struct {
	proxy  *Proxy
	client Client
}

// Endpoint returns the proxy's endpoint for client.
func (p *Proxy) Endpoint(client Client) *Endpoint {
	return &Endpoint{proxy: p, client: client}
}

// ServeProxy serves ln for the endpoint's client until stop is called;
// stop closes ln and every connection through it (an open question
// about a host is then answered "denied" for this client) and returns
// once they are done.
func (e *Endpoint) ServeProxy(ln net.Listener) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.proxy.Serve(ctx, ln, e.client); err != nil {
			slog.Warn("netproxy: endpoint", "err", err)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
