package model

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "write testdata/wire from what openai-go sends")

// captureTransport keeps the body of the one request it sees and fails it.
type captureTransport struct{ body []byte }

var errCaptured = errors.New("captured")

func (c *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.body, _ = io.ReadAll(r.Body)
	return nil, errCaptured
}

// openaiGoBody is the body openai-go sends for req on wire, or the error
// that stops it.
func openaiGoBody(t *testing.T, req *Request, wire string) ([]byte, error) {
	ct := &captureTransport{}
	err := openaiGoSend(req, wire, &http.Client{Transport: ct})
	if ct.body == nil {
		return nil, err
	}
	return ct.body, nil
}

// The golden files hold what openai-go sent.
func TestGoldenIsWhatOpenAIGoSent(t *testing.T) {
	for _, tc := range wireCases() {
		for _, wire := range []string{WireResponses, WireChat} {
			body, err := openaiGoBody(t, tc.req, wire)
			if *updateGolden {
				_ = os.MkdirAll(filepath.Join("testdata", "wire"), 0o755)
				_ = os.Remove(goldenPath(tc.name, wire, ".err"))
				_ = os.Remove(goldenPath(tc.name, wire, ".json"))
				if err != nil {
					if werr := os.WriteFile(goldenPath(tc.name, wire, ".err"), []byte(err.Error()+"\n"), 0o644); werr != nil {
						t.Fatal(werr)
					}
					continue
				}
				if werr := os.WriteFile(goldenPath(tc.name, wire, ".json"), append(body, '\n'), 0o644); werr != nil {
					t.Fatal(werr)
				}
				continue
			}
			if want, rerr := os.ReadFile(goldenPath(tc.name, wire, ".err")); rerr == nil {
				if err == nil || err.Error() != strings.TrimSpace(string(want)) {
					t.Errorf("%s/%s: openai-go: error %v, want %s", tc.name, wire, err, want)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s/%s: openai-go: %v", tc.name, wire, err)
				continue
			}
			want, rerr := os.ReadFile(goldenPath(tc.name, wire, ".json"))
			if rerr != nil {
				t.Fatal(rerr)
			}
			if string(body)+"\n" != string(want) {
				t.Errorf("%s/%s: openai-go sent\n%s\ngolden\n%s", tc.name, wire, body, want)
			}
		}
	}
}

// BenchmarkRequestBodyOpenAIGo is BenchmarkRequestBody through openai-go,
// for comparison.
func BenchmarkRequestBodyOpenAIGo(b *testing.B) {
	req := typicalRequest()
	for _, wire := range []string{WireResponses, WireChat} {
		b.Run(wire, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if wire == WireChat {
					p, perr := chatParams(req)
					if perr != nil {
						b.Fatal(perr)
					}
					_, err = json.Marshal(p)
				} else {
					p, perr := responsesParams(req)
					if perr != nil {
						b.Fatal(perr)
					}
					_, err = json.Marshal(p)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
