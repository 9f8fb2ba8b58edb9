package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/tools"
)

var apiName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	for _, tc := range []struct{ server, tool, want string }{
		{"github", "create_issue", "github__create_issue"},
		{"my.server", "read file", "my_server__read_file"},
		{"db", "query/users", "db__query_users"},
		{"ünï", "tööl", "_n___t__l"},
	} {
		got := ToolName(tc.server, tc.tool)
		if tc.want != "" && got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
		if !apiName.MatchString(got) {
			t.Errorf("ToolName(%q, %q) = %q, not a name the APIs take", tc.server, tc.tool, got)
		}
	}
	a, b := ToolName("srv", long), ToolName("srv", long+"y")
	if len(a) != MaxToolNameLen || len(b) != MaxToolNameLen || a == b || !apiName.MatchString(a) {
		t.Errorf("long names %q and %q", a, b)
	}
	if a != ToolName("srv", long) {
		t.Error("a long name is not stable")
	}
}

// TestNamesUnique: tools whose plain names collide (across servers, or
// after sanitizing) get distinct names, kept while they are offered.
func TestNamesUnique(t *testing.T) {
	n := newNames()
	first := n.name(toolKey{"a.b", "t"})
	second := n.name(toolKey{"a_b", "t"})
	third := n.name(toolKey{"a", "b__t"})
	if first != "a_b__t" || second == first || third == first || third == second {
		t.Errorf("names %q %q %q", first, second, third)
	}
	for _, s := range []string{first, second, third} {
		if !apiName.MatchString(s) {
			t.Errorf("%q is not a name the APIs take", s)
		}
	}
	if again := n.name(toolKey{"a_b", "t"}); again != second {
		t.Errorf("name changed: %q then %q", second, again)
	}
	n.release("a.b", nil)
	if got := n.name(toolKey{"x", "y"}); got != "x__y" {
		t.Errorf("fresh name %q", got)
	}
}

