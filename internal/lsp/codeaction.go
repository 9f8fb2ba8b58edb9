package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// turnArgument is the argument of an agent.startTurn command.
type turnArgument struct {
	Prompt  string            `json:"prompt"`
	Context []contextArgument `json:"context"`
}

type contextArgument struct {
	URI   string         `json:"uri"`
	Range protocol.Range `json:"range"`
}

// CodeAction offers the agent on a selection (protocol section 7). A
// client that sends only the cursor (an empty range) gets the actions for
// the block around it (see cursorBlock). The conversation actions come
// after the selection's: Stop while a turn runs, New conversation and
// Show conversation always.
func (s *server) CodeAction(_ context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	rng := p.Range
	if rng.Start == rng.End {
		rng = s.cursorBlock(string(p.TextDocument.URI), rng.Start)
	}
	diags := boundDiagnostics(p.Context.Diagnostics)
	fixKind := protocol.CodeActionKindRefactorRewrite
	fixPrompt := "Fix this code."
	if len(diags) > 0 {
		fixKind = protocol.CodeActionKindQuickFix
		fixPrompt += " The editor reports:\n" + describeDiagnostics(diags)
	}
	offers := []struct {
		title  string
		kind   protocol.CodeActionKind
		prompt string
	}{
		{"Agent: Explain this", protocol.CodeActionKindRefactorRewrite, "Explain what this code does."},
		{"Agent: Fix this", fixKind, fixPrompt},
		{"Agent: Refactor this", protocol.CodeActionKindRefactorRewrite, "Refactor this code to make it clearer and simpler without changing its behaviour."},
		{"Agent: Write tests for this", protocol.CodeActionKindRefactorRewrite, "Write tests for this code."},
	}
	var actions []protocol.CommandOrCodeAction
	for _, o := range offers {
		if !kindWanted(o.kind, p.Context.Only) {
			continue
		}
		arg, err := json.Marshal(turnArgument{
			Prompt:  o.prompt,
			Context: []contextArgument{{URI: string(p.TextDocument.URI), Range: rng}},
		})
		if err != nil {
			return nil, err
		}
		kind := o.kind
		action := &protocol.CodeAction{
			Title: o.title,
			Kind:  &kind,
			Command: protocol.Command{
				Title:     o.title,
				Command:   commandStartTurn,
				Arguments: []protocol.LSPAny{arg},
			},
		}
		if kind == protocol.CodeActionKindQuickFix {
			action.Diagnostics = diags
		}
		actions = append(actions, action)
	}
	// The conversation actions have no kind: a client that asks for some
	// kinds only is after something else.
	if len(p.Context.Only) > 0 {
		return actions, nil
	}
	if len(s.convs.Running()) > 0 {
		actions = append(actions, commandAction("Agent: Stop", commandInterrupt))
	}
	if len(s.terms.sessions()) > 0 {
		actions = append(actions, commandAction("Agent: Stop terminals", commandStopTerminals))
	}
	if n := s.pausedQueue(); n > 0 {
		actions = append(actions, commandAction(fmt.Sprintf("Agent: Resume queue (%d waiting)", n), commandResumeQueue))
	}
	if len(s.convs.Running()) == 0 && s.canRewind() {
		actions = append(actions, commandAction("Agent: Rewind last turn", commandRewind))
	}
	actions = append(actions,
		commandAction("Agent: New conversation", commandNewSession),
		commandAction("Agent: Show conversation", commandShowConversation))
	return actions, nil
}

// commandAction is a code action that runs a command with no arguments.
func commandAction(title, command string) *protocol.CodeAction {
	return &protocol.CodeAction{Title: title, Command: protocol.Command{Title: title, Command: command}}
}

// cursorBlock is what an action at the cursor acts on: the cursor's line
// and, when the lines below it are indented deeper (a function's or a
// block's body), those lines and the line that closes them at the cursor
// line's depth. Without the document it is the cursor's line. The
// document is read in place, through the store's line index.
func (s *server) cursorBlock(docURI string, at protocol.Position) protocol.Range {
	line := int(at.Line)
	rng := protocol.Range{
		Start: protocol.Position{Line: uint32(line)},
		End:   protocol.Position{Line: uint32(line + 1)},
	}
	s.store.View(docKey(docURI), func(v workspace.TextView) {
		if line >= v.LineCount() {
			return
		}
		last := blockEnd(v, line)
		rng.Start = toProtocolPosition(v.Position(v.LineStart(line)))
		rng.End = toProtocolPosition(v.Position(v.LineStart(last + 1)))
	})
	return rng
}

// blockEnd is the last line of the block that starts at line (see
// cursorBlock).
func blockEnd(v workspace.TextView, line int) int {
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	blank := func(l string) bool { return strings.TrimSpace(l) == "" }
	n := v.LineCount()
	last := line
	depth := indent(v.Line(line))
	next := line + 1
	for next < n && blank(v.Line(next)) {
		next++
	}
	if next < n && indent(v.Line(next)) > depth {
		for next < n && (blank(v.Line(next)) || indent(v.Line(next)) > depth) {
			if !blank(v.Line(next)) {
				last = next
			}
			next++
		}
		if next < n && indent(v.Line(next)) == depth && strings.ContainsAny(strings.TrimSpace(v.Line(next))[:1], "})]") {
			last = next
		}
	}
	return last
}

// kindWanted applies the client's "only" filter: a kind matches a wanted
// kind equal to it or to one of its prefixes ("refactor" wants
// "refactor.rewrite").
func kindWanted(kind protocol.CodeActionKind, only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, w := range only {
		if kind == w || strings.HasPrefix(string(kind), string(w)+".") {
			return true
		}
	}
	return false
}

// describeDiagnostics lists diagnostics one per line, for the prompt.
func describeDiagnostics(diags []protocol.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "- line %d", d.Range.Start.Line+1)
		if sev := severityName(d.Severity); sev != "" {
			fmt.Fprintf(&b, " %s", sev)
		}
		b.WriteString(": ")
		switch m := d.Message.(type) {
		case protocol.String:
			b.WriteString(string(m))
		case *protocol.MarkupContent:
			b.WriteString(m.Value)
		}
		if src, ok := d.Source.Get(); ok && src != "" {
			fmt.Fprintf(&b, " (%s)", src)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return ""
}
