package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

//go:embed write_file.md
var writeFileDescription string

// WriteFile creates or replaces a whole file, through the same change path
// as apply_patch.
type WriteFile struct{}

var writeFileSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The file to write, relative to the working directory."},
    "content": {"type": "string", "description": "The file's complete new content."}
  },
  "required": ["file_path", "content"],
  "additionalProperties": false
}`)

type writeFileArgs struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

func (WriteFile) Spec() Spec {
	return Spec{Type: Function, Name: "write_file", Description: writeFileDescription, Parameters: writeFileSchema}
}

func (WriteFile) Kind() event.ToolKind { return event.KindEdit }
func (WriteFile) Mutating(*Call) bool  { return true }

func (WriteFile) Title(call *Call) string {
	var a writeFileArgs
	if json.Unmarshal(call.Arguments, &a) != nil || a.FilePath == "" {
		return "Write a file"
	}
	return "Write " + a.FilePath
}

func (WriteFile) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a writeFileArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("write_file: invalid arguments: %w", err)
	}
	if a.FilePath == "" {
		return Output{}, fmt.Errorf("write_file: `file_path` is empty")
	}
	abs := resolve(env, a.FilePath)
	old, err := currentContent(env, abs)
	if err != nil {
		return Output{}, fmt.Errorf("write_file: %w", err)
	}
	fc := workspace.FileChange{Kind: workspace.Add, Path: abs, OldContent: old, NewContent: []byte(a.Content)}
	letter := "A"
	if old != nil {
		fc.Kind, letter = workspace.Update, "M"
		if string(old) == a.Content {
			return Output{Text: fmt.Sprintf("%s already has this content; nothing to do.", a.FilePath)}, nil
		}
	}
	cs := &workspace.ChangeSet{Label: "agent-ls: write " + a.FilePath, Changes: []workspace.FileChange{fc}}
	return changeFiles(ctx, env, call, cs, fmt.Sprintf("Success. Updated the following files:\n%s %s", letter, a.FilePath))
}
