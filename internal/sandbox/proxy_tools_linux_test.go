package sandbox

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/netproxy"
)

// TestProxyToolchains: the package tools a project uses fetch through
// the proxy once the host is allowed: git clone over dumb HTTP, pip
// download from a simple index, npm install from a registry stand-in,
// all served by the test on the host's loopback.
func TestProxyToolchains(t *testing.T) {
	requireSessionNet(t)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	base := srv.URL
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	rules, err := netproxy.ParseRules([]string{"127.0.0.1:" + port}, nil)
	if err != nil {
		t.Fatal(err)
	}
	proxy := netproxy.New(netproxy.Config{Rules: rules})
	cwd, _ := workspace(t)
	reg := new(SocketRegistry)
	t.Cleanup(func() { reg.Close() })
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg, Proxy: proxy.Endpoint(netproxy.Client{Command: "tools"})}

	t.Run("git", func(t *testing.T) {
		git := requireTool(t, "git")
		mux.Handle("/git/", http.StripPrefix("/git/", http.FileServer(http.Dir(bareRepo(t, git)))))
		dest := filepath.Join(cwd, "cloned")
		if r := runIn(t, p, nil, git, "clone", "-q", base+"/git/", dest); r.code != 0 {
			t.Fatalf("git clone through the proxy:\n%v", r)
		}
		if b, err := os.ReadFile(filepath.Join(dest, "README")); err != nil || string(b) != "hello\n" {
			t.Errorf("the clone: %q %v", b, err)
		}
	})
	t.Run("pip", func(t *testing.T) {
		python := requireTool(t, "python3")
		if err := exec.Command(python, "-m", "pip", "--version").Run(); err != nil {
			t.Skip("!!!!!! SKIPPED: no pip here !!!!!!")
		}
		whl := wheel(t)
		mux.HandleFunc("/simple/demo/", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, `<html><body><a href="/files/demo-1.0-py3-none-any.whl">demo-1.0-py3-none-any.whl</a></body></html>`)
		})
		mux.HandleFunc("/files/demo-1.0-py3-none-any.whl", func(w http.ResponseWriter, _ *http.Request) { w.Write(whl) })
		dest := filepath.Join(cwd, "wheels")
		r := runIn(t, p, nil, python, "-m", "pip", "download", "-q", "--no-deps", "--disable-pip-version-check",
			"--index-url", base+"/simple/", "--trusted-host", "127.0.0.1", "--dest", dest, "demo")
		if _, err := os.Stat(filepath.Join(dest, "demo-1.0-py3-none-any.whl")); r.code != 0 || err != nil {
			t.Fatalf("pip download through the proxy:\n%v", r)
		}
	})
	t.Run("npm", func(t *testing.T) {
		npm := requireTool(t, "npm")
		tgz := npmTarball(t)
		sum1, sum512 := sha1.Sum(tgz), sha512.Sum512(tgz)
		mux.HandleFunc("/demo-pkg", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, `{"name":"demo-pkg","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"demo-pkg","version":"1.0.0",`+
				`"dist":{"tarball":"%s/demo-pkg/-/demo-pkg-1.0.0.tgz","shasum":"%s","integrity":"sha512-%s"}}}}`,
				base, hex.EncodeToString(sum1[:]), base64.StdEncoding.EncodeToString(sum512[:]))
		})
		mux.HandleFunc("/demo-pkg/-/demo-pkg-1.0.0.tgz", func(w http.ResponseWriter, _ *http.Request) { w.Write(tgz) })
		proj := filepath.Join(cwd, "app")
		os.MkdirAll(proj, 0o755)
		os.WriteFile(filepath.Join(proj, "package.json"), []byte(`{"name":"app","version":"1.0.0"}`), 0o644)
		q := p
		q.Cwd = proj
		r := runIn(t, q, testEnv("npm_config_registry="+base+"/", "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false"),
			npm, "install", "--no-audit", "--no-fund", "demo-pkg")
		if b, err := os.ReadFile(filepath.Join(proj, "node_modules", "demo-pkg", "index.js")); r.code != 0 || err != nil || !strings.Contains(string(b), "demo") {
			t.Fatalf("npm install through the proxy:\n%v", r)
		}
	})
}

// bareRepo makes a repository with one commit, cloned bare and ready to
// be served over dumb HTTP.
func bareRepo(t *testing.T, git string) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(testEnv(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "src")
	os.WriteFile(filepath.Join(dir, "src", "README"), []byte("hello\n"), 0o644)
	run("-C", "src", "add", "README")
	run("-C", "src", "commit", "-q", "-m", "first")
	run("clone", "-q", "--bare", "src", "bare.git")
	run("-C", "bare.git", "update-server-info")
	return filepath.Join(dir, "bare.git")
}

// wheel is a minimal pure-Python wheel of the package demo 1.0.
func wheel(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"demo/__init__.py":                 "",
		"demo-1.0.dist-info/METADATA":      "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n",
		"demo-1.0.dist-info/WHEEL":         "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		"demo-1.0.dist-info/RECORD":        "",
		"demo-1.0.dist-info/top_level.txt": "demo\n",
	} {
		w, _ := z.Create(name)
		w.Write([]byte(body))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// npmTarball is the package tarball of demo-pkg 1.0.0.
func npmTarball(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"package/package.json": `{"name":"demo-pkg","version":"1.0.0","main":"index.js"}`,
		"package/index.js":     "module.exports = 'demo';\n",
	} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}
