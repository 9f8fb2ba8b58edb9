package lsp

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// readLoopOutcome describes what the read loop makes of body, with the texts cut
// out of it or read the ordinary way: the answer check gives, and the
// documents of a store that held one document before.
func readLoopOutcome(body []byte, cut bool) (string, bool) {
	s := newServer(Options{})
	s.store.Open(workspace.Doc{Path: "/ws/a.go", URI: "file:///ws/a.go", LanguageID: "go", Version: 1, Text: "one\ntwo é\n"})
	body = bytes.Clone(body)
	wasCut := false
	if cut {
		body, wasCut = (&textCutter{texts: &s.texts}).cut(body)
	}
	if _, rpcErr, answer := check(body); rpcErr != nil {
		return fmt.Sprintf("check: %v %v", rpcErr, answer), wasCut
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return "decode: " + err.Error(), wasCut
	}
	n, ok := msg.(*jsonrpc2.Notification)
	if !ok {
		return fmt.Sprintf("a %T", msg), wasCut
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %v\n", n.Method(), s.syncDocument(n.Method(), n.Params()))
	for _, p := range s.store.OpenPaths() {
		d, _ := s.store.Document(p)
		fmt.Fprintf(&b, "%s %s %s v%d %q\n", d.Path, d.URI, d.LanguageID, d.Version, d.Text)
	}
	return b.String(), wasCut
}

func didOpenBody(text string) string {
	return `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///ws/b.go","languageId":"go","version":3,"text":` + text + `}}}`
}

func didChangeBody(changes string) string {
	return `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///ws/a.go","version":2},"contentChanges":` + changes + `}}`
}

// Long enough for the cutter, with every kind of escape.
var longText = `"` + strings.Repeat(`line \"é\" \\ \/ \b\f\n\r\t \u00e9\u20AC \ud83d\ude00 😀 </x>\n`, 40) + `"`

// cutCases are messages and whether their texts are cut: those the
// cutter leaves are read the ordinary way.
var cutCases = []struct {
	name, body string
	cut        bool
}{
	{"didOpen", didOpenBody(longText), true},
	{"didOpen, spaced", strings.ReplaceAll(didOpenBody(longText), `":`, `" :  `) + "\n", true},
	{"didOpen, params first", `{"params":{"textDocument":{"text":` + longText + `,"uri":"file:///ws/b.go","version":3}},"method":"textDocument/didOpen","jsonrpc":"2.0"}`, true},
	{"didOpen, other members", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"x":{"text":"no"},"textDocument":{"uri":"file:///ws/b.go","extra":[1,{"a":null}],"text":` + longText + `}}}`, true},
	{"didOpen, lone surrogates", didOpenBody(`"` + strings.Repeat(`a\ud800b\udc00c\ud800\u0041 `, 60) + `"`), true},
	{"didOpen, short", didOpenBody(`"short"`), true},
	{"didOpen, empty text", didOpenBody(`""` + strings.Repeat(" ", cutMin)), true},
	{"didOpen, text null", didOpenBody(`null` + strings.Repeat(" ", cutMin)), false},
	{"didOpen, text a number", didOpenBody(`5` + strings.Repeat(" ", cutMin)), false},
	{"didOpen, invalid UTF-8", didOpenBody(`"` + strings.Repeat("a\xffb\xc3", 300) + `"`), false},
	{"didOpen, a control character", didOpenBody(`"` + strings.Repeat("a\tb", 400) + `"`), false},
	{"didOpen, a bad escape", didOpenBody(`"` + strings.Repeat(`a\xb`, 400) + `"`), false},
	{"didOpen, a cut \\u", didOpenBody(`"` + strings.Repeat(`a`, 1100) + `\u00"`), false},
	{"didOpen, Text", strings.Replace(didOpenBody(longText), `"text"`, `"Text"`, 1), false},
	{"didOpen, text twice", strings.Replace(didOpenBody(longText), `"text":`, `"text":"first","text":`, 1), false},
	{"didOpen, an escaped key", strings.Replace(didOpenBody(longText), `"text"`, `"te\u0078t"`, 1), false},
	{"didOpen, TextDocument", strings.Replace(didOpenBody(longText), `"textDocument"`, `"TextDocument"`, 1), false},
	{"didOpen, a non-ASCII key", strings.Replace(didOpenBody(longText), `"languageId"`, `"languageİd"`, 1), false},
	{"didOpen, textDocument twice", strings.Replace(didOpenBody(longText), `"textDocument":`, `"textDocument":{"text":"a"},"textDocument":`, 1), false},
	{"didOpen, a bad version", strings.Replace(didOpenBody(longText), `"version":3`, `"version":3.5`, 1), true},
	{"didOpen, jsonrpc 1.0", strings.Replace(didOpenBody(longText), `"2.0"`, `"1.0"`, 1), true},
	{"didOpen, with an id", strings.Replace(didOpenBody(longText), `{"jsonrpc"`, `{"id":1,"jsonrpc"`, 1), false},
	{"didOpen, trailing garbage", didOpenBody(longText) + "x", false},
	{"didOpen, not JSON after the text", strings.TrimSuffix(didOpenBody(longText), "}}}") + "}}", false},
	{"didOpen, bad JSON in a member", strings.Replace(didOpenBody(longText), `"languageId":"go"`, `"languageId":tru`, 1), true},
	{"didOpen, a method escaped", strings.Replace(didOpenBody(longText), `didOpen"`, `did\u004fpen"`, 1), false},
	{"a batch", "[" + didOpenBody(longText) + "]", false},
	{"didSave", `{"jsonrpc":"2.0","method":"textDocument/didSave","params":{"textDocument":{"uri":"file:///ws/a.go","text":` + longText + `}}}`, false},
	{"didChange, whole", didChangeBody(`[{"text":` + longText + `}]`), true},
	{"didChange, ranges", didChangeBody(`[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"rangeLength":1,"text":` + longText + `},` +
		`{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"text":"x"},{"text":null},` +
		`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}}},{"text":` + longText + `}]`), true},
	{"didChange, a change not an object", didChangeBody(`[5,{"text":` + longText + `}]`), true},
	{"didChange, a bad range", didChangeBody(`[{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"text":` + longText + `}]`), true},
	{"didChange, contentChanges twice", didChangeBody(`[{"text":"a"}],"contentChanges":[{"text":` + longText + `}]`), false},
	{"didChange, an object", didChangeBody(`{"text":` + longText + `}`), false},
}

// Cutting the texts out of a frame changes nothing the server does with
// it: the same documents, the same errors.
func TestCutTextsAsOrdinaryDecoding(t *testing.T) {
	for _, c := range cutCases {
		t.Run(c.name, func(t *testing.T) {
			want, _ := readLoopOutcome([]byte(c.body), false)
			got, cut := readLoopOutcome([]byte(c.body), true)
			if cut != c.cut {
				t.Errorf("cut %v, want %v", cut, c.cut)
			}
			if got != want {
				t.Errorf("with the texts cut:\n%s\nread the ordinary way:\n%s", got, want)
			}
		})
	}
}

// A frame the cutter does not take is left as it was.
func TestCutLeavesOtherFrames(t *testing.T) {
	for _, c := range cutCases {
		body := []byte(c.body)
		if _, ok := (&textCutter{texts: new(docTexts)}).cut(body); !ok && string(body) != c.body {
			t.Errorf("%s: frame changed to %s", c.name, body)
		}
	}
}

func FuzzCutTexts(f *testing.F) {
	for _, c := range cutCases {
		f.Add([]byte(c.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		orig := bytes.Clone(body)
		if _, ok := (&textCutter{texts: new(docTexts)}).cut(body); !ok {
			if !bytes.Equal(body, orig) {
				t.Fatalf("frame %q changed to %q", orig, body)
			}
			return
		}
		want, _ := readLoopOutcome(orig, false)
		if got, _ := readLoopOutcome(orig, true); got != want {
			t.Errorf("with the texts cut:\n%s\nread the ordinary way:\n%s", got, want)
		}
	})
}

// Texts cut out of frames read into the same buffer stay whole, and so
// do the URIs decoded from what is left of the frames.
func TestCutTextsOutliveTheirFrames(t *testing.T) {
	c := newRawClient(t)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	c.expectResult(1)
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	a := <-c.agent
	dir := t.TempDir()
	texts := map[string]string{}
	for i := range 20 {
		name := fmt.Sprintf("%s/d%02d.txt", dir, i)
		texts[name] = fmt.Sprintf("%d\n", i) + strings.Repeat(string(rune('a'+i))+"\t\"\n", 2000)
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://%s","languageId":"l%d","version":%d,"text":%s}}}`,
			name, i, i, quote(texts[name])))
	}
	change := strings.Repeat("z\n", 1000)
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file://%s/d00.txt","version":5},"contentChanges":[`+
		`{"range":{"start":{"line":1,"character":0},"end":{"line":2001,"character":0}},"text":%s},{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":%s}]}}`,
		dir, quote(change), quote("é😀")))
	c.ping(2)
	texts[dir+"/d00.txt"] = "é😀0\n" + change
	for i := range 20 {
		name := fmt.Sprintf("%s/d%02d.txt", dir, i)
		d, ok := a.cfg.Files.Document(name)
		if !ok || d.Text != texts[name] || d.URI != "file://"+name || d.LanguageID != fmt.Sprintf("l%d", i) {
			t.Errorf("%s: open %v, %q %q, text of %d bytes, want %d", name, ok, d.URI, d.LanguageID, len(d.Text), len(texts[name]))
		}
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// A document opened before initialize is dropped, as LSP has it, even
// when its text was cut out of the frame.
func TestCutDidOpenBeforeInitializeIsDropped(t *testing.T) {
	c := newRawClient(t)
	dir := t.TempDir()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://%s/early.txt","languageId":"text","version":1,"text":%s}}}`,
		dir, quote(strings.Repeat("early\n", 1000))))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	c.expectResult(1)
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	a := <-c.agent
	c.ping(2)
	if _, ok := a.cfg.Files.Document(dir + "/early.txt"); ok {
		t.Error("a document opened before initialize is open")
	}
}
