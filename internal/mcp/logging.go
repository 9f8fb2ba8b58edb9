package mcp

//lint:file-ignore SA1019 roots and logging are deprecated from MCP 2026-07-28 on; agent-ls speaks 2025-11-25, where they are current.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// A server's log messages (notifications/message) go to agent-ls's log,
// within the server's floodLog bound, and never to the model. When the
// server advertises logging, the client asks it with logging/setLevel
// for the messages of the server's configured level (log_level) and
// above, warning by default; a message below that level that comes all
// the same is left out.

// logLevels are MCP's log levels, least severe first.
var logLevels = []sdk.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// DefaultLogLevel is the level asked of a server whose config names none.
const DefaultLogLevel = "warning"

// Bounds on one logged message.
const (
	maxLogData    = 4 << 10 // bytes of its data
	maxFieldBytes = 200     // bytes of its level or logger name
	setLevelTime  = 5 * time.Second
)

const slogDebug = slog.LevelDebug

// checkLogLevel says what is wrong with a configured log level.
func checkLogLevel(level string) error {
	if level == "" || slices.Contains(logLevels, sdk.LoggingLevel(level)) {
		return nil
	}
	names := make([]string, len(logLevels))
	for i, l := range logLevels {
		names[i] = string(l)
	}
	return fmt.Errorf("log_level %q is not an MCP log level (use one of %s)", level, strings.Join(names, ", "))
}

// logLevel is the level asked of the server.
func (c *ServerConfig) logLevel() sdk.LoggingLevel {
	if c.LogLevel == "" {
		return DefaultLogLevel
	}
	return sdk.LoggingLevel(c.LogLevel)
}

// severity is level's place in logLevels; an unknown level counts as
// info.
func severity(level sdk.LoggingLevel) int {
	if i := slices.Index(logLevels, level); i >= 0 {
		return i
	}
	return 1
}

// slogLevel is the level agent-ls logs a message of level at.
func slogLevel(level sdk.LoggingLevel) slog.Level {
	switch s := severity(level); {
	case s == 0:
		return slog.LevelDebug
	case s <= 2:
		return slog.LevelInfo
	case s == 3:
		return slog.LevelWarn
	}
	return slog.LevelError
}

// logMessage logs a server's notifications/message of at least least's
// severity, its data as one line of at most maxLogData bytes.
func logMessage(serverLog *floodLog, least sdk.LoggingLevel, p *sdk.LoggingMessageParams) {
	if least != "" && severity(p.Level) < severity(least) {
		return
	}
	var data string
	switch d := p.Data.(type) {
	case string:
		data = d
	default:
		b, err := json.Marshal(d)
		if err != nil {
			return
		}
		data = string(b)
	}
	args := []any{"mcp_level", cutField(string(p.Level)), "data", textcut.VisibleLine(textcut.Cut(data, maxLogData))}
	if p.Logger != "" {
		args = append(args, "logger", cutField(p.Logger))
	}
	serverLog.logf(slogLevel(p.Level), "MCP server log message", args...)
}

// cutField is a short field of a server's for the log, on one line.
func cutField(s string) string { return textcut.VisibleLine(textcut.Cut(s, maxFieldBytes)) }

// setLogLevel asks the server for the messages of h's level and above,
// if it advertised logging; a refusal is logged, not a failure.
func (h clientHooks) setLogLevel(ctx context.Context, c *client) {
	if h.logLevel == "" || c.capabilities().Logging == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, setLevelTime)
	defer cancel()
	if err := c.cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: h.logLevel}); err != nil {
		c.serverLog.logf(slog.LevelWarn, "MCP server: logging/setLevel failed", "level", string(h.logLevel), "err", err)
	}
}
