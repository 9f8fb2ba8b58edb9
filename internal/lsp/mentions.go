package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// methodCompleteMention completes what the user typed after @ in a
// client's prompt input (protocol section 2).
const methodCompleteMention = "agent/completeMention"

// mentionDiagnostics is the kind of the @diagnostics item: the client
// sends the diagnostics it has (of the open files) as context.
const mentionDiagnostics = "diagnostics"

type completeMentionParams struct {
	SessionID string `json:"sessionId"`
	Query     string `json:"query"`
	Limit     int    `json:"limit"`
}

type mentionItem struct {
	URI  string `json:"uri,omitempty"`
	Kind string `json:"kind"`
	// Label is what the item inserts after @: a path relative to its
	// workspace folder, "diagnostics", or # and a symbol's name.
	Label string `json:"label"`
	// Range is a symbol's place in URI (in the client's encoding).
	Range *rangeParam `json:"range,omitempty"`
	// Detail is what a symbol is in and the file it is in.
	Detail string `json:"detail,omitempty"`
}

type completeMentionResult struct {
	Items []mentionItem `json:"items"`
	// Incomplete: a folder's first listing was still going on, and the
	// items come from part of it; the client asks again.
	Incomplete bool `json:"incomplete,omitempty"`
}

// completeMention answers agent/completeMention: the files and folders of
// the session's workspace that match the query (agent.CompleteMention),
// after "@diagnostics" when the query starts it; a query that starts
// with # asks for the editor's workspace symbols (symbolMentions).
func (s *server) completeMention(ctx context.Context, params []byte) (any, error) {
	var p completeMentionParams
	if err := decodeParams(methodCompleteMention, params, &p); err != nil {
		return nil, err
	}
	if p.Limit < 0 || p.Limit > 1000 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: limit must be between 0 and 1000", methodCompleteMention)
	}
	if name, ok := strings.CutPrefix(p.Query, "#"); ok {
		items := s.symbolMentions(ctx, p.SessionID, name, p.Limit)
		if items == nil {
			items = []mentionItem{}
		}
		return completeMentionResult{Items: items}, nil
	}
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	found, complete, err := a.CompleteMention(ctx, p.SessionID, p.Query, p.Limit)
	if err != nil {
		return nil, agentError(err)
	}
	res := completeMentionResult{Items: []mentionItem{}, Incomplete: !complete}
	if q := strings.ToLower(p.Query); q != "" && strings.HasPrefix(mentionDiagnostics, q) {
		res.Items = append(res.Items, mentionItem{Kind: mentionDiagnostics, Label: mentionDiagnostics})
	}
	for _, m := range found {
		res.Items = append(res.Items, mentionItem{URI: string(uri.File(m.Path)), Kind: m.Kind, Label: s.mentionLabel(m.Path, m.Kind)})
	}
	if p.Limit > 0 && len(res.Items) > p.Limit {
		res.Items = res.Items[:p.Limit]
	}
	return res, nil
}

// mentionLabel is path relative to the workspace folder that holds it
// (folders end in /).
func (s *server) mentionLabel(path, kind string) string {
	s.mu.Lock()
	folders := s.folders
	s.mu.Unlock()
	label := path
	for _, f := range folders {
		if rel, ok := strings.CutPrefix(path, strings.TrimSuffix(f, "/")+"/"); ok {
			label = rel
			break
		}
	}
	if kind == "folder" {
		label += "/"
	}
	return label
}

// filesChanged hands the files the editor reports created, changed,
// deleted or renamed (workspace/didChangeWatchedFiles, didCreateFiles,
// didDeleteFiles, didRenameFiles) to the agent, which keeps its mention
// lists current with them.
func (s *server) filesChanged(method string, params []byte) {
	var p struct {
		Changes []struct {
			URI string `json:"uri"`
		} `json:"changes"`
		Files []struct {
			URI    string `json:"uri"`
			OldURI string `json:"oldUri"`
			NewURI string `json:"newUri"`
		} `json:"files"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.log.Debug("unreadable file changes", "method", method, "err", err)
		return
	}
	var paths []string
	add := func(u string) {
		if u == "" {
			return
		}
		if path, ok := filePath(u); ok {
			paths = append(paths, path)
		}
	}
	for _, c := range p.Changes {
		add(c.URI)
	}
	for _, f := range p.Files {
		add(f.URI)
		add(f.OldURI)
		add(f.NewURI)
	}
	s.mu.Lock()
	a := s.agent
	s.mu.Unlock()
	if a != nil && len(paths) > 0 {
		a.FilesChanged(paths...)
	}
}

// fileChangeMethods are the notifications filesChanged takes.
var fileChangeMethods = map[string]bool{
	protocol.MethodWorkspaceDidChangeWatchedFiles: true,
	"workspace/didCreateFiles":                    true,
	"workspace/didDeleteFiles":                    true,
	"workspace/didRenameFiles":                    true,
}

// diagnosticParam is an LSP Diagnostic as a context item carries it (a
// message that is MarkupContent is not taken).
type diagnosticParam struct {
	Range    rangeParam `json:"range"`
	Severity int        `json:"severity"`
	Message  string     `json:"message"`
	Source   string     `json:"source"`
}

// diagnosticLines are a context item's diagnostics as the prompt lists
// them, bounded as a code action's are.
func diagnosticLines(diags []diagnosticParam) []string {
	if len(diags) > maxDiagnostics {
		diags = diags[:maxDiagnostics]
	}
	var out []string
	for _, d := range diags {
		line := fmt.Sprintf("line %d", d.Range.Start.Line+1)
		if sev := severityName(protocol.DiagnosticSeverity(d.Severity)); sev != "" {
			line += " " + sev
		}
		line += ": " + textcut.Cut(d.Message, maxDiagnostic)
		if d.Source != "" {
			line += " (" + d.Source + ")"
		}
		out = append(out, line)
	}
	return out
}

// maxFolderEntries bounds the listing of a mentioned folder.
const maxFolderEntries = 200

// folderContext is the context item of a mentioned folder: its entries,
// one a line (folders ending in /), at most maxFolderEntries and max
// bytes; ok is false when path is not a folder.
func folderContext(path string, max int) (agent.ContextItem, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return agent.ContextItem{}, false
	}
	entries, err := os.ReadDir(path)
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "(the folder cannot be read: %v)\n", err)
	}
	for i, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		if i == maxFolderEntries || b.Len()+len(name)+1 > max {
			fmt.Fprintf(&b, "[%d more entries; list the folder for them]\n", len(entries)-i)
			break
		}
		b.WriteString(name + "\n")
	}
	return agent.ContextItem{Path: path, Text: b.String()}, true
}
