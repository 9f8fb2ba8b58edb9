package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// Reviewer shows each change set to the user before it is applied
// (protocol section 5.3). A frontend whose client reviews changes gives
// one in Options.Reviewer; without one, changes are applied as the model
// made them. Everything else of a review is the agent's: the proposal
// event, numbering the hunks, checking the answer, applying the accepted
// hunks and telling the model.
type Reviewer interface {
	// ReviewChanges shows req to the user and returns the answer. ctx
	// ends when the turn is interrupted; then, or on an error, nothing of
	// the change is applied.
	ReviewChanges(ctx context.Context, req *ReviewRequest) (*ReviewAnswer, error)
}

// Review decisions.
const (
	ReviewAccept = "accept"
	ReviewReject = "reject"
)

// ReviewRequest is a change set proposed to the user (the params of
// agent/requestReview).
type ReviewRequest struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	CallID    string `json:"callId"`
	// Changes are the files, in the order of Diff.
	Changes []ReviewFile `json:"changes"`
	// Diff is the unified diff of the whole change, file after file.
	Diff string `json:"diff"`
}

// ReviewFile is one file of a proposed change: the entry of the
// fileChange event, and how many hunks its section of the diff has (a
// file with none, such as a move that keeps the content, has no
// section).
type ReviewFile struct {
	event.FileChangeEntry
	Hunks int `json:"hunks"`
}

// ReviewAnswer is the user's answer to a ReviewRequest.
type ReviewAnswer struct {
	// Decision (ReviewAccept or ReviewReject) holds for every hunk Hunks
	// does not name, and for files without hunks.
	Decision string         `json:"decision"`
	Hunks    []HunkDecision `json:"hunks,omitempty"`
	// Comment is what the user wrote to the agent, if anything.
	Comment string `json:"comment,omitempty"`
}

// HunkDecision accepts or rejects hunk Index (from 0, in the order of the
// diff) of the file URI (as the request named it).
type HunkDecision struct {
	URI    string `json:"uri"`
	Index  int    `json:"index"`
	Accept bool   `json:"accept"`
}

// reviewed is a change set after the user's review.
type reviewed struct {
	// accepted is what goes ahead: the files with at least one accepted
	// hunk, each reduced to its accepted hunks.
	accepted []workspace.FileChange
	// report tells the model what happened, "" when the user accepted
	// everything and said nothing.
	report string
}

// review proposes cs to the user through r and reads the answer. An
// error means nothing is to be applied: the turn ended (ctx's error) or a
// *workspace.ReviewedError that says why for the model.
func (t *turn) review(ctx context.Context, r Reviewer, callID string, cs *workspace.ChangeSet) (*reviewed, error) {
	cwd := t.s.info.Cwd
	req := &ReviewRequest{SessionID: t.s.info.SessionID, TurnID: t.id, CallID: callID, Diff: cs.Diff(cwd)}
	for _, fc := range cs.Changes {
		req.Changes = append(req.Changes, ReviewFile{FileChangeEntry: changeEntry(fc), Hunks: fc.HunkCount()})
	}
	prop := event.FileChange{CallID: callID, Status: event.ChangeProposed, Diff: req.Diff}
	for _, f := range req.Changes {
		prop.Changes = append(prop.Changes, f.FileChangeEntry)
	}
	t.emit(prop)

	t.attention(Attention{Waiting: true, What: "review"})
	ans, err := r.ReviewChanges(ctx, req)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		t.s.mgr.log.Warn("the change could not be reviewed", "session", t.s.info.SessionID, "call", callID, "err", err)
		return nil, &workspace.ReviewedError{Report: fmt.Sprintf("rejected: the change could not be shown to the user for review (%v); nothing was changed", err)}
	}
	rv, err := decide(cs, ans, cwd)
	if err != nil {
		t.s.mgr.log.Warn("the editor's review answer is invalid", "session", t.s.info.SessionID, "call", callID, "err", err)
		return nil, &workspace.ReviewedError{Report: fmt.Sprintf("rejected: the editor's answer to the review of this change was invalid (%v); nothing was changed", err)}
	}
	return rv, nil
}

