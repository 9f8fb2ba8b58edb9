package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

//go:embed view_image.md
var viewImageDescription string

// ViewImage attaches a local image to the conversation as a data URL.
type ViewImage struct{}

// MaxImageBytes caps the raw size of an image view_image sends.
var MaxImageBytes int64 = 20 << 20

var viewImageSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "The image file, relative to the working directory or absolute."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)

func (ViewImage) Spec() Spec {
	return Spec{Type: Function, Name: "view_image", Description: viewImageDescription, Parameters: viewImageSchema}
}

func (ViewImage) Kind() event.ToolKind { return event.KindRead }
func (ViewImage) Mutating(*Call) bool  { return false }

type viewImageArgs struct {
	Path string `json:"path"`
}

func (ViewImage) Title(call *Call) string {
	var a viewImageArgs
	_ = json.Unmarshal(call.Arguments, &a)
	return "View image " + a.Path
}

func (ViewImage) Handle(_ context.Context, env *Env, call *Call) (Output, error) {
	var a viewImageArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("view_image: invalid arguments: %w", err)
	}
	t, err := resolvePath(env, a.Path)
	if err != nil {
		return Output{}, fmt.Errorf("view_image: %w", err)
	}
	var data []byte
	if doc, ok := env.files().Document(t.Abs); ok {
		data = []byte(doc.Text)
	} else {
		f, fi, err := workspace.OpenRegular(t.Abs)
		var nr *workspace.NotRegularError
		switch {
		case errors.As(err, &nr) && nr.Mode.IsDir():
			return Output{}, fmt.Errorf("view_image: %s is a directory", t.Display)
		case errors.As(err, &nr):
			return Output{}, fmt.Errorf("view_image: %s is %s, not an image file; it was not read", t.Display, workspace.KindOf(nr.Mode))
		case err != nil:
			return Output{}, fmt.Errorf("view_image: %s: %w", t.Display, plainErr(err))
		}
		defer f.Close()
		if fi.Size() > MaxImageBytes {
			return Output{}, fmt.Errorf("view_image: %s is %s, over the limit of %s", t.Display, textcut.Size(fi.Size()), textcut.Size(MaxImageBytes))
		}
		// Read at most one byte over the cap: the file may grow.
		data, err = io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
		if err != nil {
			return Output{}, fmt.Errorf("view_image: %s: %w", t.Display, err)
		}
	}
	if int64(len(data)) > MaxImageBytes {
		return Output{}, fmt.Errorf("view_image: %s is over the limit of %s", t.Display, textcut.Size(MaxImageBytes))
	}
	mime := imageType(data)
	if mime == "" {
		return Output{}, fmt.Errorf("view_image: %s is not a PNG, JPEG, GIF or WebP image (detected: %s)", t.Display, http.DetectContentType(data))
	}
	url := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
	return Output{Text: fmt.Sprintf("Image %s (%s, %s) attached.", t.Display, mime, textcut.Size(int64(len(data)))), Images: []string{url}}, nil
}

// imageType returns the MIME type of the image formats the model accepts,
// judged by their magic numbers, or "".
func imageType(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		return "image/webp"
	}
	return ""
}
