package lsp

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// methodRequestApproval is the richer approval request for clients that
// opt in (protocol section 6).
const methodRequestApproval = "agent/requestApproval"

// Titles of the showMessageRequest actions, mapped to decisions.
var approvalActions = []approvalAction{
	{"Allow once", agent.AllowOnce, ""},
	{"Allow always", agent.AllowAlways, ""},
	{"Reject", agent.RejectOnce, ""},
	{"Abort turn", agent.Abort, ""},
}

type requestApprovalParams struct {
	SessionID  string `json:"sessionId"`
	TurnID     string `json:"turnId"`
	ApprovalID string `json:"approvalId"`
	Kind       string `json:"kind"`
	// Command is the words of a command (exec), or for a network
	// question the command that connects, as one string.
	Command   any      `json:"command,omitempty"`
	Host      string   `json:"host,omitempty"`
	Port      int      `json:"port,omitempty"`
	CallID    string   `json:"callId,omitempty"`
	Patterns  []string `json:"patterns,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Diff      string   `json:"diff,omitempty"`
	Files     []string `json:"files,omitempty"`
	Tool      string   `json:"tool,omitempty"`
	Server    string   `json:"server,omitempty"`
	Arguments any      `json:"arguments,omitempty"`
	Options   []string `json:"options"`
}

type requestApprovalResult struct {
	Decision string `json:"decision"`
	// Pattern is, with allowPersist, the one of the request's patterns
	// the user chose to write ("" the first).
	Pattern string `json:"pattern,omitempty"`
}

// RequestApproval asks the user: with agent/requestApproval where the
// client opted in, else with window/showMessageRequest, which every LSP
// client has. It returns when the user answers or ctx (the turn) ends; an
// editor that never answers holds the turn only until it is interrupted.
func (s *server) RequestApproval(ctx context.Context, req *agent.ApprovalRequest) (string, error) {
	if err := s.out.drained(ctx); err != nil {
		return "", err
	}
	if s.capabilities().AgentApprovals {
		p := requestApprovalParams{
			SessionID: req.SessionID, TurnID: req.TurnID, ApprovalID: req.ApprovalID, Kind: string(req.Kind),
			Reason: req.Reason, Diff: req.Diff, Tool: req.Tool, Server: req.Server, Options: req.Options,
		}
		if len(req.Command) > 0 {
			p.Command = req.Command
		}
		if req.Kind == agent.ApprovalNetwork {
			p.Command, p.Host, p.Port, p.CallID, p.Patterns = req.NetCommand, req.Host, req.Port, req.CallID, req.Patterns
		}
		// The reason is what every client shows, so it says what an
		// "always" answer covers.
		if req.Always != "" && (slices.Contains(req.Options, agent.AllowAlways) || slices.Contains(req.Options, agent.RejectAlways)) {
			which := "\"Always\" (allow or reject)"
			if req.Kind == agent.ApprovalNetwork {
				which = "Allowing for the session"
			}
			p.Reason = strings.TrimSpace(p.Reason + "\n" + which + " covers " + req.Always + ".")
		}
		if req.Cwd != "" {
			p.Cwd = string(uri.File(req.Cwd))
		}
		for _, f := range req.Files {
			p.Files = append(p.Files, string(uri.File(f)))
		}
		if len(req.Arguments) > 0 {
			p.Arguments = protocol.LSPAny(req.Arguments)
		}
		var res requestApprovalResult
		if err := protocol.Call(ctx, s.conn, methodRequestApproval, p, &res); err != nil {
			return "", fmt.Errorf("%s: %w", methodRequestApproval, err)
		}
		if res.Decision == agent.AllowPersist && req.Kind == agent.ApprovalNetwork {
			// The agent writes it only when it is one of the patterns.
			req.Pattern = res.Pattern
		}
		return res.Decision, nil
	}
	params := &protocol.ShowMessageRequestParams{Type: protocol.MessageTypeWarning, Message: textcut.Visible(approvalMessage(req))}
	actions := approvalActions
	if req.Kind == agent.ApprovalNetwork {
		actions = networkActions(req)
	}
	for _, a := range actions {
		params.Actions = append(params.Actions, protocol.MessageActionItem{Title: a.title})
	}
	item, err := protocol.ClientDispatcher(s.conn).ShowMessageRequest(ctx, params)
	if err != nil {
		return "", fmt.Errorf("window/showMessageRequest: %w", err)
	}
	if item == nil {
		return agent.RejectOnce, nil
	}
	for _, a := range actions {
		if a.title == item.Title {
			req.Pattern = a.pattern
			return a.decision, nil
		}
	}
	return "", fmt.Errorf("window/showMessageRequest: unknown action %q", item.Title)
}

// approvalMessage says what will happen, where and why, for clients that
// show plain text. The command is quoted word by word and every other
// piece that comes from the model or the repository has its control and
// bidi characters escaped (textcut.Visible), so that the box shows what
// will run: a carriage return, an escape sequence or a bidi override in
// an argument cannot make it read as something else.
func approvalMessage(req *agent.ApprovalRequest) string {
	var b strings.Builder
	switch req.Kind {
	case agent.ApprovalNetwork:
		// The reason names the host, the port and the command.
		b.WriteString("agent-ls: a command wants the network")
		if req.Reason != "" {
			b.WriteString("\n" + textcut.Visible(req.Reason))
		}
		return b.String()
	case agent.ApprovalExec:
		fmt.Fprintf(&b, "agent-ls wants to run: %s\nin %s", agent.QuoteCommand(req.Command), textcut.VisibleLine(req.Cwd))
	case agent.ApprovalPatch:
		fmt.Fprintf(&b, "agent-ls wants to change %d file(s):", len(req.Files))
		for _, f := range req.Files {
			fmt.Fprintf(&b, "\n  %s", textcut.VisibleLine(f))
		}
		if add, del := req.Additions, req.Deletions; add+del > 0 {
			fmt.Fprintf(&b, "\n(+%d -%d lines)", add, del)
		}
		b.WriteString(diffHead(req.Diff))
	default:
		fmt.Fprintf(&b, "agent-ls wants to call %s", textcut.VisibleLine(req.Tool))
		if req.Server != "" {
			fmt.Fprintf(&b, " of the MCP server %s", textcut.VisibleLine(req.Server))
		}
		if len(req.Arguments) > 0 {
			fmt.Fprintf(&b, "\nwith %s", textcut.VisibleLine(textcut.Cut(string(req.Arguments), 300)))
		}
	}
	if req.Reason != "" {
		b.WriteString("\n" + textcut.Visible(req.Reason))
	}
	if req.Always != "" {
		b.WriteString("\n\"Allow always\" covers " + textcut.Visible(req.Always) + ".")
	}
	return b.String()
}

// Bounds of the diff shown in an approval message box.
const (
	maxApprovalDiffLines = 12
	maxApprovalLineRunes = 120
)

// diffHead is the start of a patch's diff for a message box: its hunks'
// lines (file headers are listed already), each cut to a width a box can
// show, and how many lines were left out.
func diffHead(diff string) string {
	var b strings.Builder
	shown, left := 0, 0
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "index ") {
			continue
		}
		if shown == maxApprovalDiffLines {
			left++
			continue
		}
		if r := []rune(l); len(r) > maxApprovalLineRunes {
			l = string(r[:maxApprovalLineRunes-1]) + "…"
		}
		b.WriteString("\n" + textcut.VisibleLine(l))
		shown++
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n… %d more diff lines", left)
	}
	return b.String()
}

// approvalAction is a showMessageRequest action: its title, the
// decision it stands for and, for allowPersist, the pattern it writes.
type approvalAction struct{ title, decision, pattern string }

// maxPersistActions bounds the "Always allow" actions of a network
// question: the exact entry and the nearest wildcards.
const maxPersistActions = 3

// networkActions are the showMessageRequest actions of a network
// question: once, for the session, for good (written to the user's
// config: one action per offered pattern, the exact entry first), or
// deny.
func networkActions(req *agent.ApprovalRequest) []approvalAction {
	hp := net.JoinHostPort(req.Host, strconv.Itoa(req.Port))
	acts := []approvalAction{
		{"Allow once", agent.AllowOnce, ""},
		{"Allow " + hp + " for this session", agent.AllowAlways, ""},
	}
	if slices.Contains(req.Options, agent.AllowPersist) {
		for _, p := range req.Patterns[:min(len(req.Patterns), maxPersistActions)] {
			acts = append(acts, approvalAction{"Always allow " + textcut.VisibleLine(p), agent.AllowPersist, p})
		}
	}
	return append(acts, approvalAction{"Deny", agent.RejectOnce, ""})
}
