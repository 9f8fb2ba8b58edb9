package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// Bounds on what one call gives the model.
const (
	maxImages     = 8
	maxImageBytes = 10 << 20 // decoded
)

// imageTypes are the image formats the model APIs take.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// resultOutput turns a tool's result into what the model reads: text as
// it is, images as image input, resources and links as text with their
// URI, anything else named; an isError result is a failed output. Data
// that is not valid base64 fails the call: the server's answer is
// broken, not the connection.
func resultOutput(res *callToolResult, limit int) (tools.Output, error) {
	var out tools.Output
	var parts []string
	for i, c := range res.Content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "image":
			raw, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				return tools.Output{}, fmt.Errorf("the image in content block %d of the answer is not valid base64: %w", i+1, err)
			}
			parts = append(parts, image(&out, c.MIMEType, raw))
		case "audio":
			parts = append(parts, fmt.Sprintf("[audio (%s) left out: the model is not given audio]", c.MIMEType))
		case "resource_link":
			s := "[resource link] " + c.URI
			if c.Name != "" {
				s += " (" + c.Name + ")"
			}
			if c.Description != "" {
				s += ": " + c.Description
			}
			parts = append(parts, s)
		case "resource":
			s, err := resource(&out, c.Resource)
			if err != nil {
				return tools.Output{}, fmt.Errorf("the resource in content block %d of the answer: %w", i+1, err)
			}
			parts = append(parts, s)
		default:
			parts = append(parts, fmt.Sprintf("[content of type %q left out]", textcut.Cut(c.Type, 100)))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out.Text = strings.Join(parts, "\n")
	if len(out.Text) > limit {
		out.Text = textcut.Prefix(out.Text, limit) + fmt.Sprintf("\n[output cut at %d of %d bytes]", limit, len(out.Text))
	}
	if res.IsError {
		out.Failed = true
		if out.Text == "" {
			out.Text = "the tool reported an error without saying what"
		}
	}
	return out, nil
}

// image adds an image for the model and returns the text that stands
// for it; raw is the image's bytes, decoded from the wire's base64.
func image(out *tools.Output, mime string, raw []byte) string {
	mime = strings.ToLower(strings.TrimSpace(mime))
	if !imageTypes[mime] {
		return fmt.Sprintf("[image of type %q left out: the model takes PNG, JPEG, GIF and WebP]", mime)
	}
	if len(out.Images) == maxImages {
		return fmt.Sprintf("[image left out: at most %d images per call]", maxImages)
	}
	if len(raw) > maxImageBytes {
		return fmt.Sprintf("[image left out: larger than %d MiB]", maxImageBytes>>20)
	}
	if len(raw) == 0 {
		return "[image left out: it has no data]"
	}
	out.Images = append(out.Images, "data:"+mime+";base64,"+base64.StdEncoding.EncodeToString(raw))
	return fmt.Sprintf("[image %d: %s, %d bytes]", len(out.Images), mime, len(raw))
}

func resource(out *tools.Output, r *resourceContents) (string, error) {
	switch {
	case r == nil:
		return "[resource left out]", nil
	case r.Blob != nil:
		blob, err := base64.StdEncoding.DecodeString(*r.Blob)
		if err != nil {
			return "", fmt.Errorf("its blob is not valid base64: %w", err)
		}
		if strings.HasPrefix(r.MIMEType, "image/") {
			return "[resource " + r.URI + "] " + image(out, r.MIMEType, blob), nil
		}
		return fmt.Sprintf("[resource %s: %s, %d bytes of binary data left out]", r.URI, r.MIMEType, len(blob)), nil
	}
	return "[resource " + r.URI + "]\n" + r.Text, nil
}
