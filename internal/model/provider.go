package model

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// missingKey returns the error for a request that needs an API key cfg
// does not have, or nil.
func missingKey(cfg *Config) error {
	switch {
	case cfg.APIKey != "":
		return nil
	case cfg.EnvKey != "":
		return &missingKeyError{provider: cfg.Provider, envKey: cfg.EnvKey}
	case isOpenAI(cfg.BaseURL):
		return ErrMissingAPIKey
	}
	return nil
}

// missingKeyError says which variable should hold a provider's key. It is
// an ErrMissingAPIKey for errors.Is.
type missingKeyError struct{ provider, envKey string }

func (e *missingKeyError) Error() string {
	return fmt.Sprintf("%sthe environment variable %s is not set (it holds the provider's API key)", providerPrefix(e.provider), e.envKey)
}

func (e *missingKeyError) Is(target error) bool { return target == ErrMissingAPIKey }

// connectError is a request that never reached the provider: it says which
// provider and URL, and why in a few words; the cause stays wrapped.
type connectError struct {
	provider, url string
	err           error
}

func (e *connectError) Error() string {
	return fmt.Sprintf("%scannot connect to %s: %s", providerPrefix(e.provider), e.url, connectReason(e.err))
}

func (e *connectError) Unwrap() error { return e.err }

// connectReason is the innermost cause of a connection failure ("connection
// refused", "no such host", ...), without the request and dial context
// the outer errors repeat.
func connectReason(err error) string {
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		return sys.Err.Error()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.Error()
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err.Error()
	}
	return err.Error()
}

func providerPrefix(provider string) string {
	if provider == "" {
		return ""
	}
	return fmt.Sprintf("provider %q: ", provider)
}

// KeyVariable names the environment variable a user must set before cfg
// can reach its server, or "" when cfg has the key it needs (or needs
// none). Front ends that must say so before the first request (ACP's
// authentication) ask it.
func KeyVariable(cfg Config) string {
	var mk *missingKeyError
	switch err := missingKey(&cfg); {
	case err == nil:
		return ""
	case errors.As(err, &mk):
		return mk.envKey
	}
	return EnvAPIKey
}