func TestServerEnv(t *testing.T) {
	environ := []string{"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "OPENAI_API_KEY=sk-x", "GITHUB_TOKEN=ghp", "AWS_SECRET_ACCESS_KEY=a", "EDITOR=vi"}
	got := ServerEnv(environ, map[string]string{"GITHUB_TOKEN": "given", "PATH": "/opt/bin"})
	slices.Sort(got)
	want := []string{"GITHUB_TOKEN=given", "HOME=/home/u", "LANG=C.UTF-8", "PATH=/opt/bin"}
	if !slices.Equal(got, want) {
		t.Errorf("env %q, want %q", got, want)
	}
}

// decodeResult decodes a tools/call result as the client does.
func decodeResult(t *testing.T, raw string) *sdk.CallToolResult {
	t.Helper()
	var res sdk.CallToolResult
	if err := json.Unmarshal([]byte(raw), &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

func TestResultOutput(t *testing.T) {
	png, err := base64.StdEncoding.DecodeString(tinyPNG)
	if err != nil {
		t.Fatal(err)
	}
	res := decodeResult(t, `{"content": [
		{"type": "text", "text": "first"},
		{"type": "resource", "resource": {"uri": "file:///a.txt", "text": "contents of a"}},
		{"type": "resource", "resource": {"uri": "file:///b.bin", "mimeType": "application/zip", "blob": "AAAA"}},
		{"type": "resource_link", "uri": "https://example.com/doc", "name": "doc", "description": "the doc"},
		{"type": "audio", "mimeType": "audio/wav", "data": "AAAA"},
		{"type": "image", "mimeType": "image/svg+xml", "data": "AAAA"},
		{"type": "image", "mimeType": "image/png"},
		{"type": "image", "mimeType": "image/png", "data": "`+tinyPNG+`"}
	]}`)
	out := resultOutput(res, 1<<20)
	want := strings.Join([]string{
		"first",
		"[resource file:///a.txt]\ncontents of a",
		"[resource file:///b.bin: application/zip, 3 bytes of binary data left out]",
		"[resource link] https://example.com/doc (doc): the doc",
		"[audio (audio/wav) left out: the model is not given audio]",
		`[image of type "image/svg+xml" left out: the model takes PNG, JPEG, GIF and WebP]`,
		"[image left out: it has no data]",
		"[image 1: image/png, 70 bytes]",
	}, "\n")
	if out.Text != want || len(out.Images) != 1 || out.Failed {
		t.Errorf("output:\n%s\nwant:\n%s\nimages %d failed %v", out.Text, want, len(out.Images), out.Failed)
	}
	if len(png) != 70 || out.Images[0] != "data:image/png;base64,"+tinyPNG {
		t.Errorf("image %q", out.Images)
	}

	big := resultOutput(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("é", 100)}}, IsError: true}, 51)
	if !big.Failed || !strings.HasPrefix(big.Text, strings.Repeat("é", 25)+"\n[output cut at 51 of 200 bytes]") {
		t.Errorf("cut output: %+v", big)
	}
	structured := resultOutput(decodeResult(t, `{"content": [], "structuredContent": {"temperature": 21}}`), 100)
	if structured.Text != `{"temperature":21}` {
		t.Errorf("structured: %q", structured.Text)
	}
	empty := resultOutput(&sdk.CallToolResult{IsError: true}, 100)
	if !empty.Failed || empty.Text == "" {
		t.Errorf("empty error: %+v", empty)
	}
	many := &sdk.CallToolResult{}
	for range maxImages + 2 {
		many.Content = append(many.Content, &sdk.ImageContent{MIMEType: "image/png", Data: png})
	}
	if out := resultOutput(many, 1<<20); len(out.Images) != maxImages || !strings.Contains(out.Text, fmt.Sprintf("at most %d images", maxImages)) {
		t.Errorf("many images: %d, %s", len(out.Images), out.Text)
	}
	// Data that is not base64, and content of a type MCP does not define,
	// cannot be read: the call fails with what is wrong, as the server's
	// answer (the connection is fine).
	for _, raw := range []string{
		`{"content": [{"type": "text", "text": "ok"}, {"type": "image", "mimeType": "image/png", "data": "not base64!"}]}`,
		`{"content": [{"type": "resource", "resource": {"uri": "file:///x", "blob": "not base64!"}}]}`,
		`{"content": [{"type": "hologram", "data": "?"}]}`,
		`{"content": [{"type": "hologram"}]}`,
	} {
		var res sdk.CallToolResult
		err := json.Unmarshal([]byte(raw), &res)
		if err == nil || !answered(err) || isTransportError(err) {
			t.Errorf("%s: %v", raw, err)
		} else {
			t.Logf("%s: %v", raw, err)
		}
	}
}

func TestStderrTail(t *testing.T) {
	var tl tail
	for i := range stderrLines + 5 {
		fmt.Fprintf(&tl, "line %d\r\n", i)
	}
	tl.Write([]byte(strings.Repeat("z", 2*stderrLineMax)))
	got := tl.Lines()
	if len(got) != stderrLines || got[0] != "line 6" || got[len(got)-2] != fmt.Sprintf("line %d", stderrLines+4) || len(got[len(got)-1]) != stderrLineMax {
		t.Errorf("tail %q", got)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []ServerConfig{
		{Name: "x"},
		{Name: "x", Command: "a", URL: "http://b"},
		{Name: "x", URL: "ftp://b"},
		{Command: "a"},
		{Name: "x", URL: "http://b", Transport: "websocket"},
		{Name: "x", Command: "a", Transport: TransportSSE},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v passed", c)
		}
	}
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSet([]ServerConfig{{Name: "a", Command: "x"}, {Name: "a", Command: "y"}}, Options{Registry: reg}); err == nil || !strings.Contains(err.Error(), "configured twice") {
		t.Errorf("two servers named a: %v", err)
	}
}
