package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// resolve merges the layers, lowest first:
//
//	defaults < user file < project file (narrowing only) < profile <
//	environment < editor settings < flags and -c
func resolve(user, project, env, editor, flags *Layer) (*Resolved, []Problem) {
	var probs []Problem
	def := &Layer{Source: "default", Tree: defaults()}
	var userTree map[string]any
	if user != nil {
		userTree = user.Tree
	}
	// The user file's profiles are read, not merged: the chosen one is a
	// layer of its own.
	userBase := withTree(user, without(userTree, "profiles"))
	base := mergeLayers([]*Layer{def, userBase})

	proj := project
	if project != nil {
		var p []Problem
		proj, p = narrow(project, base.tree)
		probs = append(probs, p...)
	}
	prof, p := profileLayer(user, env, editor, flags)
	probs = append(probs, p...)

	if editor != nil {
		editor = withTree(editor, clone(editor.Tree).(map[string]any))
		probs = append(probs, narrowEditorNetwork(editor, mergeLayers([]*Layer{def, userBase, proj, prof, env}).tree)...)
	}
	layers := []*Layer{def, userBase, proj, prof, env, editor, flags}
	first := mergeLayers(layers)
	id, _ := first.tree["model_provider"].(string)
	for i, l := range layers {
		layers[i] = withProvider(l, id)
	}
	m := mergeLayers(layers)
	if name, ok := m.tree["profile"].(string); ok && prof == nil && name != "" {
		// The profile named does not exist (reported above): don't claim it.
		delete(m.tree, "profile")
	}
	cfg, err := decode(m.tree)
	if err != nil {
		// The layers are checked one by one; this is a combination they
		// allow but Config does not, which is agent-ls's bug.
		return nil, append(probs, Problem{Source: "agent-ls", Message: err.Error()})
	}
	r := &Resolved{Config: *cfg, Sources: m.sources, tree: m.tree}
	for _, l := range []*Layer{user, project} {
		if l != nil {
			r.Files = append(r.Files, l.path)
		}
	}
	prov, ok := cfg.ModelProviders[id]
	if !ok {
		probs = append(probs, Problem{Source: m.sources["model_provider"], Key: "model_provider",
			Message: fmt.Sprintf("no provider %q: define [model_providers.%s] in the user config, or use one of %s", id, quoteKey(id), orList(sortedKeys(cfg.ModelProviders)))})
	}
	r.Provider = prov
	return r, probs
}

func withTree(l *Layer, tree map[string]any) *Layer {
	if l == nil {
		return nil
	}
	c := *l
	c.Tree = tree
	return &c
}

// profileLayer is the chosen profile: named by the highest layer that
// names one (flags, editor settings, environment, the user file).
func profileLayer(user *Layer, above ...*Layer) (*Layer, []Problem) {
	name, from := "", ""
	for _, l := range append([]*Layer{user}, above...) {
		if l == nil {
			continue
		}
		if n, ok := l.Tree["profile"].(string); ok && n != "" {
			name, from = n, l.sourceOf("profile")
		}
	}
	if name == "" {
		return nil, nil
	}
	var profiles map[string]any
	if user != nil {
		profiles, _ = user.Tree["profiles"].(map[string]any)
	}
	tree, ok := profiles[name].(map[string]any)
	if !ok {
		known := "the user config defines none"
		if len(profiles) > 0 {
			known = "the user config defines " + orList(sortedKeys(profiles))
		}
		return nil, []Problem{{Source: from, Key: "profile", Message: fmt.Sprintf("no profile %q (%s as [profiles.NAME])", name, known)}}
	}
	prefix := join("profiles", quoteKey(name))
	lines := map[string]int{}
	for k, v := range user.lines {
		if rest, ok := strings.CutPrefix(k, prefix+"."); ok {
			lines[rest] = v
		} else if k == prefix {
			lines[""] = v
		}
	}
	return &Layer{Source: "profile " + name, Tree: tree, path: user.path, lines: lines}, nil
}

