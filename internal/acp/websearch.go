package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/event"
)

// webSearchUpdate shows a search of the hosted web_search tool as a fetch
// tool call, with the pages it read as its content.
func webSearchUpdate(p event.WebSearch) *sdk.SessionUpdate {
	status := sdk.ToolCallStatusInProgress
	switch p.Status {
	case event.WebSearchCompleted:
		status = sdk.ToolCallStatusCompleted
	case event.WebSearchFailed:
		status = sdk.ToolCallStatusFailed
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(sdk.ToolKindFetch), sdk.WithStartStatus(status),
		sdk.WithStartRawInput(map[string]any{"query": p.Query})}
	if len(p.Sources) > 0 {
		var b strings.Builder
		for _, s := range p.Sources {
			b.WriteString("- " + s.URL)
			if s.Title != "" {
				b.WriteString(" (" + s.Title + ")")
			}
			b.WriteString("\n")
		}
		opts = append(opts, sdk.WithStartContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(b.String()))}))
	}
	title := "Web search"
	if p.Query != "" {
		title += ": " + p.Query
	}
	// A search shows when it begins (searching, no query yet) and again,
	// under the same id, when it ends.
	return sdk.Ptr(sdk.StartToolCall(sdk.ToolCallId(p.CallID), title, opts...))
}
