package model

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimits are the provider's request and token limits as its
// x-ratelimit-* response headers give them (OpenAI, Azure, and the
// compatible servers that copy them). A field the provider did not send
// is -1.
type RateLimits struct {
	LimitRequests, RemainingRequests int64
	LimitTokens, RemainingTokens     int64
	// ResetRequests and ResetTokens are how long until the limits are
	// full again.
	ResetRequests, ResetTokens time.Duration
}

// rateLimits reads the x-ratelimit-* headers of h; nil when there are
// none.
func rateLimits(h http.Header) *RateLimits {
	rl := RateLimits{
		LimitRequests: headerInt(h, "x-ratelimit-limit-requests"), RemainingRequests: headerInt(h, "x-ratelimit-remaining-requests"),
		LimitTokens: headerInt(h, "x-ratelimit-limit-tokens"), RemainingTokens: headerInt(h, "x-ratelimit-remaining-tokens"),
		ResetRequests: headerDuration(h, "x-ratelimit-reset-requests"), ResetTokens: headerDuration(h, "x-ratelimit-reset-tokens"),
	}
	if rl.RemainingRequests < 0 && rl.RemainingTokens < 0 {
		return nil
	}
	return &rl
}

func headerInt(h http.Header, key string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(h.Get(key)), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// headerDuration reads a reset time: OpenAI writes Go-style durations
// ("6m0s", "20ms"); some servers write plain seconds.
func headerDuration(h http.Header, key string) time.Duration {
	v := strings.TrimSpace(h.Get(key))
	if v == "" {
		return -1
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return time.Duration(f * float64(time.Second))
	}
	return -1
}
