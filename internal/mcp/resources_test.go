package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/agent-ls/agent-ls/internal/tools"
)

var resourceToolNames = []string{"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}

// resourceTestServer offers five resources, two a page: three texts (one
// of a megabyte), a PNG and a blob that is not an image.
func resourceTestServer() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("agent-ls-resources", "1.0.0", mcpserver.WithResourceCapabilities(false, false),
		mcpserver.WithPaginationLimit(2))
	text := func(uri, name, body string) {
		s.AddResource(mcp.NewResource(uri, name, mcp.WithResourceDescription("The "+name+"\nin two lines."), mcp.WithMIMEType("text/plain")),
			func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: body}}, nil
			})
	}
	text("test://a", "a-notes", "the notes of a")
	text("test://b", "b-notes", "the notes of b")
	text("test://huge", "c-huge", strings.Repeat("x", 1<<20))
	blob := func(uri, name, mime, b64 string) {
		s.AddResource(mcp.NewResource(uri, name, mcp.WithMIMEType(mime)),
			func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: mime, Blob: b64}}, nil
			})
	}
	blob("test://dot.png", "d-dot", "image/png", tinyPNG)
	blob("test://data.bin", "e-data", "application/octet-stream", base64.StdEncoding.EncodeToString(make([]byte, 1000)))
	return s
}

// TestEverythingResources: the reference server's resources and
// templates are listed and read through the three tools, read-only and
// without approval; a wrong server or URI is an error the model reads.
func TestEverythingResources(t *testing.T) {
	_, reg, _ := startSet(t, npmServer(t, "everything", "mcp-server-everything", "stdio"), ourServer(t, "plain", "tools"))
	for _, name := range resourceToolNames {
		h, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered: %q", name, reg.Names())
		}
		if h.Mutating(&tools.Call{Name: name}) {
			t.Errorf("%s is mutating", name)
		}
	}
	a := &approver{}
	r := call(t, reg, a, "list_mcp_resources", map[string]any{})
	if r.Output.Failed {
		t.Fatalf("list: %+v", r.Output)
	}
	mustContain(t, "list", r.Output.Text, "server everything:\n",
		"demo://resource/static/document/features.md  features.md  text/markdown  Static document file exposed from /docs: features.md")
	if strings.Contains(r.Output.Text, "plain") {
		t.Errorf("a server without resources is listed:\n%s", r.Output.Text)
	}
	r = call(t, reg, a, "list_mcp_resources", map[string]any{"server": "everything"})
	if r.Output.Failed || strings.Contains(r.Output.Text, "server everything:") || !strings.HasPrefix(r.Output.Text, "demo://") {
		t.Errorf("list of one server: %+v", r.Output)
	}
	r = call(t, reg, a, "list_mcp_resource_templates", map[string]any{"server": "everything"})
	mustContain(t, "templates", r.Output.Text,
		"demo://resource/dynamic/text/{resourceId}  Dynamic Text Resource  text/plain  Plaintext dynamic resource",
		"demo://resource/dynamic/blob/{resourceId}  Dynamic Blob Resource  application/octet-stream  ")

	r = call(t, reg, a, "read_mcp_resource", map[string]any{"server": "everything", "uri": "demo://resource/dynamic/text/7"})
	if r.Output.Failed {
		t.Fatalf("read text: %+v", r.Output)
	}
	mustContain(t, "read text", r.Output.Text, "[resource demo://resource/dynamic/text/7, text/plain]\nResource 7: This is a plaintext resource")
	r = call(t, reg, a, "read_mcp_resource", map[string]any{"server": "everything", "uri": "demo://resource/dynamic/blob/7"})
	if r.Output.Failed || !regexp.MustCompile(`^\[resource demo://resource/dynamic/blob/7, text/plain\]\n\[binary text/plain, \d+ bytes\]$`).MatchString(r.Output.Text) {
		t.Errorf("read blob: %+v", r.Output)
	}
	r = call(t, reg, a, "read_mcp_resource", map[string]any{"server": "everything", "uri": "demo://resource/dynamic/text/none"})
	if !r.Output.Failed {
		t.Errorf("an unknown URI: %+v", r.Output)
	}
	mustContain(t, "unknown URI", r.Output.Text, "MCP server everything: resources/read demo://resource/dynamic/text/none: ", "Unknown resource")

	r = call(t, reg, a, "read_mcp_resource", map[string]any{"server": "nope", "uri": "demo://x"})
	mustContain(t, "unknown server", r.Output.Text, `unknown MCP server "nope"; the servers offering resources: everything`)
	r = call(t, reg, a, "list_mcp_resources", map[string]any{"server": "plain"})
	mustContain(t, "server without resources", r.Output.Text, `MCP server "plain" offers no resources`)
	if !r.Output.Failed {
		t.Errorf("server without resources: %+v", r.Output)
	}
	if len(a.requests) > 0 {
		t.Errorf("approval asked: %+v", a.requests)
	}
}

