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
		parent := strings.Join(labels[i:], ".")
		if sharedSuffix(parent) {
			break
		}
		w := "*." + parent
		if port != 80 && port != 443 {
			w += ":" + strconv.Itoa(port)
		}
		out = append(out, w)
	}
	return out
}

// hostingSuffixes are domains below which unrelated owners have their
// hosts (a hosting service's users, a cloud's buckets): a wildcard of
// one would allow them all, so none is offered.
var hostingSuffixes = map[string]bool{
	"github.io": true, "gitlab.io": true, "herokuapp.com": true, "appspot.com": true, "blogspot.com": true,
	"cloudfront.net": true, "amazonaws.com": true, "azurewebsites.net": true, "azureedge.net": true,
	"netlify.app": true, "vercel.app": true, "pages.dev": true, "workers.dev": true, "web.app": true,
	"firebaseapp.com": true, "ngrok.io": true, "ngrok-free.app": true, "fly.dev": true, "onrender.com": true,
	"glitch.me": true, "readthedocs.io": true, "trycloudflare.com": true, "duckdns.org": true,
}

// registrySecondLevels are the second-level labels below which a
// country's registry sells names (example.co.uk, example.com.au).
var registrySecondLevels = map[string]bool{
	"co": true, "com": true, "net": true, "org": true, "gov": true, "edu": true, "ac": true, "or": true,
	"ne": true, "go": true, "gob": true, "mil": true, "nic": true, "ltd": true, "plc": true, "sch": true,
	"nom": true, "info": true, "biz": true, "int": true, "gen": true, "firm": true, "ind": true, "nhs": true,
}

// sharedSuffix says whether domain (two or more labels) is one under
// which names belong to unrelated owners: a hosting service's, or a
// country registry's second level (co.uk). It is a short list, not the
// public suffix list: what it misses, the user sees in the offered
// wildcard and can leave.
func sharedSuffix(domain string) bool {
	if hostingSuffixes[domain] || strings.HasSuffix(domain, ".amazonaws.com") {
		return true
	}
	first, tld, ok := strings.Cut(domain, ".")
	return ok && len(tld) == 2 && registrySecondLevels[first]
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
