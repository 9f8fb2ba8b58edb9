package acp

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// diffBlocks turns the unified diff the agent shows people (workspace's
// one renderer: git-style, three lines of context) into ACP diff content,
// one block per hunk: oldText is the hunk's context and removed lines,
// newText its context and added lines, so a client shows the change
// where it lies. A file the diff creates has no old text (on the wire
// "oldText": null, the protocol's "new file": see nullOldText); paths are made absolute against cwd. The agent's events
// carry the diff, not whole files, which keeps a turn's events and the
// session's record small; a hunk is what a reviewer reads anyway.
func diffBlocks(diff, cwd string) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	var path string
	var created bool
	var oldB, newB strings.Builder
	inHunk := false
	emit := func() {
		if !inHunk || path == "" {
			return
		}
		d := &sdk.ToolCallContentDiff{Type: "diff", Path: path, NewText: newB.String()}
		if !created {
			old := oldB.String()
			d.OldText = &old
		}
		out = append(out, sdk.ToolCallContent{Diff: d})
		oldB.Reset()
		newB.Reset()
		inHunk = false
	}
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			emit()
			from := strings.TrimSpace(strings.TrimPrefix(l, "--- "))
			to := strings.TrimSpace(strings.TrimPrefix(lines[i+1], "+++ "))
			i++
			created = from == "/dev/null"
			name := to
			if to == "/dev/null" {
				name = from
			}
			path = absPath(strings.TrimPrefix(strings.TrimPrefix(name, "a/"), "b/"), cwd)
		case strings.HasPrefix(l, "@@"):
			emit()
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			newB.WriteString(l[1:])
		case strings.HasPrefix(l, "-"):
			oldB.WriteString(l[1:])
		case strings.HasPrefix(l, " "):
			oldB.WriteString(l[1:])
			newB.WriteString(l[1:])
		case l == "\n" || l == "":
			// a context line whose one space was lost, or the end
		case strings.HasPrefix(l, `\`):
			// "\ No newline at end of file": the line before has none
			trimLastNewline(&oldB)
			trimLastNewline(&newB)
		}
	}
	emit()
	return out
}

func trimLastNewline(b *strings.Builder) {
	s := b.String()
	if strings.HasSuffix(s, "\n") {
		b.Reset()
		b.WriteString(s[:len(s)-1])
	}
}

func absPath(p, cwd string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// diffMarker is how a diff block's type reads in an outbound message (the
// SDK writes compact JSON; inside a string the quotes would be escaped).
var diffMarker = []byte(`"type":"diff"`)

// nullOldText gives each diff block without an oldText in the message msg
// (one JSON line) an explicit "oldText": null, the protocol's mark of a
// new file. The SDK's type drops the field instead (omitempty), and a
// client that tests for null (`oldText === null`) would take the block
// for an edit of an empty file. Messages with no diff block, nearly all,
// are returned as they are; so is one that is not JSON. Diff blocks are
// where the SDK puts them (a session/update's content, a permission
// request's tool call); the text of a block is not decoded, and the new
// field is spliced in beside the block's own, so a created file of many
// megabytes costs a scan of the message, not a rebuild of it.
func nullOldText(msg []byte) []byte {
	if !bytes.Contains(msg, diffMarker) {
		return msg
	}
	var m struct {
		Params struct {
			Update struct {
				Content []json.RawMessage `json:"content"`
			} `json:"update"`
			ToolCall struct {
				Content []json.RawMessage `json:"content"`
			} `json:"toolCall"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	var out []byte
	from := 0 // where in msg the next block is looked for
	for _, b := range append(m.Params.Update.Content, m.Params.ToolCall.Content...) {
		// A key read in the raw block is a key: in a string its quotes
		// would be escaped.
		if !bytes.Contains(b, diffMarker) || bytes.Contains(b, []byte(`"oldText":`)) {
			continue
		}
		at := bytes.Index(msg[from:], b)
		if at < 0 {
			continue
		}
		at += from
		// The SDK writes a block's keys in order (newText, oldText, path,
		// type): the field goes before the block's own "path", which no
		// string in it can imitate (its quotes would be escaped).
		insert := bytes.LastIndex(b, []byte(`,"path":`))
		if insert < 0 {
			insert = 1 // after the brace
		} else {
			insert++ // after the comma
		}
		out = append(out, msg[from:at+insert]...)
		out = append(out, `"oldText":null,`...)
		from = at + insert
	}
	if out == nil {
		return msg
	}
	return append(out, msg[from:]...)
}
