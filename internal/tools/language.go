package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// Language answers questions about code with the editor's own language
// servers (the lsp_* tools): the agent implements it through a frontend
// whose client can (protocol: agent/languageQuery). A nil Language in Env
// means nothing can answer.
type Language interface {
	// Encoding is the position encoding the client counts characters
	// in (the one negotiated at initialize).
	Encoding() workspace.Encoding
	// Query asks the client and returns its answer, the LSP result of
	// the query's kind as JSON ("null" when there is none). It returns
	// when the client answered, ctx ended or the query timed out; the
	// error then says which, for the model.
	Query(ctx context.Context, callID string, q *LanguageQuery) (json.RawMessage, error)
}

// LanguageKind is what a LanguageQuery asks.
type LanguageKind string

// The kinds of agent/languageQuery.
const (
	QueryDefinition       LanguageKind = "definition"
	QueryReferences       LanguageKind = "references"
	QueryHover            LanguageKind = "hover"
	QueryDiagnostics      LanguageKind = "diagnostics"
	QueryWorkspaceSymbols LanguageKind = "workspaceSymbols"
	QueryDocumentSymbols  LanguageKind = "documentSymbols"
	QueryRename           LanguageKind = "rename"
)

// LanguageQuery is one question to the editor's language servers.
type LanguageQuery struct {
	Kind LanguageKind
	// Path is the absolute path of the file asked about; "" for
	// workspace symbols and for the diagnostics of every open file.
	Path string
	// Position is where in Path, in the client's encoding; nil when the
	// kind takes none.
	Position *LSPPosition
	// Query is a workspace symbol search; NewName a rename's new name.
	Query   string
	NewName string
	// IncludeDeclaration is references' option; nil leaves it to the
	// client.
	IncludeDeclaration *bool
}

// LSPPosition is an LSP Position: a 0-based line and a character offset
// counted in the client's encoding.
type LSPPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// LSPRange is an LSP Range.
type LSPRange struct {
	Start LSPPosition `json:"start"`
	End   LSPPosition `json:"end"`
}

// LanguageToolNames are the tools that need a Language: offered only
// where the client can answer them.
var LanguageToolNames = []string{"lsp_definition", "lsp_references", "lsp_hover", "lsp_diagnostics",
	"lsp_symbols", "lsp_document_symbols", "lsp_rename"}

// maxLanguageResults bounds the locations, symbols and diagnostics one
// call lists; the rest are counted as "N more".
const maxLanguageResults = 50

// errNoLanguage is every lsp_* tool's answer where nothing can answer.
var errNoLanguage = errors.New("the editor's language servers cannot be asked in this session (the client does not answer agent/languageQuery); use grep_files and read_file instead")

// positionArgs are the arguments of the tools that point at a place in a
// file: 1-based line and column as read_file shows them, the column
// counted in Unicode code points, or the first occurrence of a symbol on
// the line.
type positionArgs struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Symbol string `json:"symbol"`
}

// language is the Env's Language, or errNoLanguage.
func (env *Env) language() (Language, error) {
	if env == nil || env.Language == nil {
		return nil, errNoLanguage
	}
	return env.Language, nil
}

// locate turns a.Path, a.Line and a.Column (or a.Symbol) into the file's
// absolute path and the LSP position of that place in enc, reading the
// file as the user sees it.
func locate(env *Env, a positionArgs, enc workspace.Encoding) (string, LSPPosition, error) {
	if a.Path == "" {
		return "", LSPPosition{}, errors.New("path is required")
	}
	abs := resolve(env, a.Path)
	data, err := currentContent(env, abs)
	if err != nil {
		return "", LSPPosition{}, err
	}
	if data == nil {
		return "", LSPPosition{}, fmt.Errorf("%s does not exist", a.Path)
	}
	off, err := placeOffset(string(data), a)
	if err != nil {
		return "", LSPPosition{}, fmt.Errorf("%s: %w", a.Path, err)
	}
	p := workspace.PositionAt(string(data), off, enc)
	return abs, LSPPosition{Line: p.Line, Character: p.Character}, nil
}

// placeOffset is the byte offset in text of a's line and column (or
// symbol).
func placeOffset(text string, a positionArgs) (int, error) {
	if a.Line < 1 {
		return 0, fmt.Errorf("line %d: lines count from 1", a.Line)
	}
	start, line, ok := lineAt(text, a.Line-1)
	if !ok {
		return 0, fmt.Errorf("line %d is past the end of the file (%d lines)", a.Line, lineCount(text))
	}
	if a.Symbol != "" {
		i := identifierIndex(line, a.Symbol)
		if i < 0 {
			return 0, fmt.Errorf("line %d does not contain the identifier %q: %s", a.Line, a.Symbol, strings.TrimSpace(line))
		}
		return start + i, nil
	}
	if a.Column < 1 {
		return 0, errors.New("give column (1-based) or symbol")
	}
	n := utf8.RuneCountInString(line)
	if a.Column > n+1 {
		return 0, fmt.Errorf("column %d is past the end of line %d (%d characters)", a.Column, a.Line, n)
	}
	i, col := 0, 1
	for col < a.Column {
		_, w := utf8.DecodeRuneInString(line[i:])
		i += w
		col++
	}
	return start + i, nil
}