// decide applies the answer to cs: which files and hunks go ahead, and
// the words for the model. An answer that names a file or hunk the
// request did not have, names one twice or has no valid decision is an
// error: nothing of cs goes ahead then.
func decide(cs *workspace.ChangeSet, ans *ReviewAnswer, cwd string) (*reviewed, error) {
	if ans == nil {
		return nil, errors.New("no answer")
	}
	if ans.Decision != ReviewAccept && ans.Decision != ReviewReject {
		return nil, fmt.Errorf("decision %q is neither %q nor %q", ans.Decision, ReviewAccept, ReviewReject)
	}
	spans, counts := numberHunks(cs)
	answers, err := hunkAnswersOf(ans, counts)
	if err != nil {
		return nil, err
	}
	var o reviewOutcome
	for i, fc := range cs.Changes {
		o.add(cwd, fc, spans[i], answers)
	}
	return &reviewed{accepted: o.accepted, report: o.report(strings.TrimSpace(ans.Comment))}, nil
}

// hunkSpan is where a file change's hunks are in the numbering of its
// file URI: from first, n of them.
type hunkSpan struct{ first, n int }

// numberHunks numbers the hunks of cs per file URI, on through the diff
// should a file appear twice: where each change's hunks are, and how many
// each URI has.
func numberHunks(cs *workspace.ChangeSet) ([]hunkSpan, map[string]int) {
	spans := make([]hunkSpan, len(cs.Changes))
	counts := map[string]int{}
	for i, fc := range cs.Changes {
		u := fileURI(fc.Path)
		spans[i] = hunkSpan{counts[u], fc.HunkCount()}
		counts[u] += spans[i].n
	}
	return spans, counts
}

// hunkKey names hunk index of the file uri, as a review answer does.
type hunkKey struct {
	uri   string
	index int
}

// hunkAnswers are a review's answers: per hunk where the answer names
// it, the answer's decision elsewhere.
type hunkAnswers struct {
	hunks map[hunkKey]bool
	def   bool
}

// hunkAnswersOf checks the hunks ans names against counts (the hunks of
// each file URI) and reads them.
func hunkAnswersOf(ans *ReviewAnswer, counts map[string]int) (hunkAnswers, error) {
	answers := map[hunkKey]bool{}
	for _, h := range ans.Hunks {
		n, known := counts[h.URI]
		switch {
		case !known:
			return hunkAnswers{}, fmt.Errorf("hunk %d of %s: the change has no such file", h.Index, h.URI)
		case h.Index < 0 || h.Index >= n:
			return hunkAnswers{}, fmt.Errorf("hunk %d of %s: the file has %d hunk(s), numbered from 0", h.Index, h.URI, n)
		}
		k := hunkKey{h.URI, h.Index}
		if _, twice := answers[k]; twice {
			return hunkAnswers{}, fmt.Errorf("hunk %d of %s is answered twice", h.Index, h.URI)
		}
		answers[k] = h.Accept
	}
	return hunkAnswers{hunks: answers, def: ans.Decision == ReviewAccept}, nil
}

// accept says whether hunk index of the file uri is accepted.
func (ha hunkAnswers) accept(uri string, index int) bool {
	if a, ok := ha.hunks[hunkKey{uri, index}]; ok {
		return a
	}
	return ha.def
}

// reviewOutcome gathers, file by file, what a review lets go ahead and
// what the model is to be told.
type reviewOutcome struct {
	accepted      []workspace.FileChange
	lines         []string // a line per file for the model
	rejectedDiffs strings.Builder
	anyRejected   bool
}

