package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// modulePath is this module's path.
const modulePath = "github.com/agent-ls/agent-ls"

// rank places each package of the module in the dependency direction of
// docs/architecture.md: a package imports only packages of a lower rank.
// Test files are not bound by it (the tests of lsp drive it with the
// editor fake).
var rank = map[string]int{
	// Leaves: types, pure logic and helpers that import nothing of ours.
	"internal/policy":     0,
	"internal/textcut":    0,
	"internal/jsonstr":    0,
	"internal/jsonschema": 0,
	"internal/patch":      0,
	"internal/netproxy":   0,
	"internal/proctest":   0,
	"internal/testenv":    0,
	// What the bench programs measure with, and their summary rows.
	"bench/stats":    0,
	"bench/benchrow": 1,
	// What the tools and the agent stand on.
	"internal/model/fakemodel": 1,
	"internal/event":           1,
	"internal/lspframe":        1,
	"internal/search":          1,
	"internal/workspace":       1,
	"internal/sandbox":         1,
	"internal/model":           1,
	"internal/config":          1,
	"internal/elicit":          1,
	"internal/tools":           2,
	"internal/checkpoint":      2,
	"internal/agent":           3,
	"internal/mcp":             3,
	// Frontends: the language server and the ACP server, and the fake
	// editor that drives the first;
	// the session records, which implement the agent's observer; the
	// hooks, which implement its ToolHooks.
	"internal/lsp":     4,
	"internal/acp":     4,
	"internal/hooks":   4,
	"internal/editor":  4,
	"internal/session": 4,
	// The demo: an editor fake driving the server against fakemodel.
	"internal/app/demo": 5,
	// The application: the subcommands, their settings and the
	// composition root over the front ends.
	"internal/app": 6,
	// Programs and test-only packages.
	"cmd/agent-ls":                           7,
	"cmd/agent-ls-sandbox":                   7,
	"internal/model/fakemodel/cmd/fakemodel": 7,
	"bench/acpbench":                         7,
	"bench/acpbench/nullagent":               7,
	"bench/mcpbench":                         7,
	"bench/mcpbench/server":                  7,
	"bench/bigmsgbench":                      7,
	"bench/eventbench":                       7,
	"bench/grepbench":                        7,
	"bench/treebench":                        7,
	"bench/inittime":                         7,
	"bench/outputbench":                      7,
	"bench/sandboxbench":                     7,
	"bench/execbench":                        7,
	"bench/sessionbench":                     7,
	"bench/checkpointbench":                  7,
	"bench/contextbench":                     7,
	"bench/benchtable":                       7,
	"e2e":                                    7,
	"docs":                                   7,
}

