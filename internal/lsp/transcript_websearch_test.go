package lsp

import (
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// TestTranscriptWebSearch: the transcript writes a web search once, at
// its end, with its query; its start (searching, no query) is left out.
func TestTranscriptWebSearch(t *testing.T) {
	var b strings.Builder
	writeEvent(&b, event.Event{Payload: event.WebSearch{CallID: "ws1", Status: event.WebSearchSearching}})
	if b.Len() != 0 {
		t.Errorf("the start of a search wrote %q", b.String())
	}
	writeEvent(&b, event.Event{Payload: event.WebSearch{CallID: "ws1", Query: "go 1.25 release", Status: event.WebSearchCompleted}})
	if got, want := b.String(), "- Web search: go 1.25 release (completed)\n\n"; got != want {
		t.Errorf("transcript %q, want %q", got, want)
	}
}
