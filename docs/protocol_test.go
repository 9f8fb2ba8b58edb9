// Package docs holds the tests that keep the documents in this directory
// true to the code: protocol.md against what the language server speaks,
// architecture.md against the packages and their imports.
package docs

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/lsp"
)

// wireName matches the names this test keeps in step: agent/* methods,
// agent.* commands and $/ notifications.
var wireName = regexp.MustCompile(`^(agent/[A-Za-z]+|agent\.[A-Za-z]+|\$/[A-Za-z]+)$`)

// notServedHeading starts the section of protocol.md that lists the parts
// of the protocol agent-ls does not serve yet.
const notServedHeading = "## 10. Not served yet"

// TestProtocolDocNamesWhatTheServerSpeaks checks docs/protocol.md against
// the source of internal/lsp in both directions: every agent/* method,
// agent.* command and $/ notification the server handles or sends is in
// the document, every one the document presents as served is in the code,
// and none it lists as not served yet is.
func TestProtocolDocNamesWhatTheServerSpeaks(t *testing.T) {
	code := serverWireNames(t)
	if len(code) < 8 {
		// The server has at least its four agent/* methods, agent/event,
		// agent/requestApproval and two commands: fewer means the scan
		// below stopped finding them.
		t.Fatalf("found only %v in internal/lsp; the source scan is broken", sortedKeys(code))
	}
	t.Logf("internal/lsp speaks %v", sortedKeys(code))
	served, notServed := docWireNames(t)
	for _, name := range sortedKeys(code) {
		if !served[name] {
			t.Errorf("internal/lsp speaks %s (%s), but docs/protocol.md does not describe it outside %q",
				name, code[name], notServedHeading)
		}
	}
	for _, name := range sortedKeys(served) {
		if code[name] == "" {
			t.Errorf("docs/protocol.md describes %s, which internal/lsp neither handles nor sends "+
				"(list it under %q if it is not served yet)", name, notServedHeading)
		}
	}
	for _, name := range sortedKeys(notServed) {
		if where := code[name]; where != "" {
			t.Errorf("docs/protocol.md lists %s as not served yet, but internal/lsp speaks it (%s)", name, where)
		}
	}
}

// TestProtocolDocNotServedAnswerMethodNotFound sends each agent/* method
// that docs/protocol.md lists as not served yet to a running server, which
// must answer MethodNotFound as the document says.
func TestProtocolDocNotServedAnswerMethodNotFound(t *testing.T) {
	_, notServed := docWireNames(t)
	var methods []string
	for _, name := range sortedKeys(notServed) {
		if strings.HasPrefix(name, "agent/") {
			methods = append(methods, name)
		}
	}
	if len(methods) == 0 {
		t.Skip("docs/protocol.md lists no agent/* method as not served")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	serverEnd, editorEnd := net.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_, _ = lsp.Serve(ctx, serverEnd, lsp.Options{})
	}()
	ed := editor.Connect(editorEnd, editor.Config{})
	t.Cleanup(func() {
		ed.Disconnect()
		cancel()
		<-served
	})
	if _, err := ed.Initialize(ctx, editor.Options{WorkspaceFolders: []string{t.TempDir()}, Events: true}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	for _, method := range methods {
		err := ed.Request(ctx, method, map[string]any{"sessionId": "s1"}, nil)
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.MethodNotFound {
			t.Errorf("%s answered %v, want MethodNotFound (docs/protocol.md lists it as not served yet)", method, err)
		}
	}
}

// TestProtocolDocNamesTheInitializationOptions checks that section 1 of
// docs/protocol.md names every key of initializationOptions and every
// experimental.agent capability the server decodes, as its struct tags
// say.
func TestProtocolDocNamesTheInitializationOptions(t *testing.T) {
	files := parseDir(t, filepath.Join(moduleRoot(t), "internal", "lsp"))
	var initKeys, agentCaps []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if st, ok := n.Type.(*ast.StructType); ok && n.Name.Name == "InitOptions" {
					initKeys = append(initKeys, jsonTags(st)...)
				}
			case *ast.Field:
				// experimental.agent is decoded into a field tagged "agent"
				// of an anonymous struct type.
				if jsonTag(n) != "agent" {
					return true
				}
				typ := n.Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if st, ok := typ.(*ast.StructType); ok {
					agentCaps = append(agentCaps, jsonTags(st)...)
				}
			}
			return true
		})
	}
	if len(initKeys) == 0 || len(agentCaps) == 0 {
		t.Fatalf("found initializationOptions keys %v and experimental.agent capabilities %v in internal/lsp; the source scan is broken", initKeys, agentCaps)
	}
	section := docSection(t, readDoc(t, "protocol.md"), "## 1. Starting up")
	for _, key := range initKeys {
		if !strings.Contains(section, "`"+key+"`") {
			t.Errorf("initializationOptions key %q is decoded by internal/lsp but not described in section 1 of docs/protocol.md", key)
		}
	}
	for _, c := range agentCaps {
		if !strings.Contains(section, "`experimental.agent."+c+"`") {
			t.Errorf("capability experimental.agent.%s is read by internal/lsp but not described in section 1 of docs/protocol.md", c)
		}
	}
}

