package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/patch"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

var (
	//go:embed apply_patch.md
	applyPatchDescription string
	//go:embed apply_patch.lark
	applyPatchGrammar string
)

// ApplyPatch edits files with the patch format coding models are trained
// on (and unified diffs). It is a freeform tool for models that know the
// grammar; the agent offers it as a function taking `input` to others.
type ApplyPatch struct{}

func (ApplyPatch) Spec() Spec {
	return Spec{Type: Custom, Name: "apply_patch", Description: applyPatchDescription,
		GrammarSyntax: "lark", Grammar: applyPatchGrammar}
}

func (ApplyPatch) Kind() event.ToolKind { return event.KindEdit }
func (ApplyPatch) Mutating(*Call) bool  { return true }

func (ApplyPatch) Title(call *Call) string {
	text, _ := patchInput(call)
	var files []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(line, h); ok {
				files = append(files, f)
			}
		}
	}
	switch len(files) {
	case 0:
		return "Edit files"
	case 1:
		return "Edit " + files[0]
	}
	return fmt.Sprintf("Edit %s and %d more", files[0], len(files)-1)
}

// patchInput is the patch text of a freeform call, or the `input`
// argument of a function call.
func patchInput(call *Call) (string, error) {
	if call.Type == Custom {
		return call.Input, nil
	}
	var a struct {
		Input string `json:"input"`
	}
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return "", fmt.Errorf("apply_patch: invalid arguments: %w", err)
	}
	return a.Input, nil
}

func (ApplyPatch) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	text, err := patchInput(call)
	if err != nil {
		return Output{}, err
	}
	reader := patch.ReaderFunc(func(path string) ([]byte, error) {
		data, err := currentContent(env, resolve(env, path))
		if err == nil && data == nil {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		return data, err
	})
	changes, err := patch.ApplyText(text, reader)
	if err != nil {
		var pe *patch.ParseError
		if errors.As(err, &pe) {
			return Output{Text: "apply_patch verification failed: " + err.Error(), Failed: true}, nil
		}
		var ae *patch.ApplyError
		if errors.As(err, &ae) || errors.Is(err, patch.ErrNoChanges) {
			return Output{Text: "apply_patch verification failed: " + err.Error(), Failed: true}, nil
		}
		return Output{}, fmt.Errorf("apply_patch: %w", err)
	}
	cs := &workspace.ChangeSet{Label: "agent-ls: " + ApplyPatch{}.Title(call)}
	for _, c := range changes {
		fc := workspace.FileChange{Path: resolve(env, c.Path), OldContent: c.OldContent, NewContent: c.NewContent}
		switch {
		case c.Kind == patch.Add:
			fc.Kind = workspace.Add
		case c.Kind == patch.Delete:
			fc.Kind = workspace.Delete
		case c.MovePath != "":
			fc.Kind, fc.NewPath = workspace.Move, resolve(env, c.MovePath)
		default:
			fc.Kind = workspace.Update
		}
		cs.Changes = append(cs.Changes, fc)
	}
	return changeFiles(ctx, env, call, cs, changes.Summary())
}
