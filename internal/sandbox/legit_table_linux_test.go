package sandbox

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// legitRow is one piece of everyday work that must succeed in the default
// sandbox (workspace-write, network off) in a fresh workspace, with the
// user's environment as it is.
type legitRow struct {
	name string
	// tools must be on PATH (absolute ones must exist); when one is
	// missing the row fails, unless optional says why it may be absent.
	tools    []string
	optional string
	files    map[string]string
	// setup prepares the workspace outside the sandbox (a repository, a
	// wheel) after files are written; it returns variables to add to the
	// environment, settings of the user's that the row needs.
	setup func(tb testing.TB, dir string) []string
	// script runs with `sh -c` in the workspace; its output must contain
	// want.
	script string
	want   string
}

// debianPython is Debian's interpreter, which has python3-venv and
// python3-pytest (scripts/deps.sh installs them) and which every user can
// run, unlike a Python installed below a home directory.
const debianPython = "/usr/bin/python3"

const goMod = "module example.com/work\n\ngo 1.22\n"

var legitRows = []legitRow{
	{name: "go build", tools: []string{"go"},
		files:  map[string]string{"go.mod": goMod, "main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from a sandboxed build\") }\n"},
		script: "go build -o hello . && ./hello", want: "hello from a sandboxed build"},
	{name: "go test", tools: []string{"go"},
		files: map[string]string{"go.mod": goMod, "add.go": "package work\n\nfunc Add(a, b int) int { return a + b }\n",
			"add_test.go": "package work\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"2+2\")\n\t}\n}\n"},
		script: "go test ./...", want: "ok  \texample.com/work"},
	{name: "go build with a dependency from the read-only module cache", tools: []string{"go"},
		files: map[string]string{"go.mod": goMod + "\nrequire example.com/greet v1.0.0\n",
			"main.go": "package main\n\nimport \"example.com/greet\"\n\nfunc main() { println(greet.Hello()) }\n"},
		setup:  downloadedModule,
		script: "go build -o app . && ./app", want: "hello from the module cache"},
	{name: "go vet", tools: []string{"go"},
		files:  map[string]string{"go.mod": goMod, "add.go": "package work\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"},
		script: "go vet ./... && echo vet-clean", want: "vet-clean"},
	{name: "gofmt -w", tools: []string{"gofmt"},
		files:  map[string]string{"main.go": "package main\nfunc main(  ) {\nprintln( 1 )}\n"},
		script: "gofmt -w main.go && cat main.go", want: "func main() {\n\tprintln(1)\n}"},
	{name: "make", tools: []string{"make"},
		files:  map[string]string{"Makefile": "out.txt: in.txt\n\ttr a-z A-Z < in.txt > out.txt\n", "in.txt": "made\n"},
		script: "make && cat out.txt", want: "MADE"},
	{name: "gcc: compile and run, socketpair send and sendmsg", tools: []string{"gcc"},
		files: map[string]string{"sp.c": socketpairC}, script: "gcc -o sp sp.c && ./sp", want: "send ok, sendmsg with a descriptor ok"},
	{name: "python venv and pip install --no-index of a local wheel", tools: []string{debianPython},
		setup: func(tb testing.TB, dir string) []string { writeWheel(tb, dir); return nil },
		script: debianPython + " -m venv venv && venv/bin/pip install --no-index ./" + wheelName +
			" && venv/bin/python -c 'import legit_pkg; print(legit_pkg.VALUE)'",
		want: "installed from a local wheel"},
	{name: "python -m pytest", tools: []string{debianPython},
		files:  map[string]string{"test_sum.py": "def test_sum():\n    assert sum([1, 2]) == 3\n"},
		script: debianPython + " -m pytest -q", want: "1 passed"},
	{name: "python multiprocessing, socketpair send and sendmsg", tools: []string{debianPython},
		files: map[string]string{"mp.py": multiprocessingPy}, script: debianPython + " mp.py", want: "pool 285 handle b'x' socketpair b'hi' b'yo' queue 7"},
	{name: "node --test", tools: []string{"node"},
		files:  map[string]string{"test/add.test.js": nodeTest},
		script: "node --test", want: "# pass 1"},
	{name: "npm test", tools: []string{"npm"},
		files:  map[string]string{"package.json": `{"name":"app","version":"1.0.0","scripts":{"test":"node --test"}}`, "test/add.test.js": nodeTest},
		script: "npm test", want: "# pass 1"},
	{name: "npm install of a file: dependency", tools: []string{"npm"},
		files: map[string]string{"package.json": `{"name":"app","version":"1.0.0","dependencies":{"dep":"file:./dep"}}`,
			"dep/package.json": `{"name":"dep","version":"1.0.0","main":"index.js"}`, "dep/index.js": "module.exports = 'dep loaded';\n"},
		script: "npm install && node -e 'console.log(require(\"dep\"))'", want: "dep loaded"},
	{name: "git status, diff, log, stash list", tools: []string{"git"},
		files: map[string]string{"file.txt": "one\n"}, setup: func(tb testing.TB, dir string) []string { gitRepo(tb, dir); return nil },
		script: "echo two >> file.txt && git status --short && git diff && git log --oneline && git stash list && echo git-done",
		want:   "+two"},
	{name: "sqlite3 writes a database in the workspace", tools: []string{"sqlite3"},
		script: "sqlite3 work.db 'create table t(x); insert into t values (42);' && sqlite3 work.db 'select x from t;' && test -s work.db",
		want:   "42"},
	{name: "tar", tools: []string{"tar"},
		files:  map[string]string{"d/f.txt": "archived\n"},
		script: "tar czf d.tgz d && rm -r d && tar xzf d.tgz && cat d/f.txt", want: "archived"},
	{name: "sort of a large input (temporary files)", tools: []string{"sort", "seq"},
		script: "seq 400000 > in.txt && sort -n -r -S 1M in.txt | head -n 1", want: "400000"},
	{name: "python: a Unix socket server in the workspace, clients connecting to it", tools: []string{debianPython},
		files: map[string]string{"srv.py": unixServerPy}, script: debianPython + " srv.py", want: "python unix server answered 8 clients"},
	{name: "go test with a Unix socket server in the workspace", tools: []string{"go"},
		files:  map[string]string{"go.mod": goMod, "srv_test.go": unixServerGoTest},
		script: "go test ./...", want: "ok  \texample.com/work"},
	{name: "node: a net server on a Unix socket in the workspace", tools: []string{"node"},
		files: map[string]string{"srv.js": unixServerJS}, script: "node srv.js", want: "node unix server answered 8 clients"},
	{name: "cargo build", tools: []string{"cargo"}, optional: "cargo is not installed for this user (not needed by agent-ls)",
		files: map[string]string{"Cargo.toml": "[package]\nname = \"work\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"src/main.rs": "fn main() { println!(\"hello from cargo\"); }\n"},
		script: "cargo build --offline -q && ./target/debug/work", want: "hello from cargo"},
}

// unixServerPy is an asyncio server on a Unix socket in the workspace
// with clients connecting to it, as test fixtures do.
const unixServerPy = `import asyncio, os

async def main():
    path = os.path.join(os.getcwd(), "run", "srv.sock")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    async def handle(r, w):
        w.write(await r.readline())
        await w.drain()
        w.close()
    server = await asyncio.start_unix_server(handle, path)
    async def client(i):
        r, w = await asyncio.open_unix_connection(path)
        w.write(b"%d\n" % i)
        got = await r.readline()
        w.close()
        return int(got)
    got = await asyncio.gather(*(client(i) for i in range(8)))
    server.close()
    await server.wait_closed()
    assert sorted(got) == list(range(8)), got
    print("python unix server answered", len(got), "clients")

asyncio.run(main())
`

// unixServerGoTest is a Go test with a Unix socket server in the package
// directory that the test dials at the listener's own address.
const unixServerGoTest = `package work

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestUnixServer(t *testing.T) {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "test.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("pong\n"))
			c.Close()
		}
	}()
	c, err := net.Dial(l.Addr().Network(), l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if line, _ := bufio.NewReader(c).ReadString('\n'); line != "pong\n" {
		t.Fatalf("got %q", line)
	}
}
`

// unixServerJS is a Node net server on a Unix socket in the workspace with
// clients connecting to it.
const unixServerJS = `const net = require("net");
const path = require("path").join(process.cwd(), "node.sock");
const server = net.createServer((c) => c.pipe(c));
server.listen(path, async () => {
  const one = (i) => new Promise((resolve, reject) => {
    const c = net.connect(path, () => c.end(String(i)));
    let data = "";
    c.on("data", (d) => (data += d));
    c.on("end", () => resolve(Number(data)));
    c.on("error", reject);
  });
  const got = await Promise.all([...Array(8).keys()].map(one));
  server.close();
  if (got.join() !== [...Array(8).keys()].join()) throw new Error("got " + got);
  console.log("node unix server answered", got.length, "clients");
});
`

const nodeTest = `const test = require("node:test");
const assert = require("node:assert");
test("add", () => assert.strictEqual(1 + 1, 2));
`

// socketpairC sends on a socketpair the way libc programs do: send()
// (sendto without an address) and sendmsg() passing a descriptor.
const socketpairC = `#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void) {
	int sv[2], p[2];
	char buf[8];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(p)) { perror("socketpair"); return 1; }
	if (send(sv[0], "hi", 2, 0) != 2 || recv(sv[1], buf, 2, 0) != 2) { perror("send"); return 1; }
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { "yo", 2 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &p[0], sizeof(int));
	if (sendmsg(sv[0], &m, 0) != 2) { perror("sendmsg"); return 1; }
	struct iovec riov = { buf, sizeof buf };
	struct msghdr r = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
	if (recvmsg(sv[1], &r, 0) != 2 || CMSG_FIRSTHDR(&r) == NULL) { perror("recvmsg"); return 1; }
	puts("send ok, sendmsg with a descriptor ok");
	return 0;
}
`

// multiprocessingPy is what Python's multiprocessing does with the default
// start method: a pool over pipes, a descriptor passed over a socketpair
// (sendmsg), a queue to a child; plus send and sendmsg directly.
const multiprocessingPy = `import array, os, socket
import multiprocessing as mp
from multiprocessing import reduction

def square(x):
    return x * x

if __name__ == "__main__":
    with mp.Pool(2) as pool:
        total = sum(pool.map(square, range(10)))
    a, b = mp.Pipe()
    r, w = os.pipe()
    reduction.send_handle(a, r, os.getpid())
    fd = reduction.recv_handle(b)
    os.write(w, b"x")
    handle = os.read(fd, 1)
    s1, s2 = socket.socketpair()
    s1.send(b"hi")
    s1.sendmsg([b"yo"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r]))])
    got = (s2.recv(2), s2.recvmsg(2, socket.CMSG_SPACE(4))[0])
    q = mp.Queue()
    child = mp.Process(target=q.put, args=(7,))
    child.start()
    print("pool", total, "handle", handle, "socketpair", got[0], got[1], "queue", q.get())
    child.join()
`

func gitRepo(tb testing.TB, dir string) {
	tb.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=a@example.com", "-c", "user.name=a", "commit", "-q", "-m", "first commit"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// missingTool names the first of the row's tools that is not installed.
func (r legitRow) missingTool() string {
	for _, tool := range r.tools {
		if filepath.IsAbs(tool) {
			if _, err := os.Stat(tool); err != nil {
				return tool
			}
		} else if _, err := exec.LookPath(tool); err != nil {
			return tool
		}
	}
	return ""
}

// prepare makes the row's fresh workspace, or skips or fails the test when
// a tool is missing. It returns the workspace and the environment to run
// in: nil (this process's) unless the row adds to it.
func (r legitRow) prepare(tb testing.TB) (string, []string) {
	tb.Helper()
	if tool := r.missingTool(); tool != "" {
		if r.optional != "" {
			tb.Skipf("%s: %s", tool, r.optional)
		}
		tb.Fatalf("%s is not installed (scripts/deps.sh installs it)", tool)
	}
	cwd, _ := workspace(tb)
	for name, body := range r.files {
		p := filepath.Join(cwd, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	var env []string
	if r.setup != nil {
		if extra := r.setup(tb, cwd); extra != nil {
			env = testEnv(extra...)
		}
	}
	return cwd, env
}

// TestEverydayWork runs the everyday-work table in the default sandbox
// with this process's environment (HOME and the toolchains' default caches
// as they are): each row must succeed.
func TestEverydayWork(t *testing.T) {
	requireLandlock(t)
	for _, row := range legitRows {
		t.Run(row.name, func(t *testing.T) {
			cwd, env := row.prepare(t)
			r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, env, "sh", "-c", row.script)
			out := r.stdout + r.stderr
			if r.code != 0 || !strings.Contains(out, row.want) {
				t.Errorf("%s failed in the sandbox (want %q in the output)\n%v", row.name, row.want, r)
			}
		})
	}
}

const wheelName = "legit_pkg-0.1-py3-none-any.whl"

// writeWheel builds a pure-Python wheel into dir with archive/zip, so the
// test needs neither the network nor setuptools.
func writeWheel(tb testing.TB, dir string) {
	tb.Helper()
	files := []struct{ name, body string }{
		{"legit_pkg/__init__.py", "VALUE = 'installed from a local wheel'\n"},
		{"legit_pkg-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: legit-pkg\nVersion: 0.1\n"},
		{"legit_pkg-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: agent-ls-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	f, err := os.Create(filepath.Join(dir, wheelName))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	var record strings.Builder
	for _, file := range files {
		w, err := zw.Create(file.name)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := io.WriteString(w, file.body); err != nil {
			tb.Fatal(err)
		}
		sum := sha256.Sum256([]byte(file.body))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", file.name, base64.RawURLEncoding.EncodeToString(sum[:]), len(file.body))
	}
	record.WriteString("legit_pkg-0.1.dist-info/RECORD,,\n")
	w, err := zw.Create("legit_pkg-0.1.dist-info/RECORD")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.WriteString(w, record.String()); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkEverydayWork prints what the sandbox costs on the everyday-work
// table: each row's wall time run plainly and in the default sandbox, one
// after the other in the same run, each in a fresh workspace. It runs the
// table once whatever b.N is (a row takes up to seconds); the numbers are
// printed, never asserted.
func BenchmarkEverydayWork(b *testing.B) {
	requireLandlock(b)
	var table strings.Builder
	fmt.Fprintf(&table, "%-58s %10s %10s %7s\n", "everyday work", "plain", "sandboxed", "ratio")
	var plainTotal, sandboxTotal time.Duration
	for _, row := range legitRows {
		if tool := row.missingTool(); tool != "" {
			fmt.Fprintf(&table, "%-58s %s not installed\n", row.name, tool)
			continue
		}
		plain := timeRow(b, row, func(cwd string, env []string) result { return plainRun(b, cwd, env, row.script) })
		sandboxed := timeRow(b, row, func(cwd string, env []string) result {
			return runIn(b, Policy{Mode: WorkspaceWrite, Cwd: cwd}, env, "sh", "-c", row.script)
		})
		plainTotal += plain
		sandboxTotal += sandboxed
		fmt.Fprintf(&table, "%-58s %9.2fs %9.2fs %6.2fx\n", row.name, plain.Seconds(), sandboxed.Seconds(), sandboxed.Seconds()/plain.Seconds())
	}
	fmt.Fprintf(&table, "%-58s %9.2fs %9.2fs %6.2fx\n", "total", plainTotal.Seconds(), sandboxTotal.Seconds(), sandboxTotal.Seconds()/plainTotal.Seconds())
	// Straight to stdout: the testing package keeps only ten lines of a
	// benchmark's log.
	fmt.Printf("\nwall time of the everyday-work table, plain and in the sandbox (workspace-write, network off):\n%s\n", table.String())
	b.ReportMetric(plainTotal.Seconds(), "plain-s")
	b.ReportMetric(sandboxTotal.Seconds(), "sandboxed-s")
}

// timeRow runs one row in a fresh workspace and returns its wall time; a
// row that fails stops the benchmark, whose numbers would mean nothing.
func timeRow(b *testing.B, row legitRow, run func(cwd string, env []string) result) time.Duration {
	b.Helper()
	cwd, env := row.prepare(b)
	start := time.Now()
	r := run(cwd, env)
	d := time.Since(start)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, row.want) {
		b.Fatalf("%s failed:\n%v", row.name, r)
	}
	return d
}

// plainRun runs script without any sandbox, as the user would.
func plainRun(b *testing.B, cwd string, env []string, script string) result {
	b.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir, cmd.Env = cwd, env
	return collect(b, cmd)
}

// downloadedModule puts example.com/greet into a module cache outside the
// workspace, as `go mod download` does, from a file proxy the test writes,
// and records it in go.sum; the row then builds with that cache read-only
// and no proxy, as with the network off.
func downloadedModule(tb testing.TB, dir string) []string {
	tb.Helper()
	base := filepath.Dir(dir)
	proxy, modcache := filepath.Join(base, "proxy"), filepath.Join(base, "gomodcache")
	v := filepath.Join(proxy, "example.com", "greet", "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		tb.Fatal(err)
	}
	const mod = "module example.com/greet\n\ngo 1.22\n"
	files := map[string]string{
		"list":        "v1.0.0\n",
		"v1.0.0.info": `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`,
		"v1.0.0.mod":  mod,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(v, name), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for name, body := range map[string]string{"go.mod": mod, "greet.go": "package greet\n\nfunc Hello() string { return \"hello from the module cache\" }\n"} {
		w, err := zw.Create("example.com/greet@v1.0.0/" + name)
		if err != nil {
			tb.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v, "v1.0.0.zip"), zipped.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	// -modcacherw only so that the test can remove the cache afterwards.
	cmd := exec.Command("go", "mod", "download", "-modcacherw", "example.com/greet")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOMODCACHE="+modcache, "GOPROXY=file://"+proxy, "GOSUMDB=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go mod download: %v\n%s", err, out)
	}
	return []string{"GOMODCACHE=" + modcache}
}
