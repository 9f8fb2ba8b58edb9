package tools

import (
	"encoding/json"
	"fmt"
	"strings"
)

// lspLocation is an LSP Location, or a LocationLink read as one (its
// target and the range of the name there).
type lspLocation struct {
	URI   string   `json:"uri"`
	Range LSPRange `json:"range"`
}

// locationJSON holds the fields of both Location and LocationLink.
type locationJSON struct {
	URI                  string    `json:"uri"`
	Range                *LSPRange `json:"range"`
	TargetURI            string    `json:"targetUri"`
	TargetRange          *LSPRange `json:"targetRange"`
	TargetSelectionRange *LSPRange `json:"targetSelectionRange"`
}

func (l locationJSON) location() (lspLocation, bool) {
	switch {
	case l.URI != "" && l.Range != nil:
		return lspLocation{URI: l.URI, Range: *l.Range}, true
	case l.TargetURI != "" && l.TargetSelectionRange != nil:
		return lspLocation{URI: l.TargetURI, Range: *l.TargetSelectionRange}, true
	case l.TargetURI != "" && l.TargetRange != nil:
		return lspLocation{URI: l.TargetURI, Range: *l.TargetRange}, true
	}
	return lspLocation{}, false
}

// parseLocations reads a definition or references result: null, a
// Location, or an array of Locations or LocationLinks. Duplicates (the
// same place from two servers) are dropped.
func parseLocations(raw json.RawMessage) ([]lspLocation, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	var list []locationJSON
	if strings.HasPrefix(s, "{") {
		var one locationJSON
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("the editor's answer is not a Location: %w", err)
		}
		list = []locationJSON{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("the editor's answer is not a list of locations: %w", err)
	}
	var out []lspLocation
	seen := map[lspLocation]bool{}
	for _, l := range list {
		if loc, ok := l.location(); ok && !seen[loc] {
			seen[loc] = true
			out = append(out, loc)
		}
	}
	return out, nil
}

// locationsText lists locations as path:line:column and the line's text,
// at most maxLanguageResults of them.
func locationsText(p *placeText, locs []lspLocation, what string) string {
	var b strings.Builder
	for i, l := range locs {
		if i == maxLanguageResults {
			break
		}
		where, line := p.where(l.URI, l.Range.Start)
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(where)
		if line != "" {
			b.WriteString(": " + line)
		}
	}
	b.WriteString(moreLine(len(locs), min(len(locs), maxLanguageResults), what))
	return b.String()
}

// symbolKinds are the names of LSP's SymbolKind values, from 1.
var symbolKinds = []string{"file", "module", "namespace", "package", "class", "method", "property", "field",
	"constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean",
	"array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func symbolKind(k int) string {
	if k >= 1 && k <= len(symbolKinds) {
		return symbolKinds[k-1]
	}
	return "symbol"
}

// severities are the names of LSP's DiagnosticSeverity values, from 1.
var severities = []string{"error", "warning", "info", "hint"}

func severity(s int) string {
	if s >= 1 && s <= len(severities) {
		return severities[s-1]
	}
	return "problem"
}

// hoverText is the text of a Hover's contents: MarkupContent, a
// MarkedString or a list of them.
func hoverText(raw json.RawMessage) (string, error) {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
		return "", nil
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", fmt.Errorf("the editor's answer is not a Hover: %w", err)
	}
	var parts []string
	var one json.RawMessage
	var list []json.RawMessage
	if json.Unmarshal(h.Contents, &list) != nil {
		one = h.Contents
		list = []json.RawMessage{one}
	}
	for _, c := range list {
		var s string
		if json.Unmarshal(c, &s) == nil {
			parts = append(parts, s)
			continue
		}
		var m struct {
			Value    string `json:"value"`
			Language string `json:"language"`
		}
		if json.Unmarshal(c, &m) == nil && m.Value != "" {
			if m.Language != "" {
				parts = append(parts, "```"+m.Language+"\n"+m.Value+"\n```")
			} else {
				parts = append(parts, m.Value)
			}
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n\n")), nil
}
