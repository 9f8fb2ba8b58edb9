package sandbox

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"
)

// The proxy endpoint of one command. With the network setting "ask" a
// workspace-write command that runs in its session's loopback network
// (netns_linux.go) gets a TCP socket of its own listening on 127.0.0.1
// there, which agent-ls made (netns_linux.c: a child joins the session's
// namespaces, listens and leaves the socket in agent-ls's descriptor
// table) and accepts on from outside: the command reaches it as any
// server of its loopback, through the supervisor, and agent-ls's proxy
// serves it from the host's network. Nothing else changes: a connect to
// anything but the session's loopback is still refused, and the host's
// loopback is another namespace's.

// startProxy gives the command its proxy endpoint when the policy has a
// proxy, the mode is workspace-write and the plan joined the session's
// network; it returns the command's environment with the proxy
// variables set. When the endpoint cannot be made the command runs with
// the network off, as it would without a proxy.
func (c *Cmd) startProxy(pl *plan, env []string) []string {
	p := c.policy
	if p.Proxy == nil || p.Network || p.mode() != WorkspaceWrite || pl.netNS == nil {
		return env
	}
	ln, err := p.Sockets.proxyListener()
	if err != nil {
		slog.Warn("sandbox: no proxy endpoint for the command: its network stays off", "err", err)
		return env
	}
	port := ln.Addr().(*net.TCPAddr).Port
	stop := p.Proxy.ServeProxy(ln)
	release := c.release
	c.release = func() {
		stop()
		if release != nil {
			release()
		}
	}
	return ProxyEnv(env, "http://127.0.0.1:"+strconv.Itoa(port))
}

// proxyListener makes a TCP socket listening on a free port of 127.0.0.1
// in the session's network namespace.
func (r *SocketRegistry) proxyListener() (net.Listener, error) {
	user, nsf, err := r.netNamespaces()
	if err != nil {
		return nil, err
	}
	defer user.Close()
	defer nsf.Close()
	f, err := sessionNetListen(user, nsf)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the proxy endpoint: %w", err)
	}
	return ln, nil
}
