package netproxy

import (
	"net/netip"
	"slices"
	"testing"
)

func TestRules(t *testing.T) {
	r, err := ParseRules([]string{"*.npmjs.org", "pypi.org", "example.com:8080", "localhost:3000", "[::1]:4000", "10.1.2.3:5432"}, []string{"evil.npmjs.org"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host    string
		port    int
		allowed bool
	}{
		{"registry.npmjs.org", 443, true},
		{"a.b.npmjs.org", 80, true},
		{"npmjs.org", 443, false}, // the wildcard is for names below it
		{"registry.npmjs.org", 8443, false},
		{"REGISTRY.NPMJS.ORG.", 443, true},
		{"pypi.org", 443, true},
		{"pypi.org", 22, false},
		{"files.pypi.org", 443, false},
		{"example.com", 8080, true},
		{"example.com", 443, false},
		{"xnpmjs.org", 443, false},
	} {
		if got := r.Allowed(c.host, c.port); got != c.allowed {
			t.Errorf("Allowed(%s, %d) = %v, want %v", c.host, c.port, got, c.allowed)
		}
	}
	if !r.Denied("evil.npmjs.org", 443) || r.Denied("registry.npmjs.org", 443) {
		t.Error("denied_domains not applied as written")
	}
	for _, c := range []struct {
		host string
		port int
		want bool
	}{
		{"localhost", 3000, true},
		{"localhost", 3001, false},
		{"::1", 4000, true},
		{"[::1]", 4000, true},
		{"10.1.2.3", 5432, true},
		{"pypi.org", 443, false},           // no port in the entry: not exact
		{"registry.npmjs.org", 443, false}, // a wildcard never admits a local address
		{"example.com", 8080, true},
	} {
		if got := r.AllowedLocal(c.host, c.port); got != c.want {
			t.Errorf("AllowedLocal(%s, %d) = %v, want %v", c.host, c.port, got, c.want)
		}
	}
	for _, bad := range []string{"*", "*.10.0.0.1", "a b", "x.org:0", "x.org:99999", ""} {
		if _, err := ParseRules([]string{bad}, nil); err == nil {
			t.Errorf("ParseRules(%q) accepted", bad)
		}
	}
}

func TestPatterns(t *testing.T) {
	for _, c := range []struct {
		host  string
		port  int
		local bool
		want  []string
	}{
		{"registry.npmjs.org", 443, false, []string{"registry.npmjs.org", "*.npmjs.org"}},
		{"a.b.example.co", 8080, false, []string{"a.b.example.co:8080", "*.b.example.co:8080", "*.example.co:8080"}},
		{"localhost", 3000, true, []string{"localhost:3000"}},
		{"intranet.corp.example", 443, true, []string{"intranet.corp.example:443"}},
		{"1.2.3.4", 443, false, []string{"1.2.3.4"}},
		{"::1", 80, true, []string{"[::1]:80"}},
		// never a wildcard a top-level domain, a registry's second level
		// or a hosting service's domain: they cover unrelated owners
		{"example.com", 443, false, []string{"example.com"}},
		{"www.shop.co.uk", 443, false, []string{"www.shop.co.uk", "*.shop.co.uk"}},
		{"www.example.com.au", 443, false, []string{"www.example.com.au", "*.example.com.au"}},
		{"me.github.io", 443, false, []string{"me.github.io"}},
		{"bucket.s3.amazonaws.com", 443, false, []string{"bucket.s3.amazonaws.com"}},
		{"169.254.169.254", 80, true, []string{"169.254.169.254:80"}},
	} {
		if got := Patterns(c.host, c.port, c.local); !slices.Equal(got, c.want) {
			t.Errorf("Patterns(%s, %d, %v) = %q, want %q", c.host, c.port, c.local, got, c.want)
		}
	}
}

func TestLocal(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "127.9.9.9", "::1", "169.254.169.254", "fe80::1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "fd00::1", "0.0.0.0", "::", "100.64.0.1", "::ffff:127.0.0.1", "224.0.0.1"} {
		if !Local(netip.MustParseAddr(s)) {
			t.Errorf("Local(%s) = false", s)
		}
	}
	for _, s := range []string{"1.1.1.1", "151.101.0.1", "2606:4700::1111", "172.32.0.1"} {
		if Local(netip.MustParseAddr(s)) {
			t.Errorf("Local(%s) = true", s)
		}
	}
}
