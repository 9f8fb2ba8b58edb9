package agent

import (
	"log/slog"
	"strings"
	"sync"
)

// family is what agent-ls knows about a model from its name: how it takes
// tools and which request settings it accepts. The zero family is the safe
// default for a model agent-ls does not know: apply_patch as a JSON
// function, no reasoning, verbosity or web search settings, context window
// unknown.
type family struct {
	// freeformTools: the model was trained on freeform (custom) tools
	// such as the apply_patch grammar; other models get such tools as
	// JSON functions taking the raw input.
	freeformTools bool
	// reasoningEffort and reasoningSummaries: the model takes a reasoning
	// effort, and a reasoning summary setting.
	reasoningEffort    bool
	reasoningSummaries bool
	// verbosity: the model takes a text verbosity.
	verbosity bool
	// webSearch: the hosted web_search tool may be offered (the Responses
	// API has it; Chat Completions ignores it).
	webSearch bool
	// contextWindow in tokens, 0 when unknown.
	contextWindow int64
	// unifiedExec: Codex gives the model exec_command and write_stdin
	// instead of shell.
	unifiedExec bool
	// requestUserInput: Codex's toolset for the model lists
	// request_user_input, so it is offered in default mode too (in plan
	// mode every model has it).
	requestUserInput bool
	// noImages: the model takes text only, so a prompt with images is
	// refused before the request (unknown models are given them).
	noImages bool
}

// families maps model name prefixes to families; the first match wins, so
// a longer prefix comes before a shorter one it starts with.
var families = []struct {
	prefix string
	family
}{
	{"gpt-5", family{freeformTools: true, reasoningEffort: true, reasoningSummaries: true, verbosity: true, webSearch: true, contextWindow: 272_000, unifiedExec: true, requestUserInput: true}},
	{"codex-", family{freeformTools: true, reasoningEffort: true, reasoningSummaries: true, contextWindow: 200_000, unifiedExec: true, requestUserInput: true}},
	{"o3-mini", family{reasoningEffort: true, reasoningSummaries: true, contextWindow: 200_000, noImages: true}},
	{"o3", family{reasoningEffort: true, reasoningSummaries: true, webSearch: true, contextWindow: 200_000}},
	{"o4-mini", family{reasoningEffort: true, reasoningSummaries: true, webSearch: true, contextWindow: 200_000}},
	{"o1-mini", family{contextWindow: 128_000, noImages: true}},
	{"o1", family{reasoningEffort: true, contextWindow: 200_000}},
	{"gpt-4.1", family{webSearch: true, contextWindow: 1_047_576}},
	{"gpt-4o", family{webSearch: true, contextWindow: 128_000}},
	{"gpt-oss", family{reasoningEffort: true, contextWindow: 131_072, noImages: true}},
	{"gpt-3.5", family{contextWindow: 16_385, noImages: true}},
}

// familyOf returns the family of the model named name, and whether the
// name is known.
func familyOf(name string) (family, bool) {
	n := strings.ToLower(name)
	if i := strings.LastIndexByte(n, '/'); i >= 0 { // "openai/gpt-5" style names
		n = n[i+1:]
	}
	for _, f := range families {
		if strings.HasPrefix(n, f.prefix) {
			fam := f.family
			if strings.Contains(n, "codex") {
				// The -codex variants accept only their default
				// verbosity: sending one is an error.
				fam.verbosity = false
			}
			return fam, true
		}
	}
	return family{}, false
}

// unknownModels holds the names of the unknown models already logged, so
// each is logged once per process, not once per turn.
var unknownModels sync.Map

// familyFor is familyOf that logs, once per process and model name, when
// a model is unknown and gets the defaults.
func familyFor(name string, log *slog.Logger) family {
	fam, known := familyOf(name)
	if !known {
		if _, logged := unknownModels.LoadOrStore(name, true); !logged {
			log.Info("unknown model: apply_patch is offered as a function tool, no reasoning, verbosity or web search settings are sent, the context window is unknown",
				"model", name)
		}
	}
	return fam
}