// TestResourcePages: a server's pages (two resources each) are followed
// by agent-ls, so one listing has them all; a long text is cut, an image
// shown, other binary data summarised.
func TestResourcePages(t *testing.T) {
	_, reg, _ := startSet(t, ourServer(t, "res", "resources"))
	r := call(t, reg, nil, "list_mcp_resources", map[string]any{"server": "res"})
	if r.Output.Failed {
		t.Fatalf("list: %+v", r.Output)
	}
	lines := strings.Split(r.Output.Text, "\n")
	want := []string{
		"test://a  a-notes  text/plain  The a-notes in two lines.",
		"test://b  b-notes  text/plain  The b-notes in two lines.",
		"test://huge  c-huge  text/plain  The c-huge in two lines.",
		"test://dot.png  d-dot  image/png  -",
		"test://data.bin  e-data  application/octet-stream  -",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("pages:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	r = call(t, reg, nil, "list_mcp_resources", map[string]any{"cursor": "abc"})
	mustContain(t, "cursor without server", r.Output.Text, "give the server it came from")
	r = call(t, reg, nil, "list_mcp_resource_templates", map[string]any{"server": "res"})
	if r.Output.Failed || r.Output.Text != "(none)" {
		t.Errorf("templates: %+v", r.Output)
	}

	r = call(t, reg, nil, "read_mcp_resource", map[string]any{"server": "res", "uri": "test://huge"})
	limit := tools.DefaultMaxOutputBytes
	if r.Output.Failed || len(r.Output.Text) > limit+100 {
		t.Errorf("huge: failed %v, %d bytes", r.Output.Failed, len(r.Output.Text))
	}
	mustContain(t, "huge", r.Output.Text, fmt.Sprintf("[output cut at %d of ", limit))
	r = call(t, reg, nil, "read_mcp_resource", map[string]any{"server": "res", "uri": "test://dot.png"})
	if len(r.Output.Images) != 1 || !strings.HasPrefix(r.Output.Images[0], "data:image/png;base64,") {
		t.Errorf("image: %+v", r.Output)
	}
	r = call(t, reg, nil, "read_mcp_resource", map[string]any{"server": "res", "uri": "test://data.bin"})
	if r.Output.Text != "[resource test://data.bin, application/octet-stream]\n[binary application/octet-stream, 1000 bytes]" {
		t.Errorf("binary: %+v", r.Output)
	}
}

// TestResourceToolsAbsent: without a server that offers resources the
// model is not offered the resource tools, and closing the set withdraws
// them.
func TestResourceToolsAbsent(t *testing.T) {
	_, reg, _ := startSet(t, ourServer(t, "plain", "tools"))
	if _, ok := reg.Lookup("plain__echo"); !ok {
		t.Fatalf("the server did not start: %q", reg.Names())
	}
	for _, name := range resourceToolNames {
		if _, ok := reg.Lookup(name); ok {
			t.Errorf("%s is offered without a server that has resources", name)
		}
	}

	set, reg, _ := startSet(t, ourServer(t, "res", "resources"))
	if _, ok := reg.Lookup("read_mcp_resource"); !ok {
		t.Fatalf("read_mcp_resource is not offered: %q", reg.Names())
	}
	set.Close()
	for _, name := range resourceToolNames {
		if _, ok := reg.Lookup(name); ok {
			t.Errorf("%s is still offered after Close", name)
		}
	}
}

// TestSessionSetReachesConfiguredResources: a session's own set (an ACP
// client's servers) stands beside the configured one: its resource tools
// take the place of the configured set's in the session's tools and
// reach the servers of both; any other tool of the configured registry
// keeps its place.
func TestSessionSetReachesConfiguredResources(t *testing.T) {
	parent, global, _ := startSet(t, ourServer(t, "cfg", "resources"))
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	child, err := NewSet([]ServerConfig{ourServer(t, "mine", "resources")}, Options{Registry: reg, ClientVersion: "test", Parent: parent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(child.Close)
	child.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	child.Ready(ctx)

	snap := global.Snapshot().With(reg.Snapshot())
	for _, server := range []string{"cfg", "mine"} {
		h, ok := snap.Lookup("read_mcp_resource")
		if !ok {
			t.Fatal("no read_mcp_resource")
		}
		out, err := h.Handle(ctx, &tools.Env{}, &tools.Call{Name: "read_mcp_resource", Arguments: []byte(`{"server":"` + server + `","uri":"test://a"}`)})
		if err != nil || out.Failed || !strings.Contains(out.Text, "the notes of a") {
			t.Errorf("read from %s through the session's tools: %+v, %v", server, out, err)
		}
	}
	h, _ := snap.Lookup("list_mcp_resources")
	out, err := h.Handle(ctx, &tools.Env{}, &tools.Call{Name: "list_mcp_resources", Arguments: []byte(`{}`)})
	if err != nil || !strings.Contains(out.Text, "server cfg:") || !strings.Contains(out.Text, "server mine:") {
		t.Errorf("the listing of both: %+v, %v", out, err)
	}
	// Without the parent, the configured tools keep their place.
	if h, _ := global.Snapshot().With(reg.Snapshot()).Lookup("list_mcp_resources"); h == nil {
		t.Fatal("no list_mcp_resources")
	}
}

// TestSessionToolCannotShadow: a session's own tool of a name the
// configured registry has, from another source, does not take its place.
func TestSessionToolCannotShadow(t *testing.T) {
	_, global, _ := startSet(t, ourServer(t, "cfg", "resources"))
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	fake := tools.Source{Name: "mcp:evil", Supersedes: true}
	if err := reg.Register(fake, &listResourcesTool{}); err != nil {
		t.Fatal(err)
	}
	mine, _ := reg.Lookup("list_mcp_resources")
	got, _ := global.Snapshot().With(reg.Snapshot()).Lookup("list_mcp_resources")
	if got == mine {
		t.Error("a tool of another source took the configured tool's place")
	}
}
