package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// maxPromptErrorLen bounds a server's error told to the user.
const maxPromptErrorLen = 2000

// A prompt whose text starts with /<server>:<prompt>, <server> one of the
// servers of a PromptSource, runs that server's prompt template: the
// turn's input is the messages the server expands it to, in place of the
// slash text, whichever front end sent it. What follows the prompt's name
// are its arguments as name=value words, quoted as in a shell where a
// value has spaces; a prompt with a single required argument also takes
// the rest of the line as that argument (unless the line starts with
// `<one of its arguments>=`). An unknown prompt, an unknown argument, a
// missing required one or the server's error fails the turn with a
// message for the user before the model is asked; anything that does not
// start with /<server>: is a prompt like any other.

// Prompt is a prompt template a server offers, run as the slash command
// /<Server>:<Name>.
type Prompt struct {
	Server      string
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

// PromptMessage is one message a prompt expands to.
type PromptMessage struct {
	// Role is "user" or "assistant".
	Role string
	Text string
	// Images are data URLs.
	Images []string
}

// PromptSource offers the prompt templates of servers (MCP servers') as
// slash commands.
type PromptSource interface {
	// PromptServers are the names of the servers whose prompts are slash
	// commands, running or not.
	PromptServers() []string
	// Prompts are the prompts the servers offer now.
	Prompts() []Prompt
	// GetPrompt expands server's prompt name with args.
	GetPrompt(ctx context.Context, server, name string, args map[string]string) ([]PromptMessage, error)
}

// promptSources are the session's prompt sources: the manager's and the
// session's own tools' when they offer prompts. Called from the turn, or
// with s.mu held.
func (s *session) promptSources() []PromptSource {
	var out []PromptSource
	if p := s.mgr.opts.Prompts; p != nil {
		out = append(out, p)
	}
	if p, ok := s.tools.(PromptSource); ok && p != nil {
		out = append(out, p)
	}
	return out
}

// Prompts lists the prompts the session can run as slash commands, sorted
// by server and name; the servers are started if they were not.
func (m *Manager) Prompts(sessionID string) ([]Prompt, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	sources, own := s.promptSources(), s.tools
	s.mu.Unlock()
	if m.opts.ToolSources != nil {
		m.opts.ToolSources.Start()
	}
	if own != nil {
		own.Start()
	}
	var out []Prompt
	for _, src := range sources {
		out = append(out, src.Prompts()...)
	}
	slices.SortStableFunc(out, func(a, b Prompt) int {
		return strings.Compare(a.Server+":"+a.Name, b.Server+":"+b.Name)
	})
	return out, nil
}

// slashPrompt is a prompt text that names a server's prompt.
type slashPrompt struct {
	src          PromptSource
	server, name string
	args         string // the rest of the line
}

// parseSlashPrompt recognises a prompt text that starts with
// /<server>:, server one of the sources'.
func parseSlashPrompt(text string, sources []PromptSource) (slashPrompt, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") {
		return slashPrompt{}, false
	}
	for _, src := range sources {
		for _, server := range src.PromptServers() {
			rest, ok := strings.CutPrefix(t[1:], server+":")
			if !ok || server == "" {
				continue
			}
			name, args, _ := strings.Cut(rest, " ")
			if i := strings.IndexAny(name, "\t\n\r"); i >= 0 {
				name, args = rest[:i], rest[i+1:]
			}
			if name == "" && strings.TrimSpace(args) != "" {
				// "/github: why does …" is a question, not a prompt
				// ("/github:" alone lists its prompts).
				continue
			}
			return slashPrompt{src: src, server: server, name: name, args: strings.TrimSpace(args)}, true
		}
	}
	return slashPrompt{}, false
}

// expandPrompt is the turn's input when its prompt names a server's
// prompt: the messages it expands to, with the editor context and images
// that came with it; nil for any other prompt. Its error is for the user.
func (t *turn) expandPrompt(ctx context.Context) ([]model.Item, error) {
	s := t.s
	sp, ok := parseSlashPrompt(t.input.Prompt, s.promptSources())
	if !ok {
		return nil, nil
	}
	// The prompts are listed once the servers run.
	if src := s.mgr.opts.ToolSources; src != nil {
		src.Start()
		src.Ready(ctx)
	}
	if s.tools != nil {
		s.tools.Start()
		s.tools.Ready(ctx)
	}
	cmd := "/" + sp.server + ":" + sp.name
	p, err := findPrompt(sp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	args, err := promptArgs(p, sp.args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%s)", cmd, err, argumentsHint(p))
	}
	msgs, err := sp.src.GetPrompt(ctx, sp.server, sp.name, args)
	if err != nil {
		// What the server said reaches the user: visible and bounded.
		return nil, fmt.Errorf("%s: %s", cmd, textcut.Visible(textcut.Cut(err.Error(), maxPromptErrorLen)))
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("%s: the server's prompt has no messages", cmd)
	}
	items := promptItems(msgs)
	if len(t.input.Context) > 0 || len(t.input.Images) > 0 {
		in := TurnInput{Prompt: "What the prompt " + cmd + " came with:", Context: t.input.Context, Images: t.input.Images}
		items = append(items, userMessage(in, s.info.Cwd))
	}
	return items, nil
}

