package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// writePNG writes a w×h PNG to dir/name and returns its path and bytes.
func writePNG(t *testing.T, dir, name string, w, h int) (string, []byte) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 3), 90, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

// requestImages returns the image URLs of a model request's user
// messages, in either wire format.
func requestImages(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Input    []map[string]any `json:"input"`
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, m := range append(req.Input, req.Messages...) {
		parts, _ := m["content"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			switch part["type"] {
			case "input_image":
				urls = append(urls, part["image_url"].(string))
			case "image_url":
				urls = append(urls, part["image_url"].(map[string]any)["url"].(string))
			}
		}
	}
	return urls
}

// TestExecImagesReachTheModel: exec -i, repeated, sends each file's bytes
// as an input image (Responses) or an image_url part (Chat Completions);
// an image wider than the bound arrives shrunk, still a PNG.
func TestExecImagesReachTheModel(t *testing.T) {
	for _, wire := range []string{"responses", "chat"} {
		t.Run(wire, func(t *testing.T) {
			m := fakemodel.New(fakemodel.Say("a red square"))
			defer m.Close()
			dir := t.TempDir()
			small, raw := writePNG(t, dir, "shot.png", 16, 8)
			wide, _ := writePNG(t, dir, "wide.png", 4096, 64)
			var stderr bytes.Buffer
			cmd := execCmd(t, m, "-i", small, "-i", wide, "what is this?")
			cmd.Env = append(cmd.Env, "AGENT_LS_WIRE_API="+wire)
			cmd.Stderr = &stderr
			if code := exitCode(cmd.Run()); code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
			}
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			urls := requestImages(t, reqs[0].Body)
			if len(urls) != 2 {
				t.Fatalf("images in the request: %d", len(urls))
			}
			if want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(raw); urls[0] != want {
				t.Errorf("the first image is not the file's bytes: %.80s…", urls[0])
			}
			payload, ok := strings.CutPrefix(urls[1], "data:image/png;base64,")
			if !ok {
				t.Fatalf("the wide image: %.40s…", urls[1])
			}
			b, _ := base64.StdEncoding.DecodeString(payload)
			cfg, err := png.DecodeConfig(bytes.NewReader(b))
			if err != nil || cfg.Width != 2048 || cfg.Height != 32 {
				t.Errorf("the wide image arrived %dx%d (%v), want 2048x32", cfg.Width, cfg.Height, err)
			}
		})
	}
}

// TestExecImageRefusedBeforeTheRequest: a model that takes no images, and
// a file that is no image, fail with a message and no model request.
func TestExecImageRefusedBeforeTheRequest(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("never"))
	defer m.Close()
	dir := t.TempDir()
	shot, _ := writePNG(t, dir, "shot.png", 4, 4)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("just text"), 0o644)

	var stderr bytes.Buffer
	cmd := execCmd(t, m, "-i", shot, "look")
	cmd.Env = append(cmd.Env, "AGENT_LS_MODEL=gpt-oss:20b")
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 1 || !strings.Contains(stderr.String(), "the model gpt-oss:20b takes no image input") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
	stderr.Reset()
	cmd = execCmd(t, m, "-i", notes, "look")
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 2 || !strings.Contains(stderr.String(), "notes.txt is not an image") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if n := len(m.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// TestACPImageBlockReachesTheModel: an ACP image content block arrives
// as an input image with the block's bytes.
func TestACPImageBlockReachesTheModel(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("a gradient"))
	t.Cleanup(m.Close)
	_, raw := writePNG(t, t.TempDir(), "shot.png", 12, 12)
	data := base64.StdEncoding.EncodeToString(raw)
	r := startACP(t, m, t.TempDir(), t.TempDir(), &acpClient{})
	r.initialize(false)
	id := r.newSession()
	res, err := r.conn.Prompt(r.ctx, sdk.PromptRequest{SessionId: sdk.SessionId(id), Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is this?"), sdk.ImageBlock(data, "image/png")}})
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if urls := requestImages(t, reqs[0].Body); len(urls) != 1 || urls[0] != "data:image/png;base64,"+data {
		t.Errorf("images in the request: %d", len(urls))
	}
}
