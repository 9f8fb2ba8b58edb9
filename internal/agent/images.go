package agent

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// ErrImageInput is the error of a turn whose images cannot be sent: too
// many, too large to shrink, not an image, or a model that takes none.
// It is the caller's mistake, found before any request.
var ErrImageInput = errors.New("agent: image input refused")

// Bounds on the images the user attaches to one prompt. An image over
// MaxImageBytes or MaxImageSide is shrunk when it is a PNG or JPEG (the
// formats the standard library encodes), refused otherwise.
var (
	// MaxImages is how many images one prompt may carry.
	MaxImages = 10
	// MaxImageBytes caps one image's decoded size.
	MaxImageBytes = 5 << 20
	// MaxImageSide caps an image's longer side in pixels: the provider
	// scales larger images down to it anyway, after paying for the bytes.
	MaxImageSide = 2048
)

// boundInput bounds the images of in for the session's model (see
// boundImages); called before the session's lock is taken.
func (s *session) boundInput(in *TurnInput) error {
	if len(in.Images) == 0 {
		return nil
	}
	s.mu.Lock()
	model := s.info.Model
	s.mu.Unlock()
	imgs, err := boundImages(in.Images, model, familyFor(model, s.mgr.log))
	if err != nil {
		return err
	}
	in.Images = imgs
	return nil
}

// boundImages checks the prompt's images against the bounds and the
// model's family, shrinking the PNGs and JPEGs that are too large; it
// returns the images to send.
func boundImages(images []string, model string, fam family) ([]string, error) {
	if len(images) == 0 {
		return nil, nil
	}
	if fam.noImages {
		return nil, fmt.Errorf("%w: the model %s takes no image input; remove the images or choose a model that reads them", ErrImageInput, model)
	}
	if len(images) > MaxImages {
		return nil, fmt.Errorf("%w: %d images attached, at most %d go with one prompt", ErrImageInput, len(images), MaxImages)
	}
	out := make([]string, len(images))
	for i, u := range images {
		b, err := boundImage(u)
		if err != nil {
			return nil, fmt.Errorf("%w: image %d: %w", ErrImageInput, i+1, err)
		}
		out[i] = b
	}
	return out, nil
}

// boundImage returns the data URL u, shrunk when it is too large; URLs
// other than data: ones (https:) go to the provider as they are.
func boundImage(u string) (string, error) {
	if !strings.HasPrefix(u, "data:") {
		return u, nil
	}
	head, payload, ok := strings.Cut(u[len("data:"):], ",")
	mime, isBase64 := strings.CutSuffix(head, ";base64")
	if !ok || !isBase64 {
		return "", errors.New("not a base64 data URL")
	}
	if !strings.HasPrefix(mime, "image/") {
		return "", fmt.Errorf("%q is not an image type", mime)
	}
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", fmt.Errorf("the image is not valid base64: %w", err)
	}
	fits := len(raw) <= MaxImageBytes
	if fits && !tooWide(raw) {
		return u, nil
	}
	small, typ, err := shrinkImage(raw)
	if err != nil {
		if fits {
			return u, nil // too wide but of a format we cannot redraw: the provider scales it
		}
		return "", fmt.Errorf("it is %s, over the limit of %s, and %w", textcut.Size(int64(len(raw))), textcut.Size(int64(MaxImageBytes)), err)
	}
	if len(small) > MaxImageBytes {
		return "", fmt.Errorf("it is %s even at %d pixels on its longer side, over the limit of %s", textcut.Size(int64(len(small))), MaxImageSide, textcut.Size(int64(MaxImageBytes)))
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(small), nil
}

// tooWide reports whether a PNG or JPEG is larger than MaxImageSide on a
// side (reading the header only).
func tooWide(raw []byte) bool {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	return err == nil && max(cfg.Width, cfg.Height) > MaxImageSide
}

// maxRedrawPixels bounds the images shrinkImage decodes: 50 million
// pixels take 200 MB decoded.
const maxRedrawPixels = 50_000_000

// shrinkImage decodes a PNG or JPEG, scales it to MaxImageSide on its
// longer side (no larger than it is) and encodes it again: JPEGs as
// JPEG, PNGs as PNG unless the JPEG of it is smaller than the limit and
// the PNG is not.
func shrinkImage(raw []byte) ([]byte, string, error) {
	// A few kilobytes of PNG can claim a billion pixels; the header says
	// how many before anything is decoded.
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(raw)); err == nil && int64(cfg.Width)*int64(cfg.Height) > maxRedrawPixels {
		return nil, "", fmt.Errorf("it has %d×%d pixels, more than agent-ls redraws (%d million)", cfg.Width, cfg.Height, maxRedrawPixels/1_000_000)
	}
	img, format, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, "", errors.New("only PNG and JPEG images can be shrunk")
	}
	img = scaleDown(img, MaxImageSide)
	var buf bytes.Buffer
	if format == "png" {
		if err := png.Encode(&buf, img); err != nil {
			return nil, "", err
		}
		if buf.Len() <= MaxImageBytes {
			return buf.Bytes(), "image/png", nil
		}
		buf.Reset()
	} else if format != "jpeg" {
		return nil, "", errors.New("only PNG and JPEG images can be shrunk")
	}
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), "image/jpeg", nil
}

// scaleDown returns img scaled so its longer side is at most side pixels,
// each new pixel the average of the source pixels it covers (a box
// filter: the standard library has no scaler).
func scaleDown(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= side {
		return img
	}
	nw, nh := side, h*side/w
	if h > w {
		nw, nh = w*side/h, side
	}
	nw, nh = max(nw, 1), max(nh, 1)
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	for y := range nh {
		y0, y1 := b.Min.Y+y*h/nh, b.Min.Y+max((y+1)*h/nh, y*h/nh+1)
		for x := range nw {
			x0, x1 := b.Min.X+x*w/nw, b.Min.X+max((x+1)*w/nw, x*w/nw+1)
			var r, g, bl, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := img.At(sx, sy).RGBA()
					r, g, bl, a, n = r+uint64(cr), g+uint64(cg), bl+uint64(cb), a+uint64(ca), n+1
				}
			}
			i := dst.PixOffset(x, y)
			dst.Pix[i+0] = uint8(r / n >> 8)
			dst.Pix[i+1] = uint8(g / n >> 8)
			dst.Pix[i+2] = uint8(bl / n >> 8)
			dst.Pix[i+3] = uint8(a / n >> 8)
		}
	}
	return dst
}

// MaxImageFileBytes caps the size of an image file read for a prompt: a
// larger PNG or JPEG is shrunk afterwards (boundImages), but a file this
// large is not read at all.
const MaxImageFileBytes = 50 << 20

// ImageFile reads the image file at path as the data URL a TurnInput
// carries; its type is judged by its content, then by its name.
func ImageFile(path string) (string, error) {
	// Stat before open: opening a FIFO would wait for a writer.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > MaxImageFileBytes {
		return "", fmt.Errorf("%s is %s, over the limit of %s", path, textcut.Size(st.Size()), textcut.Size(MaxImageFileBytes))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxImageFileBytes+1))
	if err != nil {
		return "", err
	}
	typ := http.DetectContentType(b)
	if !strings.HasPrefix(typ, "image/") {
		typ = mime.TypeByExtension(filepath.Ext(path))
	}
	if !strings.HasPrefix(typ, "image/") {
		return "", fmt.Errorf("%s is not an image", path)
	}
	typ, _, _ = strings.Cut(typ, ";")
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}
