package event

// TypeWebSearch is a search the model made with the hosted web_search
// tool.
const TypeWebSearch Type = "webSearch"

// Web search statuses.
const (
	WebSearchSearching = "searching"
	WebSearchCompleted = "completed"
	WebSearchFailed    = "failed"
)

// WebSearch is a search the model made with the hosted web_search tool
// (Responses API): the provider ran it; agent-ls shows it.
type WebSearch struct {
	CallID string `json:"callId"`
	Query  string `json:"query"`
	// Status is WebSearchSearching, WebSearchCompleted or
	// WebSearchFailed.
	Status string `json:"status"`
	// Sources are the pages the search read, when the provider lists
	// them.
	Sources []WebSource `json:"sources,omitempty"`
}

// WebSource is one page a web search read.
type WebSource struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

func (WebSearch) EventType() Type { return TypeWebSearch }
