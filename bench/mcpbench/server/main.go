// Command server is the MCP server mcpbench starts: a stdio server of the
// official Go SDK offering a number of small tools, so that what is
// measured is the client's side, not a server's start-up (a Node
// reference server alone takes hundreds of milliseconds).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

func main() {
	n := flag.Int("tools", 20, "how many tools to offer")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	for i := range *n {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("echo_%d", i), Description: "Echoes its text."},
			func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
			})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
