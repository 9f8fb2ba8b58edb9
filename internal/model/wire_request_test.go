package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The request bodies are compared with golden files under testdata/wire:
// <case>.<wire>.json is the body as openai-go v3.95.0 sent it (agent-ls
// spoke the APIs through it before it wrote its own wire code), and
// <case>.<wire>.err the error it gave instead. The bodies must be the
// same bytes (key order and escaping included: a provider's prompt cache
// keys on them); where they are not, the JSON values are compared first to
// say what differs.

// wireCase is a Request built to reach one or more branches of the body
// builders.
type wireCase struct {
	name string
	req  *Request
}

func wireCases() []wireCase {
	img := func(s string) string { return "data:image/png;base64," + s }
	customTools := []Tool{
		{Type: ToolFunction, Name: "read_file", Description: "Read a file.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Type: ToolCustom, Name: "apply_patch", Description: "Patch files.\n", Grammar: &Grammar{Syntax: "lark", Definition: "start: /.+/"}},
		{Type: ToolCustom, Name: "exec", Grammar: &Grammar{Syntax: "regex", Definition: `^\w+$`}},
		{Type: ToolCustom, Name: "note", Description: "Take a note."},
	}
	return []wireCase{
		{"minimal", &Request{Model: "m"}},
		{"full", fullRequest()},
		{"user-text", &Request{Model: "gpt-5", Instructions: "sys", Input: []Item{
			{Type: ItemMessage, Role: RoleUser, Text: "hello"},
			{Type: ItemMessage, Role: RoleUser, Text: ""},
		}}},
		{"messages-every-role", &Request{Model: "m", Input: []Item{
			{Type: ItemMessage, Role: RoleDeveloper, Text: "dev"},
			{Type: ItemMessage, Role: "system", Text: "sys"},
			{Type: ItemMessage, Role: RoleUser, Text: "u"},
			{Type: ItemMessage, Role: RoleAssistant, Text: "a", Phase: "final_answer", ID: "msg_1"},
			{Type: ItemMessage, Role: RoleAssistant, Text: "", Refused: true},
			{Type: ItemMessage, Role: RoleAssistant, Text: "with images", Images: []string{img("AA")}},
		}}},
		{"images", &Request{Model: "m", Input: []Item{
			{Type: ItemMessage, Role: RoleUser, Images: []string{img("AA"), "https://example.com/a.png"}},
			{Type: ItemMessage, Role: RoleUser, Text: "look", Images: []string{img("BB")}},
			{Type: ItemMessage, Role: RoleDeveloper, Text: "dev look", Images: []string{img("CC")}},
			{Type: ItemFunctionCall, CallID: "c1", Name: "shot", Arguments: "{}"},
			{Type: ItemFunctionCall, CallID: "c2", Name: "shot", Arguments: "{}"},
			{Type: ItemFunctionCallOutput, CallID: "c1", Output: "one", Images: []string{img("DD")}},
			{Type: ItemFunctionCallOutput, CallID: "c2", Output: "", Images: []string{img("EE"), img("FF")}},
			{Type: ItemMessage, Role: RoleUser, Text: "next"},
			{Type: ItemCustomToolCall, CallID: "c3", Name: "apply_patch", Input: "x"},
			{Type: ItemCustomToolCallOutput, CallID: "c3", Output: "done", Images: []string{img("GG")}},
		}, Tools: customTools}},
		{"calls", &Request{Model: "m", Input: []Item{
			{Type: ItemMessage, Role: RoleUser, Text: "go"},
			{Type: ItemFunctionCall, ID: "fc_1", CallID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`},
			{Type: ItemCustomToolCall, ID: "ctc_1", CallID: "c2", Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch\n"},
			{Type: ItemFunctionCallOutput, CallID: "c1", Output: "package a"},
			{Type: ItemCustomToolCallOutput, CallID: "c2", Output: "Done!"},
			{Type: ItemMessage, Role: RoleAssistant, Text: "Now the test."},
			{Type: ItemFunctionCall, CallID: "c3", Name: "read_file", Arguments: `{"path":"a_test.go"}`},
			{Type: ItemFunctionCallOutput, CallID: "c3", Output: ""},
			{Type: ItemFunctionCall, CallID: "", Name: "", Arguments: ""},
		}, Tools: customTools}},
		{"function-tools-only", &Request{Model: "m", FunctionToolsOnly: true, Input: []Item{
			{Type: ItemMessage, Role: RoleUser, Text: "patch it"},
			{Type: ItemCustomToolCall, ID: "ctc_1", CallID: "c1", Name: "apply_patch", Input: "*** Begin Patch\n\"quoted\" <tag> & more\n*** End Patch"},
			{Type: ItemCustomToolCallOutput, CallID: "c1", Output: "ok"},
			{Type: ItemCustomToolCall, CallID: "c2", Name: "note", Input: ""},
			{Type: ItemCustomToolCallOutput, CallID: "c2", Output: "noted", Images: []string{img("AA")}},
			{Type: ItemFunctionCall, CallID: "c3", Name: "read_file", Arguments: `{"path":"b"}`},
			{Type: ItemFunctionCallOutput, CallID: "c3", Output: "b"},
		}, Tools: customTools}},
		{"reasoning", &Request{Model: "o4", ReasoningEffort: "medium", Input: []Item{
			{Type: ItemMessage, Role: RoleUser, Text: "think"},
			{Type: ItemReasoning, ID: "rs_1", Summary: []string{"first", "second"}, EncryptedContent: "gAAAA=="},
			{Type: ItemReasoning, ID: "rs_2"},
			{Type: ItemReasoning, Summary: []string{""}, EncryptedContent: ""},
			{Type: ItemMessage, Role: RoleAssistant, Text: "thought", Phase: "commentary"},
		}}},
		{"reasoning-summary", &Request{Model: "gpt-5", ReasoningEffort: "minimal", ReasoningSummary: "detailed", Verbosity: "low"}},
		{"summary-without-effort", &Request{Model: "gpt-5", ReasoningSummary: "auto", Verbosity: "high", PromptCacheKey: "k"}},
		{"web-search", &Request{Model: "gpt-5", WebSearch: true, Verbosity: "medium", Input: []Item{
			{Type: ItemMessage, Role: RoleUser, Text: "news?"},
			{Type: ItemWebSearchCall, ID: "ws_1", Status: "completed", Action: json.RawMessage(`{"type":"search","query":"go 1.26","sources":[{"type":"url","url":"https://go.dev"}]}`)},
			{Type: ItemWebSearchCall, ID: "ws_2"},
			{Type: ItemWebSearchCall, Status: "failed", Action: json.RawMessage(` { "type" : "open_page" , "url":"https://a.b/?x=1&y=<2>" } `)},
		}, Tools: []Tool{{Type: ToolFunction, Name: "f"}}}},
		{"tools", &Request{Model: "m", Tools: []Tool{
			{Name: "untyped", Description: "no type"},
			{Type: ToolFunction, Name: "empty"},
			{Type: ToolFunction, Name: "ordered", Parameters: json.RawMessage(` {"type": "object", "properties": {"z": {"type":"integer","maximum":1e2,"minimum":-1.50,"default":12345678901234567890}, "a": {"type":"string","pattern":"^<a>&b$","description":"é \u00e9 \u2028 😀"}}, "required": ["z","a"], "additionalProperties": false}`)},
			{Type: ToolCustom, Name: "freeform"},
			{Type: ToolCustom, Name: "grammar", Description: "g", Grammar: &Grammar{Syntax: "lark", Definition: "start: \"a\" | \"<b>\"\n"}},
		}}},
		{"text-escapes", &Request{Model: "m", Instructions: "<b>bold</b> & \"quotes\" \\ \t\n\r \u2028\u2029 \x01 é 😀", Input: []Item{
			{Type: ItemMessage, Role: RoleUser, Text: "if a < b && c > d { return \"x\" }\n\x00\x1f"},
			{Type: ItemMessage, Role: RoleUser, Text: "bad utf-8: \xff\xfe end"},
			{Type: ItemFunctionCall, CallID: "c<1>", Name: "f&g", Arguments: `{"s":"<>&\u2028"}`},
			{Type: ItemFunctionCallOutput, CallID: "c<1>", Output: "</script>"},
		}}},
		{"chat-runs", &Request{Model: "llama", Instructions: "be brief", Input: []Item{
			{Type: ItemFunctionCall, CallID: "c0", Name: "ls", Arguments: "{}"},
			{Type: ItemFunctionCallOutput, CallID: "c0", Output: "a b", Images: []string{img("AA")}},
			{Type: ItemReasoning, Summary: []string{"hm"}, EncryptedContent: "E"},
			{Type: ItemFunctionCall, CallID: "c1", Name: "ls", Arguments: "{}"},
			{Type: ItemMessage, Role: RoleAssistant, Text: "then"},
			{Type: ItemFunctionCall, CallID: "c2", Name: "ls", Arguments: "{}"},
			{Type: ItemWebSearchCall, Status: "completed"},
			{Type: ItemCustomToolCall, CallID: "c3", Name: "apply_patch", Input: "p"},
			{Type: ItemFunctionCallOutput, CallID: "c2", Output: "x", Images: []string{img("BB")}},
			{Type: ItemCustomToolCallOutput, CallID: "c3", Output: "y", Images: []string{img("CC")}},
			{Type: ItemMessage, Role: RoleUser, Text: "more", Images: []string{img("DD")}},
			{Type: ItemFunctionCall, CallID: "c4", Name: "ls", Arguments: "{}"},
			{Type: ItemFunctionCallOutput, CallID: "c4", Output: "z", Images: []string{img("EE")}},
		}, Tools: customTools, ReasoningEffort: "low", WebSearch: true}},

		// Requests the builders refuse.
		{"bad-role", &Request{Model: "m", Input: []Item{{Type: ItemMessage, Role: "tool", Text: "x"}}}},
		{"bad-item", &Request{Model: "m", Input: []Item{{Type: ItemMessage, Role: RoleUser}, {Type: "file_search_call"}}}},
		{"bad-tool-type", &Request{Model: "m", Tools: []Tool{{Type: "mcp", Name: "x"}}}},
		{"bad-grammar", &Request{Model: "m", Tools: []Tool{{Type: ToolCustom, Name: "g", Grammar: &Grammar{Syntax: "ebnf", Definition: "x"}}}}},
		{"bad-parameters", &Request{Model: "m", Tools: []Tool{{Type: ToolFunction, Name: "f", Parameters: json.RawMessage(`{"type":`)}}}},
	}
}

// wireBody is the body the client sends for req on wire, or the error
// that stops it.
func wireBody(req *Request, wire string) ([]byte, error) {
	if wire == WireChat {
		p, err := newChatBody(req)
		if err != nil {
			return nil, err
		}
		return marshalBody(p)
	}
	p, err := newResponsesBody(req)
	if err != nil {
		return nil, err
	}
	return marshalBody(p)
}

func goldenPath(name, wire, ext string) string {
	return filepath.Join("testdata", "wire", name+"."+wire+ext)
}

func TestRequestBodiesMatchGolden(t *testing.T) {
	for _, tc := range wireCases() {
		for _, wire := range []string{WireResponses, WireChat} {
			t.Run(tc.name+"/"+wire, func(t *testing.T) {
				body, err := wireBody(tc.req, wire)
				if want, rerr := os.ReadFile(goldenPath(tc.name, wire, ".err")); rerr == nil {
					if err == nil || err.Error() != strings.TrimSpace(string(want)) {
						t.Fatalf("error %v, want %s", err, want)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(goldenPath(tc.name, wire, ".json"))
				if err != nil {
					t.Fatal(err)
				}
				sameJSON(t, body, want)
				if want := bytes.TrimSuffix(want, []byte("\n")); !t.Failed() && !bytes.Equal(body, want) {
					i := 0
					for i < min(len(body), len(want)) && body[i] == want[i] {
						i++
					}
					t.Errorf("same JSON, other bytes from offset %d:\ngot  %.80s\nwant %.80s", i, body[i:], want[i:])
				}
			})
		}
	}
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got invalid JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("golden invalid JSON: %v\n%s", err, want)
	}
	for _, d := range jsonDiff("$", g, w, nil) {
		t.Error(d)
	}
}

// jsonDiff lists where the JSON values got and want differ, by path.
func jsonDiff(path string, got, want any, out []string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			gv, gok := g[k]
			wv, wok := w[k]
			switch {
			case !gok:
				out = append(out, fmt.Sprintf("%s.%s: missing, want %s", path, k, jsonText(wv)))
			case !wok:
				out = append(out, fmt.Sprintf("%s.%s: got %s, want it omitted", path, k, jsonText(gv)))
			default:
				out = jsonDiff(path+"."+k, gv, wv, out)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		for i := range w {
			out = jsonDiff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i], out)
		}
		return out
	}
	if !reflect.DeepEqual(got, want) {
		out = append(out, fmt.Sprintf("%s: got %s, want %s", path, jsonText(got), jsonText(want)))
	}
	return out
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