// add applies answers to fc, whose hunks are sp in its URI's numbering.
func (o *reviewOutcome) add(cwd string, fc workspace.FileChange, sp hunkSpan, answers hunkAnswers) {
	u := fileURI(fc.Path)
	accept := func(h int) bool { return answers.accept(u, sp.first+h) }
	name := relName(cwd, fc)
	kept, ok := fc.WithHunks(accept, answers.def)
	if ok {
		o.accepted = append(o.accepted, kept)
	}
	hunkDiffs := fc.HunkDiffs(cwd)
	var yes, no []string
	for h := range sp.n {
		if accept(h) {
			yes = append(yes, hunkHeader(hunkDiffs[h]))
		} else {
			no = append(no, hunkHeader(hunkDiffs[h]))
			o.rejectedDiffs.WriteString(hunkDiffs[h])
		}
	}
	switch {
	case !ok:
		o.anyRejected = true
		o.lines = append(o.lines, fmt.Sprintf("- %s: rejected, %s", name, unchanged(fc.Kind)))
	case len(no) == 0:
		o.lines = append(o.lines, fmt.Sprintf("- %s: accepted", name))
	default:
		o.anyRejected = true
		o.lines = append(o.lines, fmt.Sprintf("- %s: accepted hunk(s) %s; rejected hunk(s) %s (not applied)", name,
			strings.Join(yes, ", "), strings.Join(no, ", ")))
	}
}

// report is what the model is told of the review, with the user's
// comment; "" when the user accepted everything and said nothing.
func (o *reviewOutcome) report(comment string) string {
	var b strings.Builder
	switch {
	case len(o.accepted) == 0:
		b.WriteString("rejected: the user reviewed this change and rejected all of it; nothing was changed.")
	case !o.anyRejected && comment == "":
		return ""
	case !o.anyRejected:
		b.WriteString("The user reviewed this change and accepted all of it.")
	default:
		b.WriteString("The user reviewed this change and accepted only part of it; the files hold the accepted part only:\n")
		b.WriteString(strings.Join(o.lines, "\n"))
		if o.rejectedDiffs.Len() > 0 {
			b.WriteString("\nThe rejected hunks, as proposed:\n")
			b.WriteString(strings.TrimRight(o.rejectedDiffs.String(), "\n"))
		}
	}
	if comment != "" {
		b.WriteString("\nThe user's comment: " + comment)
	}
	switch {
	case len(o.accepted) == 0 && comment != "":
		b.WriteString("\nDo as the comment says; do not make the rejected change again unasked.")
	case len(o.accepted) == 0:
		b.WriteString("\nDo not make the same change again unasked: ask the user what they want instead.")
	case o.anyRejected:
		b.WriteString("\nDo not make the rejected hunks again unasked.")
	}
	return b.String()
}

// unchanged says what rejecting a whole file leaves.
func unchanged(k workspace.ChangeKind) string {
	switch k {
	case workspace.Add:
		return "not created"
	case workspace.Delete:
		return "not deleted"
	case workspace.Move:
		return "neither moved nor changed"
	}
	return "not changed"
}

// hunkHeader is the @@ line of a one-hunk diff.
func hunkHeader(diff string) string {
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "@@") {
			return l
		}
	}
	return "?"
}

// relName names a change's file for the model, as the diff does.
func relName(cwd string, fc workspace.FileChange) string {
	if fc.Kind == workspace.Move {
		return relPath(cwd, fc.Path) + " → " + relPath(cwd, fc.NewPath)
	}
	return relPath(cwd, fc.Path)
}

func fileURI(path string) string { return string(uri.File(path)) }

// changeEntry is a file change as events name it.
func changeEntry(fc workspace.FileChange) event.FileChangeEntry {
	e := event.FileChangeEntry{URI: fileURI(fc.Path), Kind: changeKinds[fc.Kind]}
	if fc.Kind == workspace.Move {
		e.NewURI = fileURI(fc.NewPath)
	}
	e.Additions, e.Deletions = fc.Stats()
	return e
}
