package sandbox

import "net"

// ProxyServer is agent-ls's network proxy as one command sees it (the
// network setting "ask"): the sandbox makes a listening socket on
// 127.0.0.1 of the session's loopback network for each command, hands
// it to ServeProxy, points the command's proxy variables at it
// ([ProxyEnv]) and calls stop when the command is over. The proxy then
// decides, host by host, what the command reaches; nothing else of the
// network is reachable.
type ProxyServer interface {
	// ServeProxy serves ln until stop is called; stop closes ln and the
	// connections through it, and returns once they are done.
	ServeProxy(ln net.Listener) (stop func())
}

// proxyVars are the variables that point programs at a proxy: curl,
// wget, git, pip, npm, Go, cargo and Python's urllib read one form or
// the other.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}

// ProxyEnv is env with every proxy variable pointing at proxyURL and
// NO_PROXY (both forms) empty, so that every HTTP request of the command
// goes through the proxy; what env said of proxies before is dropped.
func ProxyEnv(env []string, proxyURL string) []string {
	out := make([]string, 0, len(env)+len(proxyVars)+2)
	for _, kv := range env {
		k, _, _ := cutEnv(kv)
		switch k {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy":
			continue
		}
		out = append(out, kv)
	}
	for _, k := range proxyVars {
		out = append(out, k+"="+proxyURL)
	}
	return append(out, "NO_PROXY=", "no_proxy=")
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
