package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
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

// CodeAction offers the agent on a selection (protocol section 7).
func (s *server) CodeAction(_ context.Context, p *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	if p.Range.Start == p.Range.End {
		return nil, nil
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
			Context: []contextArgument{{URI: string(p.TextDocument.URI), Range: p.Range}},
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
	return actions, nil
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
