package agent

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

// pngURL is the data URL of a w×h PNG of noise-free stripes.
func pngURL(t *testing.T, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

func decodeURL(t *testing.T, u string) image.Config {
	t.Helper()
	_, payload, _ := strings.Cut(u, ",")
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestBoundImages(t *testing.T) {
	gpt5, _ := familyOf("gpt-5")
	small := pngURL(t, 10, 4)
	got, err := boundImages([]string{small, "https://example.com/a.png"}, "gpt-5", gpt5)
	if err != nil || len(got) != 2 || got[0] != small || got[1] != "https://example.com/a.png" {
		t.Fatalf("small images changed: %v %v", got, err)
	}

	// Too wide: shrunk to MaxImageSide on its longer side, proportions kept.
	got, err = boundImages([]string{pngURL(t, 3000, 1500)}, "gpt-5", gpt5)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := decodeURL(t, got[0]); cfg.Width != MaxImageSide || cfg.Height != MaxImageSide/2 {
		t.Errorf("shrunk to %dx%d", cfg.Width, cfg.Height)
	}

	// Too many, a model without image input, not an image, too large and
	// of a format that cannot be redrawn: refused before any request.
	many := make([]string, MaxImages+1)
	for i := range many {
		many[i] = small
	}
	oss, _ := familyOf("gpt-oss:20b")
	bigGIF := "data:image/gif;base64," + base64.StdEncoding.EncodeToString(append([]byte("GIF89a"), make([]byte, MaxImageBytes)...))
	for _, tt := range []struct {
		name   string
		images []string
		model  string
		fam    family
		want   string
	}{
		{"count", many, "gpt-5", gpt5, "at most 10"},
		{"family", []string{small}, "gpt-oss:20b", oss, "gpt-oss:20b takes no image input"},
		{"type", []string{"data:text/plain;base64,aGk="}, "gpt-5", gpt5, "not an image type"},
		{"gif", []string{bigGIF}, "gpt-5", gpt5, "only PNG and JPEG images can be shrunk"},
	} {
		_, err := boundImages(tt.images, tt.model, tt.fam)
		if !errors.Is(err, ErrImageInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrImageInput saying %q", tt.name, err, tt.want)
		}
	}
}

func TestScaleDownAverages(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 4, 2))
	copy(img.Pix, []byte{0, 255, 100, 100, 255, 0, 100, 100})
	got := scaleDown(img, 2).(*image.RGBA)
	if b := got.Bounds(); b.Dx() != 2 || b.Dy() != 1 {
		t.Fatalf("bounds %v", b)
	}
	if r := got.RGBAAt(0, 0).R; r != 127 {
		t.Errorf("left pixel %d, want the average 127", r)
	}
	if r := got.RGBAAt(1, 0).R; r != 100 {
		t.Errorf("right pixel %d, want 100", r)
	}
}

// pngBomb is a PNG whose header claims w×h pixels, padded past
// MaxImageBytes with a text chunk, its pixel data a few bytes: decoding
// it would allocate w×h×4 bytes before reading them.
func pngBomb(w, h uint32) string {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		out.WriteString(typ)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)
	chunk("IHDR", append(ihdr, 8, 6, 0, 0, 0)) // 8-bit RGBA
	chunk("tEXt", append([]byte("pad\x00"), bytes.Repeat([]byte("x"), MaxImageBytes)...))
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 64))
	zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(out.Bytes())
}

// TestImageBombRefused: a PNG over the size limit that claims 10 billion
// pixels is refused from its header, never decoded.
func TestImageBombRefused(t *testing.T) {
	gpt5, _ := familyOf("gpt-5")
	_, err := boundImages([]string{pngBomb(100_000, 100_000)}, "gpt-5", gpt5)
	if !errors.Is(err, ErrImageInput) || !strings.Contains(err.Error(), "100000×100000 pixels, more than agent-ls redraws") {
		t.Fatalf("%v", err)
	}
}
