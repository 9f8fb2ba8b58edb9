package agent

import "strings"

// family is what agent-ls knows about a model from its name.
type family struct {
	// reasoning models take reasoning effort and summary settings.
	reasoning bool
	// freeformTools: the model was trained on freeform (custom) tools
	// such as the apply_patch grammar.
	freeformTools bool
	// contextWindow in tokens, 0 when unknown.
	contextWindow int64
}

func familyOf(name string) family {
	n := strings.ToLower(name)
	if i := strings.LastIndexByte(n, '/'); i >= 0 { // "openai/gpt-5" style names
		n = n[i+1:]
	}
	switch {
	case strings.HasPrefix(n, "gpt-5"), strings.HasPrefix(n, "codex-"):
		return family{reasoning: true, freeformTools: true, contextWindow: 272_000}
	case strings.HasPrefix(n, "o3"), strings.HasPrefix(n, "o4"), strings.HasPrefix(n, "o1"):
		return family{reasoning: true, contextWindow: 200_000}
	case strings.HasPrefix(n, "gpt-4.1"):
		return family{contextWindow: 1_047_576}
	case strings.HasPrefix(n, "gpt-oss"):
		return family{reasoning: true, contextWindow: 131_072}
	}
	return family{}
}
