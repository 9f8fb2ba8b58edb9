package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// Changer applies file changes for the tools that make them, all or
// nothing, through the editor where there is one, and reports them to the
// user. The agent implements it per turn.
type Changer interface {
	Apply(ctx context.Context, callID string, cs *workspace.ChangeSet) error
}

// changeFiles runs the common path of every file-changing tool: approval,
// then application. It returns the output for the model.
func changeFiles(ctx context.Context, env *Env, call *Call, cs *workspace.ChangeSet, success string) (Output, error) {
	if env.Approver == nil || env.Changes == nil {
		return Output{Text: "rejected: files cannot be changed in this session", Failed: true, Rejected: true}, nil
	}
	// Each path is resolved once, here: the approval decides on the real
	// targets, and the write goes exactly there (FileChange.Real).
	var paths []string
	var targets []policy.Target
	for i := range cs.Changes {
		c := &cs.Changes[i]
		t := env.Boundary.Target(c.Path)
		c.Real = t.Real
		paths, targets = append(paths, c.Path), append(targets, t)
		if c.NewPath != "" {
			t := env.Boundary.Target(c.NewPath)
			c.NewReal = t.Real
			paths, targets = append(paths, c.NewPath), append(targets, t)
		}
	}
	add, del := cs.Stats()
	d, err := env.Approver.Patch(ctx, PatchRequest{CallID: call.CallID, Paths: paths, Targets: targets,
		Diff: cs.Diff(env.Cwd), Additions: add, Deletions: del, Summary: cs.Label})
	if err != nil {
		return Output{}, err
	}
	if !d.Allowed {
		return Output{Text: "patch " + d.Reason, Failed: true, Rejected: true}, nil
	}
	var reviewed *workspace.ReviewedError
	if err := env.Changes.Apply(ctx, call.CallID, cs); errors.As(err, &reviewed) && reviewed.Applied {
		// The user reviewed the change and some of it was applied (cs
		// holds what was): the model learns what and what not.
		success += "\n\n" + reviewed.Report
	} else if err != nil {
		if out, ok := changeFailed(err); ok {
			return out, nil
		}
		return Output{}, err
	}
	for _, p := range workspace.NotOnDisk(cs) {
		success += fmt.Sprintf("\nNote: %s has unsaved changes in the editor, so the change is in the editor but not yet on disk; commands see the saved version until the user saves.", p)
	}
	return Output{Text: success}, nil
}

// changeFailed words, for the model, a change the workspace did not make
// or could not confirm: the error states what happened, this adds what to
// do next. ok is false for errors that are not about the change itself.
func changeFailed(err error) (out Output, ok bool) {
	var rej *workspace.RejectedError
	var changed *workspace.ChangedError
	var unconfirmed *workspace.UnconfirmedError
	var reviewed *workspace.ReviewedError
	switch {
	case errors.As(err, &reviewed):
		// The user's review: the report says what they decided and what
		// to do next.
		return Output{Text: reviewed.Report, Failed: true, Rejected: true}, true
	case errors.As(err, &rej) && rej.Declined:
		// The user's decision, like a rejected approval: not a conflict
		// to redo.
		return Output{Text: err.Error() + ". Do not make the same change again unasked: ask the user what they want instead",
			Failed: true, Rejected: true}, true
	case errors.As(err, &rej):
		return Output{Text: err.Error() + ". The user may have edited the file meanwhile: read the file again and redo the change",
			Failed: true, Rejected: true}, true
	case errors.As(err, &changed):
		return Output{Text: err.Error() + ": read it again and redo the change", Failed: true, Rejected: true}, true
	case errors.As(err, &unconfirmed):
		// The editor may well hold the change: redoing it blindly could
		// apply it twice.
		return Output{Text: err.Error() + "\nRead these files again before relying on the change; redo it where they still hold the old text.",
			Failed: true}, true
	}
	return Output{}, false
}

// resolve makes a path from the model absolute, relative to the session's
// working directory.
func resolve(env *Env, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Cwd, path)
	}
	return filepath.Clean(path)
}

// currentContent reads a file as the user sees it; nil, nil when it does
// not exist.
func currentContent(env *Env, abs string) ([]byte, error) {
	data, err := env.files().ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}
