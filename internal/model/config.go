package model

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Wire APIs a Client can speak.
const (
	// WireResponses is the OpenAI Responses API (POST /responses).
	WireResponses = "responses"
	// WireChat is Chat Completions (POST /chat/completions), for local
	// OpenAI-compatible servers such as Ollama, llama.cpp and vLLM.
	WireChat = "chat"
)

// Defaults of Config.
const (
	DefaultBaseURL           = "https://api.openai.com/v1"
	DefaultRequestMaxRetries = 4
	DefaultStreamMaxRetries  = 5
	// MaxRetriesCap bounds RequestMaxRetries and StreamMaxRetries: a
	// larger value is taken as this one.
	MaxRetriesCap         = 100
	DefaultIdleTimeout    = 300 * time.Second
	DefaultRetryBaseDelay = 200 * time.Millisecond
	DefaultRetryMaxDelay  = 10 * time.Second
)

// Environment variables read by ConfigFromEnv.
const (
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvBaseURL = "OPENAI_BASE_URL"
	EnvWireAPI = "AGENT_LS_WIRE_API"
)

// ErrMissingAPIKey is returned at once, without any network traffic, by a
// request to OpenAI's own endpoint when no API key is configured.
var ErrMissingAPIKey = errors.New("no OpenAI API key: set " + EnvAPIKey +
	", or set " + EnvBaseURL + " to a local OpenAI-compatible server (Ollama, llama.cpp, vLLM) that needs none")

// Config configures a Client: one model provider (an entry of the config
// file's [model_providers] or a built-in one).
//
// In the retry counts and IdleTimeout, zero means the default and a
// negative value means none (no retries, no idle timeout).
type Config struct {
	// Provider is the provider's id ("openai", "ollama", "azure", ...),
	// named in the errors a user has to act on; empty for none.
	Provider string
	// WireAPI is WireResponses (the default when empty) or WireChat.
	WireAPI string
	// BaseURL is the API root including the version, e.g.
	// "http://127.0.0.1:11434/v1"; empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// EnvKey is the environment variable that holds the provider's API
	// key (e.g. AZURE_OPENAI_API_KEY). A provider that names one needs a
	// key: when APIKey is empty New reads the variable, and if it is
	// unset or empty every request fails at once, without network
	// traffic, with an error naming the variable and the provider.
	// Without EnvKey a key is required only by OpenAI's own endpoint
	// (ErrMissingAPIKey).
	EnvKey string
	// QueryParams are added to every request URL (e.g. Azure's
	// api-version).
	QueryParams map[string]string
	// Headers are extra HTTP headers sent with every request.
	Headers map[string]string
	// EnvHTTPHeaders maps a header name to the environment variable that
	// holds its value. New reads the variables once; a header whose
	// variable is unset or empty is not sent.
	EnvHTTPHeaders map[string]string
	// RequestMaxRetries bounds the retries of a request that failed
	// before its stream started: connection errors, retryable HTTP
	// statuses (408, 409, 429, 5xx), no response headers within
	// IdleTimeout. Zero means DefaultRequestMaxRetries; at most
	// MaxRetriesCap.
	RequestMaxRetries int
	// StreamMaxRetries bounds the reconnects after a stream had started
	// and then broke, ended early, went silent for IdleTimeout or
	// reported a server-side failure. Each reconnect is a new request
	// with its own RequestMaxRetries. Zero means DefaultStreamMaxRetries;
	// at most MaxRetriesCap.
	StreamMaxRetries int
	// IdleTimeout is how long a stream may stay silent (no response
	// headers, no event) before the attempt is abandoned and retried;
	// zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// RetryBaseDelay and RetryMaxDelay shape the exponential backoff
	// between attempts (a server's Retry-After takes precedence); zero or
	// negative means DefaultRetryBaseDelay and DefaultRetryMaxDelay.
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
	// HTTPClient carries the requests; nil means a client with no overall
	// timeout (the idle timeout and the caller's context bound requests).
	HTTPClient *http.Client
	// UserAgent names the client in each request ("agent-ls/1.2.3"); ""
	// means "agent-ls" with the module's version when the build knows
	// it. A User-Agent among Headers wins over both.
	UserAgent string
}

// ConfigFromEnv returns the Config described by the environment:
//
//	OPENAI_API_KEY     the API key (Config.APIKey)
//	OPENAI_BASE_URL    the API root (Config.BaseURL), e.g. http://127.0.0.1:11434/v1
//	AGENT_LS_WIRE_API  "responses" (default) or "chat" (Config.WireAPI)
//
// Unset variables leave the defaults.
func ConfigFromEnv() Config {
	return Config{
		APIKey:  strings.TrimSpace(os.Getenv(EnvAPIKey)),
		BaseURL: strings.TrimSpace(os.Getenv(EnvBaseURL)),
		WireAPI: strings.ToLower(strings.TrimSpace(os.Getenv(EnvWireAPI))),
	}
}

// withDefaults fills the zero fields of c and checks it.
func (c Config) withDefaults() (Config, error) {
	switch c.WireAPI {
	case "":
		c.WireAPI = WireResponses
	case WireResponses, WireChat:
	default:
		return c, fmt.Errorf("model: unknown wire API %q (want %q or %q)", c.WireAPI, WireResponses, WireChat)
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return c, fmt.Errorf("model: bad base URL %q: %w", c.BaseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return c, fmt.Errorf("model: bad base URL %q: want http(s)://host[:port]/path", c.BaseURL)
	}
	c.RequestMaxRetries = retries(c.RequestMaxRetries, DefaultRequestMaxRetries)
	c.StreamMaxRetries = retries(c.StreamMaxRetries, DefaultStreamMaxRetries)
	switch {
	case c.IdleTimeout == 0:
		c.IdleTimeout = DefaultIdleTimeout
	case c.IdleTimeout < 0:
		c.IdleTimeout = 0 // none
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if c.RetryMaxDelay <= 0 {
		c.RetryMaxDelay = DefaultRetryMaxDelay
	}
	if c.RetryMaxDelay < c.RetryBaseDelay {
		c.RetryMaxDelay = c.RetryBaseDelay
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Transport: modelTransport()}
	}
	return c, nil
}

// modelTransport carries the requests of the clients given no HTTP
// client: the default transport's settings (the proxy from the
// environment, HTTP/2, its timeouts), with a write buffer that takes a
// typical request body in one write, where the default 4 KiB cut the
// first request of a session (30–40 KiB of instructions and tools) into
// ten writes and a long conversation into hundreds; it dials through a
// preDialer (Preconnect).
var modelTransport = sync.OnceValue(func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.WriteBufferSize = 64 << 10
	return newPreTransport(t)
})

// retries is a retry count with the rules of Config: zero means def,
// negative none, at most MaxRetriesCap.
func retries(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return min(n, MaxRetriesCap)
}

// isOpenAI reports whether baseURL is OpenAI's own endpoint, which needs an
// API key.
func isOpenAI(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return host == "api.openai.com" || strings.HasSuffix(host, ".api.openai.com")
}
