package app

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExecInputMentions(t *testing.T) {
	dir := t.TempDir()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"notes.txt":    []byte("remember the milk\n"),
		"shot.png":     img.Bytes(),
		"fake.png":     []byte("not a picture"),
		"sub/deep.go":  []byte("package sub\n"),
		"binary.dat":   {0, 1, 2},
		"big.txt":      bytes.Repeat([]byte("x"), maxMentionFileBytes+1),
		"with space.x": []byte("never mentioned whole"),
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs := filepath.Join(dir, "sub", "deep.go")
	prompt := "read @notes.txt, then @sub/deep.go and @" + abs + " (again); see @shot.png and @fake.png; not @sub, @missing.go, @binary.dat, @big.txt, mail@example.com or @ alone; @notes.txt twice"
	var stderr bytes.Buffer
	in := execInput(prompt, dir, &stderr)
	if in.Prompt != prompt {
		t.Errorf("the prompt changed: %q", in.Prompt)
	}
	var got []string
	for _, c := range in.Context {
		got = append(got, strings.TrimPrefix(c.Path, dir+"/")+"="+c.Text)
	}
	if want := "notes.txt=remember the milk\n|sub/deep.go=package sub\n"; strings.Join(got, "|") != want {
		t.Errorf("context %q, want %q", strings.Join(got, "|"), want)
	}
	if len(in.Images) != 1 || in.Images[0] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(img.Bytes()) {
		t.Errorf("images %d: %.60v", len(in.Images), in.Images)
	}
	for _, want := range []string{"fake.png: not an image", "binary.dat is not text", "big.txt is over 256 KiB"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}
