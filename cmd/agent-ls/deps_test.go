package main

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The scriptable editor and the fake model server are test equipment that
// the demo needs at run time, so they are in the agent-ls binary, but only
// through the demo: no other package agent-ls links imports them, and in
// this package only the demo's files do. Nothing test-only (testing,
// httptest) is linked.
func TestDemoAloneLinksTestEquipment(t *testing.T) {
	demoOnly := []string{
		"github.com/agent-ls/agent-ls/internal/editor",
		"github.com/agent-ls/agent-ls/internal/model/fakemodel",
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), ": ")
		if pkg == "testing" || pkg == "net/http/httptest" {
			t.Errorf("agent-ls links %s", pkg)
		}
		for _, imp := range strings.Fields(imports) {
			if slices.Contains(demoOnly, imp) && pkg != selfPackage && !slices.Contains(demoOnly, pkg) {
				t.Errorf("%s imports %s: only the demo may", pkg, imp)
			}
		}
	}

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var importers []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); slices.Contains(demoOnly, path) {
				importers = append(importers, name)
				if !strings.HasPrefix(name, "demo") {
					t.Errorf("%s imports %s: only the demo's files (demo*.go) may", name, path)
				}
			}
		}
	}
	if len(importers) == 0 {
		t.Error("no demo file imports the editor or the fake model: the check above checks nothing")
	}
}