// narrow keeps what a project file may set: a cloned repository may
// choose the model and turn things off, and make the policies stricter
// than the user's, never choose what runs or where data goes.
func narrow(project *Layer, base map[string]any) (*Layer, []Problem) {
	keep := map[string]any{}
	var probs []Problem
	ignore := func(key, why string) {
		probs = append(probs, Problem{Source: project.path, Line: project.lines[key], Key: key, Ignored: true, Message: "ignored: " + why})
	}
	for _, k := range sortedKeys(project.Tree) {
		v := project.Tree[k]
		switch k {
		case "model", "model_reasoning_effort", "model_reasoning_summary", "model_verbosity":
			keep[k] = v
		case "project_doc_max_bytes", "model_context_window", "model_auto_compact_token_limit", "language_query_timeout_ms":
			// Lower is not always narrower: a tiny context window or
			// compaction limit makes every turn summarise away what the
			// user said, a tiny AGENTS.md budget drops the user's own
			// instructions. Limits and timeouts are the user's.
			ignore(k, "only the user's own config may set limits and timeouts")
		case "tools":
			tools := map[string]any{}
			for _, name := range sortedKeys(v.(map[string]any)) {
				if on, _ := v.(map[string]any)[name].(bool); on {
					ignore("tools."+name, "a project file may only turn tools off")
					continue
				}
				tools[name] = false
			}
			keep[k] = tools
		case "approval_policy":
			was, _ := base[k].(string)
			if stricterApproval(policy.ApprovalPolicy(v.(string)), policy.ApprovalPolicy(was)) {
				keep[k] = v
			} else {
				ignore(k, fmt.Sprintf("a project file may only make the approval policy stricter than %q", was))
			}
		case "sandbox_workspace_write":
			if sw := narrowSandbox(base, v.(map[string]any), ignore); len(sw) > 0 {
				keep[k] = sw
			}
		case "sandbox_mode":
			was, _ := base[k].(string)
			if stricterSandbox(policy.SandboxMode(v.(string)), policy.SandboxMode(was)) {
				keep[k] = v
			} else {
				ignore(k, fmt.Sprintf("a project file may only make the sandbox stricter than %q", was))
			}
		default:
			ignore(k, "only the user's own config may set it (a repository must not choose what runs or where data goes)")
		}
	}
	c := *project
	c.Tree = keep
	return &c, probs
}

// stricterApproval reports whether p asks the user at least as often as
// was: untrusted, on-failure, on-request, never, from most to least.
func stricterApproval(p, was policy.ApprovalPolicy) bool {
	return slices.Index(policy.ApprovalPolicies, p) <= slices.Index(policy.ApprovalPolicies, was)
}

// stricterSandbox reports whether m allows at most what was does.
func stricterSandbox(m, was policy.SandboxMode) bool {
	return slices.Index(policy.SandboxModes, m) <= slices.Index(policy.SandboxModes, was)
}

// narrowSandbox keeps what a project file may say in
// [sandbox_workspace_write]: a narrower network setting, and denied_domains,
// which add to the user's own.
func narrowSandbox(base, sw map[string]any, ignore func(key, why string)) map[string]any {
	keep := map[string]any{}
	was := baseSandbox(base).NetworkMode()
	for _, k := range sortedKeys(sw) {
		key := "sandbox_workspace_write." + k
		switch k {
		case "network":
			if m := policy.NetworkMode(sw[k].(string)); policy.NarrowerNetwork(m, was) {
				keep[k] = sw[k]
			} else {
				ignore(key, fmt.Sprintf("a project file may only narrow the network setting (off, ask, on) below %q", was))
			}
		case "denied_domains":
			denied := slices.Clone(baseSandbox(base).DeniedDomains)
			for _, e := range sw[k].([]any) {
				if s, ok := e.(string); ok && !slices.Contains(denied, s) {
					denied = append(denied, s)
				}
			}
			list := make([]any, len(denied))
			for i, d := range denied {
				list[i] = d
			}
			keep[k] = list
		default:
			ignore(key, "only the user's own config may set it (a project file may narrow network and add denied_domains)")
		}
	}
	return keep
}

// baseSandbox is the [sandbox_workspace_write] table of a merged tree.
func baseSandbox(tree map[string]any) SandboxWorkspaceWrite {
	var sw SandboxWorkspaceWrite
	if t, ok := tree["sandbox_workspace_write"].(map[string]any); ok {
		decodeInto(t, &sw)
	}
	return sw
}

// narrowEditorNetwork drops an editor's network setting that would widen
// what the layers below it say: editors may only narrow it.
func narrowEditorNetwork(editor *Layer, below map[string]any) []Problem {
	sw, _ := editor.Tree["sandbox_workspace_write"].(map[string]any)
	s, ok := sw["network"].(string)
	if !ok {
		return nil
	}
	was := baseSandbox(below).NetworkMode()
	if policy.NarrowerNetwork(policy.NetworkMode(s), was) {
		return nil
	}
	delete(sw, "network")
	return []Problem{{Source: editor.Source, Key: "network", Ignored: true,
		Message: fmt.Sprintf("ignored: an editor may only narrow the network setting (off, ask, on) below %q", was)}}
}
