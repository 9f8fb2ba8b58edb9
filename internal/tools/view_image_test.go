package tools

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestViewImage(t *testing.T) {
	env, _ := testEnv(t)
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var pngBuf, jpgBuf, gifBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpgBuf, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gifBuf, img, nil); err != nil {
		t.Fatal(err)
	}
	webp := "RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"
	writeFiles(t, env.Cwd, map[string]string{
		"a.png":          pngBuf.String(),
		"photo.dat":      jpgBuf.String(), // detected by content, not name
		"anim.gif":       gifBuf.String(),
		"pic.webp":       webp,
		"fake.png":       "%PDF-1.4 not an image",
		"big/ünï.png":    pngBuf.String(),
		"notes/plan.txt": "hello",
	})
	tests := []struct {
		path, mime string
		data       []byte
		fail       string
	}{
		{path: "a.png", mime: "image/png", data: pngBuf.Bytes()},
		{path: "photo.dat", mime: "image/jpeg", data: jpgBuf.Bytes()},
		{path: "anim.gif", mime: "image/gif", data: gifBuf.Bytes()},
		{path: "pic.webp", mime: "image/webp", data: []byte(webp)},
		{path: "big/ünï.png", mime: "image/png", data: pngBuf.Bytes()},
		{path: "fake.png", fail: "view_image: fake.png is not a PNG, JPEG, GIF or WebP image (detected: application/pdf)"},
		{path: "notes/plan.txt", fail: "view_image: notes/plan.txt is not a PNG, JPEG, GIF or WebP image (detected: text/plain; charset=utf-8)"},
		{path: "notes", fail: "view_image: notes is a directory"},
		{path: "nope.png", fail: "view_image: nope.png: no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			out := callTool(t, ViewImage{}, env, map[string]any{"path": tc.path})
			if tc.fail != "" {
				if !out.Failed || out.Text != tc.fail {
					t.Fatalf("got %+v, want failure %q", out, tc.fail)
				}
				return
			}
			if out.Failed || len(out.Images) != 1 {
				t.Fatalf("got %+v", out)
			}
			want := "data:" + tc.mime + ";base64," + base64.StdEncoding.EncodeToString(tc.data)
			if out.Images[0] != want {
				t.Errorf("image = %.60q…, want %.60q…", out.Images[0], want)
			}
			if !strings.Contains(out.Text, tc.mime) {
				t.Errorf("text %q does not name %s", out.Text, tc.mime)
			}
		})
	}
}

func TestViewImageSizeCap(t *testing.T) {
	env, _ := testEnv(t)
	old := MaxImageBytes
	MaxImageBytes = 1 << 10
	defer func() { MaxImageBytes = old }()
	data := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2<<10)...)
	if err := os.WriteFile(filepath.Join(env.Cwd, "big.png"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := callTool(t, ViewImage{}, env, map[string]any{"path": "big.png"})
	if !out.Failed || out.Text != "view_image: big.png is 2056 bytes, over the limit of 1024 bytes" || len(out.Images) != 0 {
		t.Errorf("got %+v", out)
	}
}
