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

// A server that advertises prompts has them listed when it connects, and
// again on notifications/prompts/list_changed; the front ends offer them
// as slash commands, /<server>:<prompt>, and GetPrompt expands one into
// messages for the model. Only what can be typed as a slash command is
// kept: a prompt whose name, or one of whose arguments' names, is not a
// SlashName is left out (and logged), and so are all the prompts of a
// server whose own name is not one. Descriptions are kept visible-safe
// (textcut.VisibleLine) and short.

// Bounds on a server's prompts.
const (
	maxPrompts         = 500
	maxPromptArguments = 32
	maxSlashNameLen    = 64
	maxPromptDescLen   = 300     // bytes of one description
	maxPromptTextBytes = 1 << 20 // bytes of the text of one prompt's messages
)

// Prompt is a prompt template a server offers (prompts/list).
type Prompt struct {
	Name        string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is an argument of a Prompt.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// ServerPrompts are the prompts of one server, sorted by name.
type ServerPrompts struct {
	Server  string
	Prompts []Prompt
}

// PromptMessage is one message of an expanded prompt, as model input.
type PromptMessage struct {
	// Role is "user" or "assistant".
	Role string
	// Text is the message's text: its text content, the text of an
	// embedded resource, and a note for what the model is not given.
	Text string
	// Images are the message's images, as data URLs.
	Images []string
}

// SlashName reports whether name can be typed as part of a slash command
// (/<server>:<prompt> name=value): ASCII letters, digits, '_', '-' and
// '.', at most 64 bytes.
func SlashName(name string) bool {
	if name == "" || len(name) > maxSlashNameLen {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}

// promptState is a server's prompts; the server's mu guards it.
type promptState struct {
	list []Prompt
	// relist runs the prompts/list a list_changed asks for.
	relist relister
}

// hasPrompts reports whether the server advertised prompts.
func (c *client) hasPrompts() bool { return c.capabilities().Prompts != nil }

// listAllPrompts lists the server's prompts, page after page; a cursor
// that comes back, or more than maxPrompts prompts, is an error.
func listAllPrompts(ctx context.Context, c *client) ([]*sdk.Prompt, error) {
	list, next, err := collectPages(ctx, "", maxPrompts, func(ctx context.Context, cursor string) ([]*sdk.Prompt, string, error) {
		res, err := c.cs.ListPrompts(ctx, &sdk.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Prompts, res.NextCursor, nil
	})
	switch {
	case err != nil:
		return nil, err
	case len(list) > maxPrompts || next != "":
		return nil, fmt.Errorf("more than the %d prompts (or %d pages) agent-ls takes from one server", maxPrompts, maxPages)
	}
	return list, nil
}

// shownDescription is a description from a server as it is shown: on
// one line, visible-safe, bounded.
func shownDescription(s string) string {
	return textcut.VisibleLine(textcut.Cut(strings.Join(strings.Fields(s), " "), maxPromptDescLen))
}

// keptPrompts are the prompts of list that can be offered as slash
// commands, sorted by name; the others are logged.
func (s *server) keptPrompts(list []*sdk.Prompt) []Prompt {
	out := []Prompt{}
	seen := map[string]bool{}
	for _, p := range list {
		if p == nil {
			continue
		}
		kp, why := keptPrompt(p)
		if why == "" && seen[p.Name] {
			why = "listed twice"
		}
		if why != "" {
			s.log.Warn("MCP server: prompt left out", "prompt", textcut.VisibleLine(textcut.Cut(p.Name, 100)), "why", why)
			continue
		}
		seen[p.Name] = true
		out = append(out, kp)
	}
	slices.SortFunc(out, func(a, b Prompt) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// keptPrompt is p as offered, or why it cannot be.
func keptPrompt(p *sdk.Prompt) (Prompt, string) {
	if !SlashName(p.Name) {
		return Prompt{}, "its name is not one a slash command can have (ASCII letters, digits, _ - and ., at most 64)"
	}
	if len(p.Arguments) > maxPromptArguments {
		return Prompt{}, fmt.Sprintf("more than %d arguments", maxPromptArguments)
	}
	kp := Prompt{Name: p.Name, Description: shownDescription(cmpOr(p.Description, p.Title)), Arguments: []PromptArgument{}}
	seen := map[string]bool{}
	for _, a := range p.Arguments {
		if a == nil {
			continue
		}
		if !SlashName(a.Name) || seen[a.Name] {
			return Prompt{}, "an argument's name is not one that can be typed as name=value, or is given twice"
		}
		seen[a.Name] = true
		kp.Arguments = append(kp.Arguments, PromptArgument{Name: a.Name, Description: shownDescription(cmpOr(a.Description, a.Title)), Required: a.Required})
	}
	return kp, ""
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// listPrompts lists cn's prompts, if the server advertised any and its
// name can start a slash command, and keeps them in place of those it
// had. A listing that fails is logged and changes nothing.
func (s *server) listPrompts(ctx context.Context, cn *conn) {
	changed := func() { s.promptsChanged(cn) }
	cn.cl.onPrompts.Store(&changed)
	list := []Prompt{}
	if cn.cl.hasPrompts() && SlashName(s.cfg.Name) {
		raw, err := listAllPrompts(ctx, cn.cl)
		if err != nil {
			s.log.Warn("MCP server: listing its prompts failed", "err", err)
			return
		}
		list = s.keptPrompts(raw)
	}
	s.setPrompts(list)
}

// setPrompts makes list the server's prompts and says so when they
// changed.
func (s *server) setPrompts(list []Prompt) {
	s.mu.Lock()
	same := slices.EqualFunc(s.prompts.list, list, func(a, b Prompt) bool {
		return a.Name == b.Name && a.Description == b.Description && slices.Equal(a.Arguments, b.Arguments)
	})
	s.prompts.list = list
	s.mu.Unlock()
	if !same && s.set.opts.PromptsChanged != nil {
		s.set.opts.PromptsChanged()
	}
}

// promptsChanged reacts to notifications/prompts/list_changed from cn as
// toolsChanged does to tools/list_changed.
func (s *server) promptsChanged(cn *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.relistLocked(cn, &s.prompts.relist, s.listPrompts)
}

// Prompts returns the prompts of the servers that offer any, sorted by
// server and by name. A server keeps the prompts it listed last while it
// is restarted, and loses them when it is given up.
func (s *Set) Prompts() []ServerPrompts {
	if s.Empty() {
		return nil
	}
	var out []ServerPrompts
	for _, srv := range s.servers {
		srv.mu.Lock()
		list := slices.Clone(srv.prompts.list)
		srv.mu.Unlock()
		if len(list) > 0 {
			out = append(out, ServerPrompts{Server: srv.cfg.Name, Prompts: list})
		}
	}
	return out
}

// Names are the names of the set's servers, sorted.
func (s *Set) Names() []string {
	if s.Empty() {
		return nil
	}
	out := make([]string, 0, len(s.servers))
	for _, srv := range s.servers {
		out = append(out, srv.cfg.Name)
	}
	return out
}

// GetPrompt gets serverName's prompt name with args (prompts/get), within the
// server's tool timeout, starting the server again if it stopped, and
// returns its messages as model input.
func (s *Set) GetPrompt(ctx context.Context, serverName, name string, args map[string]string) ([]PromptMessage, error) {
	var srv *server
	for _, x := range s.servers {
		if x.cfg.Name == serverName {
			srv = x
		}
	}
	if srv == nil {
		return nil, fmt.Errorf("unknown MCP server %q", serverName)
	}
	var res *sdk.GetPromptResult
	err := srv.request(ctx, "prompts/get of "+textcut.VisibleLine(textcut.Cut(name, 100)), func(ctx context.Context, c *client) error {
		var err error
		res, err = c.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
		return err
	})
	if err != nil {
		return nil, err
	}
	return promptMessages(res), nil
}

// promptMessages turns a prompt's messages into model input: text as it
// is, the text of an embedded resource with its URI, images as images,
// links and what the model is not given as notes; the text of all the
// messages is bounded together.
func promptMessages(res *sdk.GetPromptResult) []PromptMessage {
	var out []PromptMessage
	budget := maxPromptTextBytes
	for _, m := range res.Messages {
		if m == nil || m.Content == nil {
			continue
		}
		role := "user"
		if m.Role == "assistant" {
			role = "assistant"
		}
		var o tools.Output
		text := contentText(&o, m.Content)
		text = cutText(text, max(budget, 0))
		budget -= len(text)
		out = append(out, PromptMessage{Role: role, Text: text, Images: o.Images})
	}
	return out
}

// contentText is one content block as the model reads it; images go to
// out.
func contentText(out *tools.Output, c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return image(out, c.MIMEType, c.Data)
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio (%s) left out: the model is not given audio]", c.MIMEType)
	case *sdk.ResourceLink:
		return "[resource link] " + c.URI
	case *sdk.EmbeddedResource:
		return resource(out, c.Resource)
	}
	return fmt.Sprintf("[content of type %T left out]", c)
}
