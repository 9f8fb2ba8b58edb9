package model

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
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
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultMaxRetries     = 5
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

// Config configures a Client.
type Config struct {
	// WireAPI is WireResponses (the default when empty) or WireChat.
	WireAPI string
	// BaseURL is the API root including the version, e.g.
	// "http://127.0.0.1:11434/v1"; empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token when set. It is required only for
	// OpenAI's own endpoint.
	APIKey string
	// MaxRetries bounds the retries of one request: zero means
	// DefaultMaxRetries, a negative value means none.
	MaxRetries int
	// IdleTimeout is how long a stream may stay silent (no response
	// headers, no event) before the attempt is abandoned and retried; zero
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// RetryBaseDelay and RetryMaxDelay shape the exponential backoff
	// between attempts (a server's Retry-After takes precedence); zero
	// means DefaultRetryBaseDelay and DefaultRetryMaxDelay.
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
	// HTTPClient carries the requests; nil means a client with no overall
	// timeout (the idle timeout and the caller's context bound requests).
	HTTPClient *http.Client
	// Headers are extra HTTP headers sent with every request.
	Headers map[string]string
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
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
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
		c.HTTPClient = &http.Client{}
	}
	return c, nil
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
