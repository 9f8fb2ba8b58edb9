package agent

import (
	"encoding/json"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
)

// webSearchEvent is the webSearch event of a web_search_call item: its
// query and sources from the item's action ({"type": "search", "query",
// "sources": [{"type": "url", "url"}]}), its status from the item's.
func webSearchEvent(id string, it *model.Item) event.WebSearch {
	var action struct {
		Query   string   `json:"query"`
		Queries []string `json:"queries"`
		URL     string   `json:"url"`
		Sources []struct {
			URL   string `json:"url"`
			Title string `json:"title"`
		} `json:"sources"`
	}
	_ = json.Unmarshal(it.Action, &action) // an action of a kind not known shows no query
	ev := event.WebSearch{CallID: id, Query: action.Query, Status: event.WebSearchSearching}
	if ev.Query == "" && len(action.Queries) > 0 {
		ev.Query = action.Queries[0]
	}
	if ev.Query == "" {
		ev.Query = action.URL // an open_page or find_in_page action
	}
	switch it.Status {
	case "completed":
		ev.Status = event.WebSearchCompleted
	case "failed", "incomplete":
		ev.Status = event.WebSearchFailed
	}
	for _, s := range action.Sources {
		if s.URL != "" {
			ev.Sources = append(ev.Sources, event.WebSource{URL: s.URL, Title: s.Title})
		}
	}
	return ev
}
