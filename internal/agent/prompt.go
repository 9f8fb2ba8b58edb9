package agent

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"github.com/agent-ls/agent-ls/internal/policy"

	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-ls/agent-ls/internal/model"
)

//go:embed instructions.md
var baseInstructions string

// agentsDocHeader starts the message that carries the AGENTS.md chain.
const agentsDocHeader = "# AGENTS.md instructions for "

// contextItems are the messages that open a session's history: the
// AGENTS.md chain and the environment context. They are built once (and
// again when a compaction starts the history anew), so the start of every
// request is the same and the provider's prompt cache hits.
func (s *session) contextItems() []model.Item {
	opts := s.mgr.opts
	var items []model.Item
	// Each workspace folder has its AGENTS.md chain, within a budget of
	// its own.
	for _, dir := range append([]string{s.info.Cwd}, s.boundary.Folders()...) {
		if docs := projectDocs(opts.Files, dir, opts.ProjectDocMaxBytes); docs != "" {
			items = append(items, model.Item{Type: model.ItemMessage, Role: model.RoleUser,
				Text: fmt.Sprintf(agentsDocHeader+"%s\n\n<INSTRUCTIONS>\n%s\n</INSTRUCTIONS>", dir, docs)})
		}
	}
	items = append(items, model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: s.environmentContext()})
	return items
}

func (s *session) environmentContext() string {
	opts := s.mgr.opts
	network := "restricted"
	if s.info.SandboxMode == policy.DangerFullAccess || s.cfg.NetworkAccess {
		network = "enabled"
	}
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
	}
	var b strings.Builder
	b.WriteString("<environment_context>\n")
	fmt.Fprintf(&b, "  <cwd>%s</cwd>\n", s.info.Cwd)
	b.WriteString(s.foldersContext())
	fmt.Fprintf(&b, "  <shell>%s</shell>\n", filepath.Base(shell))
	fmt.Fprintf(&b, "  <current_date>%s</current_date>\n", opts.Now().Format("2006-01-02"))
	fmt.Fprintf(&b, "  <model>%s</model>\n", s.info.Model)
	if s.info.Provider != "" {
		fmt.Fprintf(&b, "  <model_provider>%s</model_provider>\n", s.info.Provider)
	}
	fmt.Fprintf(&b, "  <approval_policy>%s</approval_policy>\n", s.info.ApprovalPolicy)
	fmt.Fprintf(&b, "  <sandbox_mode>%s</sandbox_mode>\n", s.info.SandboxMode)
	fmt.Fprintf(&b, "  <network_access>%s</network_access>\n", network)
	if s.info.SandboxMode == policy.WorkspaceWrite {
		b.WriteString("  <writable_roots>\n")
		for _, r := range s.boundary.WritableRoots() {
			fmt.Fprintf(&b, "    <root>%s</root>\n", r)
		}
		b.WriteString("  </writable_roots>\n")
		fmt.Fprintf(&b, "  <protected>%s stay read-only in every writable root; changing them needs the user's approval</protected>\n", strings.Join(policy.ProtectedNames, ", "))
	}
	if s.info.SandboxMode == policy.ReadOnly && !s.cfg.AllowHomeWorkspace && homeWorkspace(s.info.Cwd) {
		b.WriteString("  <home_workspace>the workspace is the user's home folder, so commands run read-only; to change files use apply_patch (each change is approved), or ask the user to open a project folder</home_workspace>\n")
	}
	summary, unavailable := s.mgr.sandboxState()
	if unavailable != "" && s.info.SandboxMode != policy.DangerFullAccess {
		summary = noSandboxContext(unavailable, s.info.ApprovalPolicy, opts.Unattended)
	}
	if summary != "" {
		fmt.Fprintf(&b, "  <sandbox>%s</sandbox>\n", summary)
	}
	b.WriteString("</environment_context>")
	return b.String()
}

// sandboxState asks once per manager what the sandbox enforces here, and
// why it cannot confine commands ("" when it can).
func (m *Manager) sandboxState() (summary, unavailable string) {
	m.summaryOnce.Do(func() {
		if m.opts.SandboxSummary != nil {
			m.summary = m.opts.SandboxSummary()
		}
		if m.opts.SandboxUnavailable != nil {
			m.unavailable = m.opts.SandboxUnavailable()
		}
	})
	return m.summary, m.unavailable
}

// noSandboxContext tells the model, in the environment context, that no
// sandbox confines its commands and what follows for them.
func noSandboxContext(why string, ap policy.ApprovalPolicy, unattended bool) string {
	text := "No sandbox is available here: " + why + ". Commands would run unconfined, with the user's own rights, "
	if ap == policy.Never || unattended {
		return text + "so no command runs in this session: do the work with the file tools, or tell the user what to run."
	}
	return text + "so every command, even one that only reads, runs only after the user approves it."
}

// projectDocs returns the AGENTS.md chain for cwd: from the git root (the
// nearest ancestor holding .git; cwd itself when there is none) down to
// cwd, in each folder AGENTS.override.md if present and non-empty, else
// AGENTS.md. Files are joined root first with blank lines, within a budget
// of maxBytes: the file that crosses it is cut and later ones are left out.
func projectDocs(files FileReader, cwd string, maxBytes int) string {
	if maxBytes < 0 {
		return ""
	}
	var parts []string
	budget := maxBytes
	for _, dir := range chain(cwd) {
		if budget <= 0 {
			break
		}
		for _, name := range []string{"AGENTS.override.md", "AGENTS.md"} {
			data, err := files.ReadFile(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			text := strings.TrimSpace(string(data))
			if text == "" {
				continue
			}
			if len(text) > budget {
				text = textcut.Prefix(text, budget)
			}
			budget -= len(text)
			parts = append(parts, text)
			break
		}
	}
	return strings.Join(parts, "\n\n")
}

// chain lists the folders from the git root down to cwd.
func chain(cwd string) []string {
	dirs := []string{cwd}
	for dir := cwd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return []string{cwd} // no git root: cwd alone
		}
		dir = parent
		dirs = append(dirs, dir)
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

// userMessage renders the user's prompt with the editor context it came
// with: each selection with its file, lines and diagnostics.
func userMessage(in TurnInput, cwd string) model.Item {
	var b strings.Builder
	b.WriteString(in.Prompt)
	for _, c := range in.Context {
		path := c.Path
		if rel, err := filepath.Rel(cwd, c.Path); err == nil && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		b.WriteString("\n\n")
		if c.StartLine > 0 {
			fmt.Fprintf(&b, "Selected from %s, lines %d-%d:\n", path, c.StartLine, c.EndLine)
		} else {
			fmt.Fprintf(&b, "Contents of %s:\n", path)
		}
		fence := "```"
		for strings.Contains(c.Text, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "%s%s\n%s\n%s", fence, langHint(path), strings.TrimRight(c.Text, "\n"), fence)
		if len(c.Diagnostics) > 0 {
			b.WriteString("\nDiagnostics:")
			for _, d := range c.Diagnostics {
				b.WriteString("\n- " + d)
			}
		}
	}
	return model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: b.String(), Images: in.Images}
}

func langHint(path string) string {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	if ext == "" || strings.ContainsAny(ext, " `") {
		return ""
	}
	return ext
}