// serverWireNames returns the wire names internal/lsp speaks, each with
// where it was found. They come from the package's own source (string
// constants such as the agent/* method names and the $/ entries of its
// notification table) and from what it uses of go.lsp.dev/protocol:
// Method* constants it names, the notifications behind the client
// dispatcher methods it calls (Progress sends $/progress), and those
// behind the protocol functions it calls (Handlers answers
// $/cancelRequest, Call sends it).
func serverWireNames(t *testing.T) map[string]string {
	t.Helper()
	proto := scanProtocolPackage(t)
	names := map[string]string{}
	add := func(name, where string) {
		if wireName.MatchString(name) && names[name] == "" {
			names[name] = where
		}
	}
	dir := filepath.Join(moduleRoot(t), "internal", "lsp")
	fset := token.NewFileSet()
	for _, f := range parseDirWith(t, fset, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			where := func() string {
				p := fset.Position(n.Pos())
				return "internal/lsp/" + filepath.Base(p.Filename) + ":" + strconv.Itoa(p.Line)
			}
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					if s, err := strconv.Unquote(n.Value); err == nil {
						add(s, where())
					}
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "protocol" {
					add(proto.constants[n.Sel.Name], where())
					for _, m := range proto.funcMethods(n.Sel.Name) {
						add(m, where()+" via protocol."+n.Sel.Name)
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					for _, m := range proto.clientMethods[sel.Sel.Name] {
						add(m, where()+" via the client dispatcher's "+sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	return names
}

// protocolPackage is what the scan needs of go.lsp.dev/protocol's source.
type protocolPackage struct {
	// constants are its string constants by name (MethodProgress →
	// "$/progress").
	constants map[string]string
	// clientMethods are the wire methods each method of its client
	// dispatcher sends.
	clientMethods map[string][]string
	// funcs are its package-level functions.
	funcs map[string]*ast.FuncDecl
}

func scanProtocolPackage(t *testing.T) *protocolPackage {
	t.Helper()
	dir := goOutput(t, "list", "-m", "-f", "{{.Dir}}", "go.lsp.dev/protocol")
	p := &protocolPackage{constants: map[string]string{}, clientMethods: map[string][]string{}, funcs: map[string]*ast.FuncDecl{}}
	files := parseDir(t, strings.TrimSpace(dir))
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok != token.CONST {
					continue
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								p.constants[name.Name], _ = strconv.Unquote(lit.Value)
							}
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.funcs[d.Name.Name] = d
				}
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Body == nil || receiverType(fd) != "client" {
				continue
			}
			p.clientMethods[fd.Name.Name] = p.methodsIn(fd.Body)
		}
	}
	if p.constants["MethodProgress"] != "$/progress" || len(p.clientMethods["Progress"]) == 0 {
		t.Fatalf("go.lsp.dev/protocol in %s no longer looks as this scan expects (MethodProgress %q, client.Progress sends %v)",
			dir, p.constants["MethodProgress"], p.clientMethods["Progress"])
	}
	return p
}

// methodsIn returns the wire methods named by the constants a function
// body refers to.
func (p *protocolPackage) methodsIn(body ast.Node) []string {
	var out []string
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, "Method") {
			if v, ok := p.constants[id.Name]; ok && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return true
	})
	return out
}

