package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// mentionSymbol is the kind of an @#Name item: a symbol of the editor's
// workspace symbols, sent as context with its file and range.
const mentionSymbol = "symbol"

// queryWorkspaceSymbols is agent/languageQuery's kind for workspace/symbol
// (tools.QueryWorkspaceSymbols).
const queryWorkspaceSymbols = "workspaceSymbols"

// mentionSymbolTimeout bounds the client's answer to the workspace symbol
// query of one completion: the user is typing.
const mentionSymbolTimeout = 2 * time.Second

// symbolAnswer is a SymbolInformation or a WorkspaceSymbol as
// agent/languageQuery answers workspaceSymbols (a WorkspaceSymbol's
// location may lack its range).
type symbolAnswer struct {
	Name          string `json:"name"`
	Kind          int    `json:"kind"`
	ContainerName string `json:"containerName"`
	Location      struct {
		URI   string      `json:"uri"`
		Range *rangeParam `json:"range"`
	} `json:"location"`
}

// symbolMentions answers an @#query: the workspace symbols the client's
// language servers find for query (agent/languageQuery workspaceSymbols),
// those in files only, at most limit. A client that cannot answer (no
// experimental.agent.language) gets none; one that fails or is slow is
// logged and gets none.
func (s *server) symbolMentions(ctx context.Context, sessionID, query string, limit int) []mentionItem {
	if !s.capabilities().AgentLanguage {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, mentionSymbolTimeout)
	defer cancel()
	raw, err := s.LanguageQuery(ctx, &agent.LanguageRequest{SessionID: sessionID, Kind: queryWorkspaceSymbols, Query: query})
	if err != nil {
		s.log.Debug("workspace symbols for a mention", "query", query, "err", err)
		return nil
	}
	var syms []symbolAnswer
	if err := json.Unmarshal(raw, &syms); err != nil {
		s.log.Debug("unreadable workspace symbols", "err", err)
		return nil
	}
	var out []mentionItem
	for _, sym := range syms {
		// VS Code's TypeScript names a function "f()": the label is the
		// name, one word after @ that punctuation does not end.
		name := strings.TrimSuffix(sym.Name, "()")
		path, ok := filePath(sym.Location.URI)
		if !ok || name == "" || strings.ContainsAny(name, " \t\n()") {
			continue
		}
		out = append(out, mentionItem{
			URI:    sym.Location.URI,
			Kind:   mentionSymbol,
			Label:  "#" + name,
			Range:  sym.Location.Range,
			Detail: symbolDetail(sym.ContainerName, s.mentionLabel(path, agent.MentionFile)),
		})
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// symbolDetail is where a symbol item lives: "container · file".
func symbolDetail(container, file string) string {
	if container == "" {
		return file
	}
	return container + " · " + file
}
