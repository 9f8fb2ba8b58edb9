// Package netproxy is the network proxy that sandboxed commands reach
// the network through when the network setting is "ask": an HTTP proxy
// (CONNECT tunnels and plain http:// forwarding) that decides per host.
//
// A connection names a host and a port. The proxy first judges the name
// alone: denied_domains refuse it, allowed_domains and the session's
// earlier answers admit it, and otherwise the [Decider] is asked (the
// user, or nobody when nobody can be asked). Connections to the same
// host and port that arrive while a question is open wait for its
// answer. Only a name so admitted is resolved, by the proxy (the
// sandbox has no DNS of its own), and the proxy then connects to
// exactly the addresses it resolved and checked. Addresses on this
// machine or its local networks (loopback, link-local with the cloud
// metadata endpoints, private and shared ranges, unspecified) are
// judged again after resolution and asked separately, as a question
// about a service on this machine or its network: no wildcard of
// allowed_domains covers them, only an entry naming the exact host and
// port, or the session's answer for that host and port. A refused
// connection gets a 403 at once whose body says who refused it.
//
// TLS is tunnelled, never looked into. Bytes are copied between the two
// connections with fixed buffers (splice on Linux), so memory stays
// bounded however much a connection moves; each connection's bytes are
// reported when it closes ([Access]).
package netproxy