// allowed lists, for each package of the module, what its non-test files
// may import besides the standard library: packages of the module by
// their path inside it, other modules by module path. An import missing
// here is a new arrow in the picture: add it only if it follows the
// direction (rank) and docs/architecture.md still tells the truth.
// proctest and testenv appear in no list: only tests import them.
var allowed = map[string][]string{
	"internal/event":           {"internal/jsonstr"},
	"internal/policy":          nil,
	"internal/textcut":         nil,
	"internal/jsonstr":         nil,
	"internal/jsonschema":      nil,
	"internal/patch":           {"github.com/sourcegraph/go-diff"},
	"internal/netproxy":        nil,
	"internal/model/fakemodel": {"internal/jsonstr"},
	"internal/proctest":        {"golang.org/x/sys"},
	"internal/testenv":         nil,
	"internal/lspframe":        {"internal/textcut"},
	"internal/search":          {"internal/textcut"},
	"internal/workspace":       {"internal/policy", "github.com/aymanbagabas/go-udiff", "golang.org/x/sys"},
	"internal/sandbox": {"internal/policy",
		"github.com/landlock-lsm/go-landlock", "github.com/seccomp/libseccomp-golang", "golang.org/x/sys"},
	"internal/model":      {"internal/textcut"},
	"internal/config":     {"internal/netproxy", "internal/policy", "github.com/pelletier/go-toml/v2"},
	"internal/elicit":     {"internal/textcut"},
	"internal/tools":      {"internal/event", "internal/jsonschema", "internal/patch", "internal/search", "internal/policy", "internal/sandbox", "internal/textcut", "internal/workspace"},
	"internal/checkpoint": {"internal/search", "github.com/aymanbagabas/go-udiff"},
	"internal/agent": {"internal/checkpoint", "internal/elicit", "internal/event", "internal/model", "internal/netproxy", "internal/policy", "internal/search", "internal/textcut", "internal/tools",
		"internal/workspace", "go.lsp.dev/uri", "mvdan.cc/sh/v3"},
	"internal/mcp": {"internal/elicit", "internal/event", "internal/jsonschema", "internal/policy", "internal/textcut", "internal/tools", "github.com/modelcontextprotocol/go-sdk", "golang.org/x/oauth2"},
	"internal/lsp": {"internal/agent", "internal/elicit", "internal/event", "internal/jsonstr", "internal/lspframe", "internal/policy", "internal/textcut", "internal/workspace",
		"github.com/aymanbagabas/go-udiff", "go.lsp.dev/jsonrpc2", "go.lsp.dev/protocol", "go.lsp.dev/uri", "mvdan.cc/sh/v3"},
	"internal/acp":     {"internal/agent", "internal/elicit", "internal/event", "internal/jsonstr", "internal/mcp", "internal/policy", "internal/textcut", "internal/workspace", "github.com/coder/acp-go-sdk"},
	"internal/hooks":   {"internal/agent", "internal/textcut"},
	"internal/editor":  {"internal/event", "internal/workspace", "go.lsp.dev/jsonrpc2", "go.lsp.dev/protocol", "go.lsp.dev/uri"},
	"internal/session": {"internal/agent", "internal/event", "internal/jsonstr", "internal/model"},
	// The demo needs the editor fake and fakemodel; nothing else in the
	// binary does.
	"internal/app/demo": {"internal/editor", "internal/model/fakemodel", "internal/sandbox", "internal/textcut", "go.lsp.dev/protocol"},
	// The application and its composition root.
	"internal/app": {"internal/acp", "internal/agent", "internal/app/demo", "internal/config", "internal/elicit", "internal/event", "internal/hooks", "internal/lsp",
		"internal/mcp", "internal/model", "internal/policy", "internal/sandbox", "internal/session", "internal/textcut", "internal/tools",
		"internal/workspace", "golang.org/x/sys"},
	// main over the application.
	"cmd/agent-ls":                           {"internal/app"},
	"cmd/agent-ls-sandbox":                   {"internal/sandbox"},
	"internal/model/fakemodel/cmd/fakemodel": {"internal/model/fakemodel"},
	"bench/acpbench":                         {"bench/stats", "internal/model/fakemodel", "github.com/coder/acp-go-sdk"},
	"bench/acpbench/nullagent":               {},
	"bench/mcpbench":                         {"bench/stats"},
	"bench/mcpbench/server":                  {"github.com/modelcontextprotocol/go-sdk"},
	"bench/bigmsgbench":                      {"bench/benchrow", "bench/stats", "internal/editor", "internal/model/fakemodel", "go.lsp.dev/protocol", "go.lsp.dev/uri"},
	"bench/eventbench":                       {"bench/benchrow", "bench/stats", "internal/editor", "internal/event"},
	"bench/grepbench":                        {"bench/stats", "internal/tools"},
	"bench/treebench":                        {"bench/benchrow", "bench/stats", "internal/search", "internal/tools"},
	"bench/inittime":                         {"bench/stats", "internal/lspframe"},
	"bench/outputbench":                      {"bench/stats", "internal/editor", "internal/model/fakemodel"},
	"bench/sandboxbench":                     {"bench/stats", "internal/sandbox"},
	"bench/execbench":                        {"bench/stats", "internal/event", "internal/policy", "internal/sandbox", "internal/tools", "internal/workspace"},
	"bench/checkpointbench":                  {"bench/stats", "internal/checkpoint"},
	"bench/contextbench":                     {"bench/benchrow", "bench/stats", "internal/editor", "internal/model/fakemodel"},
	"bench/benchtable":                       {"bench/benchrow"},
	"bench/benchrow":                         {"bench/stats"},
	"bench/stats":                            {},
	"bench/sessionbench":                     {"bench/benchrow", "bench/stats", "internal/agent", "internal/editor", "internal/event", "internal/model", "internal/session"},
	"e2e":                                    nil,
	"docs":                                   nil,
}

// platforms are the builds whose imports are checked: build tags may give
// a package other files, and so other imports, on each.
var platforms = []struct {
	name string
	env  []string
}{
	{"linux", []string{"GOOS=linux", "GOARCH=amd64"}},
	{"linux without cgo", []string{"GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0"}},
	{"darwin", []string{"GOOS=darwin", "GOARCH=arm64"}},
	{"windows", []string{"GOOS=windows", "GOARCH=amd64"}},
}

// TestDependencyDirection checks every import of every package of the
// module, on every platform, against the allowed arrows and the ranks.
func TestDependencyDirection(t *testing.T) {
	for pkg, imports := range allowed {
		if _, ok := rank[pkg]; !ok {
			t.Errorf("allowed lists %s, which has no rank", pkg)
		}
		for _, imp := range imports {
			if r, ours := rank[imp]; ours && r >= rank[pkg] {
				t.Errorf("allowed lists %s → %s, against the direction (rank %d → %d)", pkg, imp, rank[pkg], r)
			} else if !ours && strings.HasPrefix(imp, "internal/") {
				t.Errorf("allowed lists %s → %s, a package with no rank", pkg, imp)
			}
		}
	}
	for _, p := range platforms {
		t.Run(p.name, func(t *testing.T) {
			pkgs := listPackages(t, p.env)
			for _, pkg := range pkgs {
				if _, ok := rank[pkg.Path]; !ok {
					t.Errorf("package %s is in neither table of docs/architecture_test.go: give it a rank and its allowed imports, and a line in docs/architecture.md", pkg.Path)
					continue
				}
				for _, imp := range pkg.Deps {
					if !contains(allowed[pkg.Path], imp) {
						t.Errorf("new dependency %s → %s: if it follows the direction, add it to allowed in docs/architecture_test.go and to docs/architecture.md", pkg.Path, imp)
					}
				}
			}
		})
	}
}

