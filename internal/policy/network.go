package policy

import (
	"fmt"
	"slices"
)

// NetworkMode says what network a workspace-write command has: none
// ("off"), the hosts the user allows one by one through agent-ls's proxy
// ("ask"), or the host's whole network ("on"). Read-only commands have
// none and danger-full-access ones the host's, whatever the mode.
type NetworkMode string

// Network modes, from narrowest to widest.
const (
	NetworkOff NetworkMode = "off"
	NetworkAsk NetworkMode = "ask"
	NetworkOn  NetworkMode = "on"
)

// NetworkModes lists the modes from narrowest to widest.
var NetworkModes = []NetworkMode{NetworkOff, NetworkAsk, NetworkOn}

// DefaultNetworkMode is the mode of a configuration that names none.
const DefaultNetworkMode = NetworkAsk

// ParseNetworkMode returns the mode named s; "" is the default.
func ParseNetworkMode(s string) (NetworkMode, error) {
	if s == "" {
		return DefaultNetworkMode, nil
	}
	if m := NetworkMode(s); slices.Contains(NetworkModes, m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown network mode %q (use %s)", s, list(NetworkModes))
}

// NarrowerNetwork reports whether m allows at most what was allows
// (off, ask, on, from narrowest).
func NarrowerNetwork(m, was NetworkMode) bool {
	return slices.Index(NetworkModes, m) <= slices.Index(NetworkModes, was)
}

// Effective is the network a command under sandbox mode s actually has:
// off in read-only mode, on without a sandbox, m in workspace-write.
func (m NetworkMode) Effective(s SandboxMode) NetworkMode {
	switch s {
	case ReadOnly:
		return NetworkOff
	case DangerFullAccess:
		return NetworkOn
	}
	return m
}
