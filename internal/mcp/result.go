package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
// URI, audio named; an isError result is a failed output. (Data that is
// not valid base64, or content of a type MCP does not define, fails the
// call before: the SDK cannot read such an answer.)
func resultOutput(res *sdk.CallToolResult, limit int) tools.Output {
	var out tools.Output
	var parts []string
	text := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			text = true
		case *sdk.ImageContent:
			parts = append(parts, image(&out, c.MIMEType, c.Data))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s) left out: the model is not given audio]", c.MIMEType))
		case *sdk.ResourceLink:
			s := "[resource link] " + c.URI
			if c.Name != "" {
				s += " (" + c.Name + ")"
			}
			if c.Description != "" {
				s += ": " + c.Description
			}
			parts = append(parts, s)
		case *sdk.EmbeddedResource:
			parts = append(parts, resource(&out, c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[content of type %T left out]", c))
		}
	}
	// A tool that returns structured content gives its JSON in a text
	// block too, as the spec asks; one that does not is given the JSON
	// (structured.go).
	if !text && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out.Text = strings.Join(parts, "\n")
	out.Text = cutText(out.Text, limit)
	if res.IsError {
		out.Failed = true
		if out.Text == "" {
			out.Text = "the tool reported an error without saying what"
		}
	}
	return out
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

func resource(out *tools.Output, r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource left out]"
	case r.Blob != nil:
		if strings.HasPrefix(r.MIMEType, "image/") {
			return "[resource " + r.URI + "] " + image(out, r.MIMEType, r.Blob)
		}
		return fmt.Sprintf("[resource %s: %s, %d bytes of binary data left out]", r.URI, r.MIMEType, len(r.Blob))
	}
	return "[resource " + r.URI + "]\n" + r.Text
}
