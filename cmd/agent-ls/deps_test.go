package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The scriptable editor and the fake model server are test equipment that
// the demo needs at run time, so they are in the agent-ls binary, but only
// through the demo: no package agent-ls links imports them but the demo's
// own (internal/app/demo). Nothing test-only is linked: not testing or
// httptest, not the packages only tests use (internal/proctest,
// internal/testenv), not the MCP library the tests' servers use.
func TestDemoAloneLinksTestEquipment(t *testing.T) {
	const module = "github.com/agent-ls/agent-ls/"
	demoPackage := module + "internal/app/demo"
	demoOnly := []string{module + "internal/editor", module + "internal/model/fakemodel"}
	testOnly := []string{"testing", "net/http/httptest", module + "internal/proctest", module + "internal/testenv"}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	demoImports := 0
	for line := range strings.Lines(string(out)) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), ": ")
		if slices.Contains(testOnly, pkg) || strings.HasPrefix(pkg, "github.com/mark3labs/mcp-go") {
			t.Errorf("agent-ls links %s", pkg)
		}
		for _, imp := range strings.Fields(imports) {
			if !slices.Contains(demoOnly, imp) {
				continue
			}
			if pkg == demoPackage {
				demoImports++
			} else if !slices.Contains(demoOnly, pkg) {
				t.Errorf("%s imports %s: only the demo (%s) may", pkg, imp, demoPackage)
			}
		}
	}
	if demoImports == 0 {
		t.Errorf("%s imports neither the editor nor the fake model: the check above checks nothing", demoPackage)
	}
}
