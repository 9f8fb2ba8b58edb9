package netproxy

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// A rule is one entry of allowed_domains or denied_domains: a host name
// (exact, or "*.example.com" for every name below example.com, not the
// name itself), an IP address, and a port; port 0 means 80 and 443.
type rule struct {
	host     string // lower case, no trailing dot; without "*." for a wildcard
	wildcard bool
	port     int
}

// Rules are the allowed and denied hosts of the configuration.
type Rules struct {
	allowed, denied []rule
}

// ParseRules compiles allowed_domains and denied_domains entries:
// "example.com", "*.example.com", "example.com:8080", "10.0.0.5:5432",
// "[::1]:3000". An entry without a port covers 80 and 443 only.
func ParseRules(allowed, denied []string) (Rules, error) {
	var r Rules
	for _, e := range allowed {
		x, err := parseRule(e)
		if err != nil {
			return Rules{}, fmt.Errorf("allowed_domains: %w", err)
		}
		r.allowed = append(r.allowed, x)
	}
	for _, e := range denied {
		x, err := parseRule(e)
		if err != nil {
			return Rules{}, fmt.Errorf("denied_domains: %w", err)
		}
		r.denied = append(r.denied, x)
	}
	return r, nil
}

func parseRule(entry string) (rule, error) {
	s := strings.TrimSpace(entry)
	var x rule
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return rule{}, fmt.Errorf("%q: bad port", entry)
		}
		host, x.port = h, n
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		x.wildcard, host = true, rest
	}
	host = normalHost(host)
	if host == "" || strings.ContainsAny(host, "*/ ") {
		return rule{}, fmt.Errorf("%q: not a host name, *.domain or IP address", entry)
	}
	if _, err := netip.ParseAddr(host); err == nil && x.wildcard {
		return rule{}, fmt.Errorf("%q: a wildcard needs a domain", entry)
	}
	x.host = host
	return x, nil
}

// normalHost is host in lower case without a trailing dot or brackets.
func normalHost(host string) string {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().WithZone("").String()
	}
	return host
}

func (x rule) portMatches(port int) bool {
	if x.port == 0 {
		return port == 80 || port == 443
	}
	return x.port == port
}

func (x rule) matches(host string, port int) bool {
	if !x.portMatches(port) {
		return false
	}
	if x.wildcard {
		return strings.HasSuffix(host, "."+x.host)
	}
	return host == x.host
}

// exact: the entry names this very host and this very port (the only
// form that admits a local address).
func (x rule) exact(host string, port int) bool {
	return !x.wildcard && x.port == port && x.host == host
}

func anyMatch(rs []rule, host string, port int) bool {
	for _, x := range rs {
		if x.matches(host, port) {
			return true
		}
	}
	return false
}

// Denied: a denied_domains entry covers host and port.
func (r Rules) Denied(host string, port int) bool {
	return anyMatch(r.denied, normalHost(host), port)
}

// Allowed: an allowed_domains entry covers host and port (a public
// address; see AllowedLocal).
func (r Rules) Allowed(host string, port int) bool {
	return anyMatch(r.allowed, normalHost(host), port)
}

// AllowedLocal: an allowed_domains entry names exactly this host and
// port, which is what it takes to reach a local address unasked.
func (r Rules) AllowedLocal(host string, port int) bool {
	h := normalHost(host)
	for _, x := range r.allowed {
		if x.exact(h, port) {
			return true
		}
	}
	return false
}

// Patterns are the allowed_domains entries offered for host and port
// when the user allows it for good: the exact entry first, then the
// wildcards of its parent domains (never for an IP address or a local
// host, and never a bare top-level domain).
func Patterns(host string, port int, local bool) []string {
	h := normalHost(host)
	exact := h
	if strings.Contains(h, ":") {
		exact = "[" + h + "]"
	}
	if port != 80 && port != 443 || local {
		exact = net.JoinHostPort(h, strconv.Itoa(port))
	}
	out := []string{exact}
	if local {
		return out
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return out
	}
	labels := strings.Split(h, ".")
	for i := 1; i+2 <= len(labels); i++ {
		w := "*." + strings.Join(labels[i:], ".")
		if port != 80 && port != 443 {
			w += ":" + strconv.Itoa(port)
		}
		out = append(out, w)
	}
	return out
}

// shared is 100.64.0.0/10, carrier-grade NAT, which Go's IsPrivate
// leaves out.
var shared = netip.MustParsePrefix("100.64.0.0/10")
var thisNet = netip.MustParsePrefix("0.0.0.0/8")

// Local says whether a is on this machine or its local networks:
// loopback, link-local (169.254.169.254, the cloud metadata endpoint,
// included), private, shared, unspecified or multicast.
func Local(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsPrivate() ||
		a.IsUnspecified() || shared.Contains(a) || thisNet.Contains(a)
}