// lineAt returns the byte offset and text (without its line break) of the
// 0-based line n; ok is false past the last line.
func lineAt(text string, n int) (start int, line string, ok bool) {
	start = workspace.Offset(text, workspace.Position{Line: n}, workspace.UTF8)
	if n > 0 && workspace.PositionAt(text, start, workspace.UTF8).Line != n {
		return 0, "", false
	}
	end := start + strings.IndexAny(text[start:], "\r\n")
	if end < start {
		end = len(text)
	}
	return start, text[start:end], true
}

// lineCount is the number of lines of text as LSP counts them.
func lineCount(text string) int {
	return workspace.PositionAt(text, len(text), workspace.UTF8).Line + 1
}

// identifierIndex is the byte index in line of the first occurrence of
// sym that is not part of a longer identifier, or -1.
func identifierIndex(line, sym string) int {
	for from := 0; from <= len(line); {
		i := strings.Index(line[from:], sym)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(sym):])
		if !isIdentRune(before) && !isIdentRune(after) {
			return i
		}
		from = i + 1
	}
	return -1
}

func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// uriPath is the file path of a file:// URI.
func uriPath(u string) (string, bool) {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "file" {
		return "", false
	}
	p := parsed.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	return filepath.FromSlash(p), true
}

// placeText renders places in files for the model: path:line:column, 1-based
// with the column in code points as read_file counts, and the line's
// text. It reads each file once.
type placeText struct {
	env   *Env
	enc   workspace.Encoding
	texts map[string]string
}

func newPlaceText(env *Env, enc workspace.Encoding) *placeText {
	return &placeText{env: env, enc: enc, texts: map[string]string{}}
}

// text is the content of path as the user sees it ("" when unreadable).
func (p *placeText) text(path string) string {
	if t, ok := p.texts[path]; ok {
		return t
	}
	data, _ := currentContent(p.env, path)
	p.texts[path] = string(data)
	return string(data)
}

// display is path relative to the working directory when inside it.
func (p *placeText) display(path string) string {
	if rel, err := filepath.Rel(p.env.Cwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return path
}

// where is "path:line:column" of pos in the file at uri, and that
// line's text (trimmed, cut when long).
func (p *placeText) where(uri string, pos LSPPosition) (string, string) {
	path, ok := uriPath(uri)
	if !ok {
		return fmt.Sprintf("%s:%d:%d", uri, pos.Line+1, pos.Character+1), ""
	}
	text := p.text(path)
	off := workspace.Offset(text, workspace.Position{Line: pos.Line, Character: pos.Character}, p.enc)
	start, line, ok := lineAt(text, pos.Line)
	if !ok {
		return fmt.Sprintf("%s:%d:%d", p.display(path), pos.Line+1, pos.Character+1), ""
	}
	col := utf8.RuneCountInString(text[start:max(start, off)]) + 1
	return fmt.Sprintf("%s:%d:%d", p.display(path), pos.Line+1, col), shortLine(strings.TrimSpace(line))
}

// shortLine shortens a source line shown beside a result.
func shortLine(s string) string {
	const maxRunes = 200
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	r := []rune(s)
	return string(r[:maxRunes]) + "…"
}

// moreLine is the line that counts results left out, or "".
func moreLine(total, shown int, what string) string {
	if total <= shown {
		return ""
	}
	return fmt.Sprintf("\n… %d more %s", total-shown, what)
}

// positionSchema is the schema of a tool that points at a place in a
// file; extra adds properties.
func positionSchema(symbol bool, extra string) json.RawMessage {
	props := `"path": {"type": "string", "description": "The file, relative to the working directory or absolute."},
    "line": {"type": "integer", "minimum": 1, "description": "1-based line, as read_file numbers it."},
    "column": {"type": "integer", "minimum": 1, "description": "1-based column in characters (Unicode code points) of the line, on the symbol."}`
	if symbol {
		props += `,
    "symbol": {"type": "string", "description": "Instead of column: the identifier on that line (its first occurrence)."}`
	}
	required := `["path", "line", "column"]`
	if symbol {
		required = `["path", "line"]`
	}
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    ` + props + extra + `
  },
  "required": ` + required + `,
  "additionalProperties": false
}`)
}

// positionTitle is "<verb> symbol at path:line[:column]".
func positionTitle(verb string, call *Call) string {
	var a positionArgs
	_ = json.Unmarshal(call.Arguments, &a)
	if a.Symbol != "" {
		return fmt.Sprintf("%s %s at %s:%d", verb, a.Symbol, a.Path, a.Line)
	}
	return fmt.Sprintf("%s %s:%d:%d", verb, a.Path, a.Line, a.Column)
}

// positionQuery asks the editor about the place the call's arguments
// point at and returns its answer, and the placeText to show results
// with.
func positionQuery(ctx context.Context, env *Env, call *Call, kind LanguageKind, q *LanguageQuery) (json.RawMessage, *placeText, error) {
	lang, err := env.language()
	if err != nil {
		return nil, nil, err
	}
	var a positionArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return nil, nil, fmt.Errorf("invalid arguments: %w", err)
	}
	enc := lang.Encoding()
	abs, pos, err := locate(env, a, enc)
	if err != nil {
		return nil, nil, err
	}
	if q == nil {
		q = &LanguageQuery{}
	}
	q.Kind, q.Path, q.Position = kind, abs, &pos
	raw, err := lang.Query(ctx, call.CallID, q)
	if err != nil {
		return nil, nil, err
	}
	return raw, newPlaceText(env, enc), nil
}
