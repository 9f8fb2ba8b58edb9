package mcp

//lint:file-ignore SA1019 roots and logging are deprecated from MCP 2026-07-28 on; agent-ls speaks 2025-11-25, where they are current.

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientHooks are what one connection's client offers its server and
// what the server's notifications reach. The handlers run on the
// connection's reading goroutine and must not block. The zero value
// answers roots/list with no root, asks for no log level (and logs every
// level) and ignores list_changed.
type clientHooks struct {
	// toolsChanged: notifications/tools/list_changed.
	toolsChanged func()
	// resourcesChanged: notifications/resources/list_changed.
	resourcesChanged func()
	// roots are the roots the client answers roots/list with (roots.go);
	// nil answers none.
	roots *rootsState
	// logLevel is asked for with logging/setLevel when the server
	// advertises logging, and the least severe of its messages logged
	// (logging.go); "" asks for nothing and logs every level.
	logLevel sdk.LoggingLevel
}

// hooks are the hooks of server s's connection cn.
func (s *server) hooks(cn *conn) clientHooks {
	return clientHooks{
		toolsChanged:     func() { s.toolsChanged(cn) },
		resourcesChanged: func() { s.resourcesChanged(cn) },
		roots:            s.set.roots,
		logLevel:         s.cfg.logLevel(),
	}
}

// handle sets the client's handlers of the server's notifications:
// progress (progress.go), log messages (logging.go), resources.
func (h clientHooks) handle(opts *sdk.ClientOptions, serverLog *floodLog, routes *progressRoutes) {
	opts.ProgressNotificationHandler = func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		if req != nil && req.Params != nil {
			routes.deliver(req.Params)
		}
	}
	opts.LoggingMessageHandler = func(_ context.Context, req *sdk.LoggingMessageRequest) {
		if req != nil && req.Params != nil {
			logMessage(serverLog, h.logLevel, req.Params)
		}
	}
	opts.ResourceListChangedHandler = func(context.Context, *sdk.ResourceListChangedRequest) {
		if h.resourcesChanged != nil {
			h.resourcesChanged()
		}
	}
	// agent-ls subscribes to no resource (the model reads one when it
	// needs it), so an update is only noted.
	opts.ResourceUpdatedHandler = func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
		if req != nil && req.Params != nil {
			serverLog.logf(slogDebug, "MCP server: resource updated", "uri", cutField(req.Params.URI))
		}
	}
}

// resourcesChanged reacts to notifications/resources/list_changed from
// cn: agent-ls keeps no listing (the resource tools ask each time), so
// only the resource tools' presence is decided again, off the reading
// goroutine.
func (s *server) resourcesChanged(cn *conn) {
	s.mu.Lock()
	current := s.conn == cn
	s.mu.Unlock()
	if current {
		s.log.Debug("MCP server: its resources changed")
		go s.set.offerResourceTools()
	}
}
