package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// The resource tools (list_mcp_resources, list_mcp_resource_templates,
// read_mcp_resource) are one registry source of the Set, offered while
// at least one server's handshake advertised the resources capability.
// They ask the server each time, following its pages (pages.go), so a
// server's notifications/resources/list_changed needs no answer but
// deciding the tools' presence again (hooks.go): the next listing is the
// new one.

// resourceSource is the registry source of the resource tools.
var resourceSource = tools.Source{Name: "mcp-resources"}

// Bounds on a resource listing.
const (
	maxListedResources  = 200 // entries shown of one page
	maxResourceFieldLen = 300 // bytes of one name or description
)

// offerResourceTools registers the resource tools while a server that
// runs, or may run again, offers resources, and withdraws them when none
// does or the set is closed.
func (s *Set) offerResourceTools() {
	s.resMu.Lock()
	defer s.resMu.Unlock()
	if s.ctx.Err() != nil || len(s.resourceServers()) == 0 {
		s.opts.Registry.Unregister(resourceSource.Name)
		return
	}
	src := resourceSource
	src.Supersedes = s.opts.Parent != nil
	err := s.opts.Registry.Replace(src,
		&listResourcesTool{set: s}, &listResourcesTool{set: s, templates: true}, &readResourceTool{set: s})
	if err != nil {
		s.log.Warn("MCP: the resource tools could not be registered", "err", err)
	}
}

// withdrawResourceTools removes the resource tools for good (Close).
func (s *Set) withdrawResourceTools() {
	s.resMu.Lock()
	defer s.resMu.Unlock()
	s.opts.Registry.Unregister(resourceSource.Name)
}

// resourceServers are the servers whose last handshake advertised
// resources and that are not given up, sorted by name: the set's own and
// its parent's.
func (s *Set) resourceServers() []*server {
	var out []*server
	if s.opts.Parent != nil {
		out = s.opts.Parent.resourceServers()
	}
	for _, srv := range s.servers {
		srv.mu.Lock()
		ok := srv.resources && !srv.disabled
		srv.mu.Unlock()
		if ok {
			out = append(out, srv)
		}
	}
	slices.SortFunc(out, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	return out
}

// resourceServer is the server named name, if it offers resources, or an
// error the model can act on.
func (s *Set) resourceServer(name string) (*server, error) {
	var with []string
	for _, srv := range s.resourceServers() {
		if srv.cfg.Name == name {
			return srv, nil
		}
		with = append(with, srv.cfg.Name)
	}
	offering := "no MCP server offers resources"
	if len(with) > 0 {
		offering = "the servers offering resources: " + strings.Join(with, ", ")
	}
	all := s.servers
	if s.opts.Parent != nil {
		all = append(slices.Clip(all), s.opts.Parent.servers...)
	}
	for _, srv := range all {
		if srv.cfg.Name != name {
			continue
		}
		st := srv.status()
		if st.State == StateFailed {
			return nil, fmt.Errorf("MCP server %q is not running (%s); %s", name, st.Error, offering)
		}
		return nil, fmt.Errorf("MCP server %q offers no resources (it does not advertise the resources capability); %s", name, offering)
	}
	return nil, fmt.Errorf("unknown MCP server %q; %s", name, offering)
}

// request runs fn on the server's connection within its tool timeout,
// starting the server again if it stopped. A timeout or a broken
// connection fails the server, as a failed tool call does; an error the
// server answered is returned as the server's.
func (s *server) request(ctx context.Context, what string, fn func(context.Context, *client) error) error {
	cn, err := s.client(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("MCP server %s: %w", s.cfg.Name, err)
	}
	timeout := s.cfg.toolTimeout()
	// The timeout stands still while the user answers the server's
	// question (elicit.go).
	callCtx, timer, stop := withPausableTimeout(ctx, timeout)
	defer stop()
	defer s.calls.add(callCtx, timer)()
	err = fn(callCtx, cn.cl)
	switch {
	case err == nil:
		s.succeeded()
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case cn.auth.needsLogin() != nil:
		return s.broken(cn, cn.auth.needsLogin())
	case context.Cause(callCtx) == errCallTimeout:
		return s.broken(cn, fmt.Errorf("%s timed out after %s (tool_timeout_sec)", what, timeout))
	case isTransportError(err):
		return s.broken(cn, fmt.Errorf("the connection to the server broke during %s: %w", what, err))
	}
	s.succeeded()
	return fmt.Errorf("MCP server %s: %s: %w", s.cfg.Name, what, answerError(err))
}

// broken fails the server after a request on cn went wrong, and says
// what happens next.
func (s *server) broken(cn *conn, err error) error {
	ferr := s.failed(err, cn)
	s.mu.Lock()
	disabled := s.disabled
	s.mu.Unlock()
	if disabled {
		return fmt.Errorf("MCP server %s: %w", s.cfg.Name, ferr)
	}
	return fmt.Errorf("MCP server %s: %w; the server is restarted on its next use", s.cfg.Name, err)
}

// resourceLine is one listed resource or template:
// `uri  name  mimeType  description`, every field on one line.
func resourceLine(uri, name, mime, desc string) string {
	fields := []string{uri, name, mime, desc}
	for i, f := range fields {
		f = textcut.Cut(strings.Join(strings.Fields(f), " "), maxResourceFieldLen)
		if f == "" {
			f = "-"
		}
		fields[i] = f
	}
	return strings.Join(fields, "  ")
}

// listPage lists srv's resources (or templates) from cursor on, page
// after page (collectPages), up to maxListedResources entries, as lines,
// with a last line giving the cursor to go on from if there is more.
func listPage(ctx context.Context, srv *server, templates bool, cursor string) (string, error) {
	what := "resources/list"
	if templates {
		what = "resources/templates/list"
	}
	var lines []string
	var next string
	err := srv.request(ctx, what, func(ctx context.Context, c *client) error {
		var err error
		lines, next, err = collectPages(ctx, cursor, maxListedResources, func(ctx context.Context, cursor string) ([]string, string, error) {
			return resourcePage(ctx, c, templates, cursor)
		})
		return err
	})
	if err != nil {
		return "", err
	}
	if len(lines) == 0 {
		lines = append(lines, "(none)")
	}
	if n := len(lines) - maxListedResources; n > 0 {
		lines = append(lines[:maxListedResources], fmt.Sprintf("[%d more on this page left out: agent-ls shows at most %d of one page]", n, maxListedResources))
	}
	if next != "" {
		lines = append(lines, fmt.Sprintf("[more: call again with server %q and cursor %q]", srv.cfg.Name, next))
	}
	return strings.Join(lines, "\n"), nil
}

// resourcePage asks for one page of resources (or templates), as lines.
func resourcePage(ctx context.Context, c *client, templates bool, cursor string) ([]string, string, error) {
	var lines []string
	if templates {
		res, err := c.cs.ListResourceTemplates(ctx, &sdk.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		for _, t := range res.ResourceTemplates {
			if t != nil {
				lines = append(lines, resourceLine(t.URITemplate, t.Name, t.MIMEType, t.Description))
			}
		}
		return lines, res.NextCursor, nil
	}
	res, err := c.cs.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
	if err != nil {
		return nil, "", err
	}
	for _, r := range res.Resources {
		if r != nil {
			lines = append(lines, resourceLine(r.URI, r.Name, r.MIMEType, r.Description))
		}
	}
	return lines, res.NextCursor, nil
}