// findPrompt is the prompt sp names.
func findPrompt(sp slashPrompt) (Prompt, error) {
	var names []string
	for _, p := range sp.src.Prompts() {
		if p.Server != sp.server {
			continue
		}
		if p.Name == sp.name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return Prompt{}, fmt.Errorf("the MCP server %s offers no prompts (it may not run, or not offer any)", sp.server)
	}
	if sp.name == "" {
		return Prompt{}, fmt.Errorf("no prompt named; the prompts of %s: %s", sp.server, strings.Join(names, ", "))
	}
	return Prompt{}, fmt.Errorf("the MCP server %s has no prompt %q; its prompts: %s", sp.server, sp.name, strings.Join(names, ", "))
}

// argumentsHint names a prompt's arguments, the required ones marked.
func argumentsHint(p Prompt) string {
	if len(p.Arguments) == 0 {
		return "it takes no arguments"
	}
	required := 0
	for _, a := range p.Arguments {
		if a.Required {
			required++
		}
	}
	var parts []string
	for _, a := range p.Arguments {
		switch {
		case a.Required && required == 1:
			parts = append(parts, a.Name+"=… (required; or the rest of the line alone)")
		case a.Required:
			parts = append(parts, a.Name+"=… (required)")
		default:
			parts = append(parts, a.Name+"=…")
		}
	}
	return "its arguments: " + strings.Join(parts, " ")
}

// promptArgs reads a prompt's arguments from the rest of its line.
func promptArgs(p Prompt, line string) (map[string]string, error) {
	known := map[string]PromptArgument{}
	var required []string
	for _, a := range p.Arguments {
		known[a.Name] = a
		if a.Required {
			required = append(required, a.Name)
		}
	}
	words, werr := shellWords(line)
	args := map[string]string{}
	switch {
	case len(required) == 1 && line != "" && !startsNamed(words, known):
		// The rest of the line is the one required argument; a value
		// quoted whole loses its quotes.
		v := line
		if werr == nil && len(words) == 1 && strings.ContainsAny(line[:1], `"'`) {
			v = words[0]
		}
		args[required[0]] = v
	case werr != nil:
		return nil, werr
	default:
		for _, w := range words {
			name, value, ok := strings.Cut(w, "=")
			switch _, isArg := known[name]; {
			case !ok:
				return nil, fmt.Errorf("%q is not name=value", w)
			case !isArg:
				return nil, fmt.Errorf("unknown argument %q", name)
			}
			if _, dup := args[name]; dup {
				return nil, fmt.Errorf("argument %q given twice", name)
			}
			args[name] = value
		}
	}
	for _, r := range required {
		if args[r] == "" {
			return nil, fmt.Errorf("the required argument %q is missing", r)
		}
	}
	return args, nil
}

// startsNamed reports whether words start with name=value of a known
// argument.
func startsNamed(words []string, known map[string]PromptArgument) bool {
	if len(words) == 0 {
		return false
	}
	name, _, ok := strings.Cut(words[0], "=")
	_, isArg := known[name]
	return ok && isArg
}

// shellWords splits line into words as a shell does, without expansions:
// blanks separate words, single quotes keep everything, double quotes
// keep everything but \" and \\, a backslash outside quotes keeps the
// next character.
func shellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == '\'' || c == '"':
			end := closingQuote(line, i)
			if end < 0 {
				return nil, errors.New("a quote is not closed")
			}
			q := line[i+1 : end]
			if c == '"' {
				q = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(q)
			}
			w.WriteString(q)
			i, inWord = end, true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// closingQuote is the index of the quote that closes the one at open, or
// -1.
func closingQuote(line string, open int) int {
	q := line[open]
	for j := open + 1; j < len(line); j++ {
		switch {
		case q == '"' && line[j] == '\\' && j+1 < len(line):
			j++
		case line[j] == q:
			return j
		}
	}
	return -1
}

// promptItems are a prompt's messages as history items. The model takes
// images in the user's messages only: an assistant message's are left
// out, and the message says so.
func promptItems(msgs []PromptMessage) []model.Item {
	items := make([]model.Item, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == model.RoleAssistant {
			text := m.Text
			if n := len(m.Images); n > 0 {
				text += fmt.Sprintf("\n[%d image(s) of the prompt left out: the model takes images only in the user's messages]", n)
			}
			items = append(items, model.Item{Type: model.ItemMessage, Role: model.RoleAssistant, Text: text})
			continue
		}
		items = append(items, model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: m.Text, Images: m.Images})
	}
	return items
}