// funcMethods returns the wire methods a package-level function of
// protocol uses, following its calls to other such functions.
// ServerHandler is left out: it could dispatch every LSP method, but the
// server hands it only those of its own lspMethods table, whose entries
// the source scan reads directly.
func (p *protocolPackage) funcMethods(name string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(string)
	walk = func(name string) {
		fd := p.funcs[name]
		if fd == nil || fd.Body == nil || seen[name] || name == "ServerHandler" {
			return
		}
		seen[name] = true
		for _, m := range p.methodsIn(fd.Body) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok {
					walk(id.Name)
				}
			}
			return true
		})
	}
	walk(name)
	return out
}

func receiverType(fd *ast.FuncDecl) string {
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// docWireNames returns the wire names in docs/protocol.md: those it
// presents as served, and those of its not-served section.
func docWireNames(t *testing.T) (served, notServed map[string]bool) {
	t.Helper()
	doc := readDoc(t, "protocol.md")
	rest := docSection(t, doc, notServedHeading)
	before := strings.Replace(doc, rest, "", 1)
	span := regexp.MustCompile("`([^`\n]+)`")
	collect := func(text string) map[string]bool {
		out := map[string]bool{}
		for _, m := range span.FindAllStringSubmatch(text, -1) {
			// A span may hold a call such as `agent.startTurn` or a
			// longer expression; take every name in it.
			for _, word := range regexp.MustCompile(`[A-Za-z$./]+`).FindAllString(m[1], -1) {
				if wireName.MatchString(word) {
					out[word] = true
				}
			}
		}
		return out
	}
	served, notServed = collect(before), collect(rest)
	if len(notServed) == 0 {
		t.Logf("docs/protocol.md lists nothing under %q", notServedHeading)
	}
	return served, notServed
}

// docSection returns the part of doc from heading to the next heading of
// the same level.
func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs: heading %q not found", heading)
	}
	level := heading[:strings.IndexByte(heading, ' ')+1]
	rest := doc[i+1:]
	if j := strings.Index(rest[len(heading):], "\n"+level); j >= 0 {
		return rest[:len(heading)+j+1]
	}
	return rest
}

func jsonTags(st *ast.StructType) []string {
	var tags []string
	for _, f := range st.Fields.List {
		if tag := jsonTag(f); tag != "" && tag != "-" {
			tags = append(tags, tag)
		}
	}
	return tags
}

// jsonTag returns the name in a field's json struct tag.
func jsonTag(f *ast.Field) string {
	if f.Tag == nil {
		return ""
	}
	raw, err := strconv.Unquote(f.Tag.Value)
	if err != nil {
		return ""
	}
	name, _, _ := strings.Cut(reflectTag(raw, "json"), ",")
	return name
}

// reflectTag looks key up in a struct tag, as reflect.StructTag.Get does.
func reflectTag(tag, key string) string {
	for _, part := range strings.Fields(tag) {
		k, v, ok := strings.Cut(part, ":")
		if ok && k == key {
			if s, err := strconv.Unquote(v); err == nil {
				return s
			}
		}
	}
	return ""
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	return parseDirWith(t, token.NewFileSet(), dir)
}

func parseDirWith(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return files
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
