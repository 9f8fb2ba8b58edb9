package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The size rules of docs/architecture.md: a file says one thing, a
// function does one thing.
const (
	maxFileLines = 500
	maxFuncLines = 80
)

// runtimeSwitches are calls that change how the Go runtime runs the whole
// process (the collector's pace, the scheduler, stacks, threads): none in
// agent-ls outside tests, whatever a start-up millisecond they may win.
var runtimeSwitches = map[string]bool{
	"debug.SetGCPercent": true, "debug.SetMemoryLimit": true, "debug.SetMaxStack": true,
	"debug.SetMaxThreads": true, "runtime.Gosched": true,
}

// largeFiles may pass maxFileLines for now, each with its reason.
var largeFiles = map[string]string{
	"internal/mcp/server.go": "the MCP client is replaced by the official SDK's, not split",
}

// TestSizeRules: no non-test Go file of the module over maxFileLines
// lines, no function (or function literal) in one over maxFuncLines, and
// no runtime switch.
func TestSizeRules(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := strings.Count(string(src), "\n"); n > maxFileLines && largeFiles[rel] == "" {
			t.Errorf("%s: %d lines (at most %d): split it by what it does", rel, n, maxFileLines)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && runtimeSwitches[pkg.Name+"."+sel.Sel.Name] {
						t.Errorf("%s: %s.%s switches the runtime for the whole process", fset.Position(call.Pos()), pkg.Name, sel.Sel.Name)
					}
				}
			}
			var body *ast.BlockStmt
			what := "a function literal"
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body, what = fn.Body, fn.Name.Name
			case *ast.FuncLit:
				body = fn.Body
			}
			if body == nil {
				return true
			}
			start, end := fset.Position(body.Lbrace), fset.Position(body.Rbrace)
			if lines := end.Line - start.Line + 1; lines > maxFuncLines {
				t.Errorf("%s:%d: %s has %d lines (at most %d): give its steps names", rel, start.Line, what, lines, maxFuncLines)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