// TestArchitectureDocNamesEveryPackage checks that docs/architecture.md
// names every package of the module (in backquotes) and that its layout
// starts a line with every top-level directory and every package
// directory under cmd/ and internal/.
func TestArchitectureDocNamesEveryPackage(t *testing.T) {
	arch := readDoc(t, "architecture.md")
	layout := docLayout(t, arch)
	for _, pkg := range listPackages(t, nil) {
		if !strings.Contains(arch, "`"+pkg.Path+"`") {
			t.Errorf("docs/architecture.md does not mention package %s", pkg.Path)
		}
		if strings.HasPrefix(pkg.Path, "internal/") || strings.HasPrefix(pkg.Path, "cmd/") {
			if !listsDir(layout, pkg.Path) {
				t.Errorf("the layout of docs/architecture.md does not list %s/", pkg.Path)
			}
		}
	}
	entries, err := os.ReadDir(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	ignored := ignoredDirs(t)
	for _, e := range entries {
		// A top-level directory may be listed through what it holds
		// (cmd/agent-ls/ for cmd/). Build outputs (bin/) are not part of
		// the layout.
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !ignored[e.Name()] && !strings.Contains(layout, "\n"+e.Name()+"/") {
			t.Errorf("the layout of docs/architecture.md does not list the directory %s/", e.Name())
		}
	}
}

// ignoredDirs returns the top-level directories the repository's
// .gitignore names (such as /bin/).
func ignoredDirs(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), ".gitignore"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		name, ok := strings.CutSuffix(strings.TrimPrefix(strings.TrimSpace(line), "/"), "/")
		if ok && name != "" && !strings.ContainsAny(name, "/*?[!#") {
			dirs[name] = true
		}
	}
	return dirs
}

// listsDir reports whether a line of layout starts with dir/ and then a
// space or the line's end.
func listsDir(layout, dir string) bool {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(dir) + `/(\s|$)`).MatchString(layout)
}

// docLayout returns the code block under the Layout heading of
// docs/architecture.md.
func docLayout(t *testing.T, arch string) string {
	t.Helper()
	_, after, ok := strings.Cut(arch, "\n## Layout\n")
	if !ok {
		t.Fatal("docs/architecture.md has no Layout section")
	}
	_, block, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("the Layout section of docs/architecture.md has no code block")
	}
	block, _, _ = strings.Cut(block, "```")
	return "\n" + block
}

// listedPackage is a package of the module and what its non-test files
// import besides the standard library: packages of the module by their
// path in it, other modules by module path.
type listedPackage struct {
	Path string
	Deps []string
}

var listCache sync.Map // platform env → []listedPackage

// listPackages lists the module's packages as `go list` sees them with
// env added to the environment.
func listPackages(t *testing.T, env []string) []listedPackage {
	t.Helper()
	key := strings.Join(env, " ")
	if v, ok := listCache.Load(key); ok {
		return v.([]listedPackage)
	}
	type module struct{ Path string }
	type pkg struct {
		ImportPath string
		Imports    []string
		Module     *module
		Standard   bool
		DepOnly    bool
	}
	out := goOutputEnv(t, env, "list", "-e", "-deps", "-json=ImportPath,Imports,Module,Standard,DepOnly", "./...")
	var all []pkg
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		all = append(all, p)
	}
	// moduleOf maps each import path to where it belongs: "" for the
	// standard library, the path inside this module, or a module path.
	moduleOf := map[string]string{}
	for _, p := range all {
		switch {
		case p.Standard || p.ImportPath == "C":
		case strings.HasPrefix(p.ImportPath, modulePath+"/"):
			moduleOf[p.ImportPath] = strings.TrimPrefix(p.ImportPath, modulePath+"/")
		case p.Module != nil:
			moduleOf[p.ImportPath] = p.Module.Path
		default:
			moduleOf[p.ImportPath] = p.ImportPath
		}
	}
	var pkgs []listedPackage
	for _, p := range all {
		if p.DepOnly || !strings.HasPrefix(p.ImportPath, modulePath+"/") {
			continue
		}
		lp := listedPackage{Path: strings.TrimPrefix(p.ImportPath, modulePath+"/")}
		for _, imp := range p.Imports {
			if m := moduleOf[imp]; m != "" && !contains(lp.Deps, m) {
				lp.Deps = append(lp.Deps, m)
			}
		}
		pkgs = append(pkgs, lp)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages of the module", len(pkgs))
	}
	listCache.Store(key, pkgs)
	return pkgs
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// moduleRoot is the directory holding go.mod, one above this one.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod above the docs directory: %v", err)
	}
	return root
}

func goOutput(t *testing.T, args ...string) string {
	t.Helper()
	return goOutputEnv(t, nil, args...)
}

// goOutputEnv runs the go command in the module root and returns its
// standard output.
func goOutputEnv(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out)
}
