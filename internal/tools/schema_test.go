package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/jsonschema"
)

func TestSanitizeSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{
			name: "filesystem read_text_file (zod-generated, draft 7)",
			in:   `{"type":"object","properties":{"path":{"type":"string"},"tail":{"type":"number","description":"If provided, returns only the last N lines"},"head":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
			want: `{"additionalProperties":false,"properties":{"head":{"minimum":1,"type":"number"},"path":{"type":"string"},"tail":{"description":"If provided, returns only the last N lines","type":"number"}},"required":["path"],"type":"object"}`,
		},
		{
			name: "filesystem edit_file: array of objects without types",
			in:   `{"type":"object","properties":{"path":{"type":"string"},"edits":{"items":{"properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"]}},"dryRun":{"type":"boolean","default":false}},"required":["path","edits"]}`,
			want: `{"properties":{"dryRun":{"default":false,"type":"boolean"},"edits":{"items":{"properties":{"newText":{"type":"string"},"oldText":{"type":"string"}},"required":["oldText","newText"],"type":"object"},"type":"array"},"path":{"type":"string"}},"required":["path","edits"],"type":"object"}`,
		},
		{
			name: "github create_issue: unions, nullable arrays, enum without type",
			in:   `{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string"},"body":{"type":["string","null"]},"assignees":{"type":["null","array"],"items":{"type":"string"}},"labels":{"type":"array"},"milestone":{"type":["integer","null"]},"state":{"enum":["open","closed"]}},"required":["owner","repo","title","missing_field"]}`,
			want: `{"properties":{"assignees":{"items":{"type":"string"},"type":"array"},"body":{"type":"string"},"labels":{"items":{"type":"string"},"type":"array"},"milestone":{"type":"number"},"owner":{"type":"string"},"repo":{"type":"string"},"state":{"enum":["open","closed"],"type":"string"},"title":{"type":"string"}},"required":["owner","repo","title"],"type":"object"}`,
		},
		{
			name: "playwright browser_click: no type at the root, const, format, bounds",
			in:   `{"properties":{"element":{"description":"Human-readable element description"},"ref":{"const":"e12"},"url":{"format":"uri"},"timeout":{"maximum":60000},"button":{"type":"string","enum":["left","right","middle"]},"modifiers":{"type":"array","items":[{"type":"string"}],"additionalItems":false}},"$comment":"generated"}`,
			want: `{"properties":{"button":{"enum":["left","right","middle"],"type":"string"},"element":{"description":"Human-readable element description","type":"string"},"modifiers":{"items":{"type":"string"},"type":"array"},"ref":{"const":"e12","type":"string"},"timeout":{"maximum":60000,"type":"number"},"url":{"format":"uri","type":"string"}},"type":"object"}`,
		},
		{
			name: "nested objects and additionalProperties schemas",
			in:   `{"type":"object","properties":{"headers":{"type":"object","additionalProperties":{"type":"integer"}},"options":{"additionalProperties":{"properties":{"x":{}}}},"empty":{"type":"object"}}}`,
			want: `{"properties":{"empty":{"properties":{},"type":"object"},"headers":{"additionalProperties":{"type":"number"},"properties":{},"type":"object"},"options":{"additionalProperties":{"properties":{"x":{"type":"string"}},"type":"object"},"properties":{},"type":"object"}},"type":"object"}`,
		},
		{
			name: "anyOf members and $defs are sanitized, composites keep no type",
			in:   `{"type":"object","properties":{"target":{"anyOf":[{"type":"integer"},{"properties":{"id":{"type":"string"}}}]},"ref":{"$ref":"#/$defs/Pt"}},"$defs":{"Pt":{"properties":{"x":{"type":"integer"}}}}}`,
			want: `{"$defs":{"Pt":{"properties":{"x":{"type":"number"}},"type":"object"}},"properties":{"ref":{"$ref":"#/$defs/Pt"},"target":{"anyOf":[{"type":"number"},{"properties":{"id":{"type":"string"}},"type":"object"}]}},"type":"object"}`,
		},
		{
			name: "boolean schemas and big numbers survive",
			in:   `{"type":"object","properties":{"anything":true,"n":{"type":"number","maximum":12345678901234567890}}}`,
			want: `{"properties":{"anything":{"type":"string"},"n":{"maximum":12345678901234567890,"type":"number"}},"type":"object"}`,
		},
		{name: "empty", in: ``, want: `{"properties":{},"type":"object"}`},
		{name: "true", in: `true`, want: `{"properties":{},"type":"object"}`},
		{name: "not an object", in: `[1]`, err: true},
		{name: "not JSON", in: `{`, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SanitizeSchema(json.RawMessage(tc.in))
			if tc.err {
				if err == nil {
					t.Fatalf("want an error, got %s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, []byte(tc.want)) {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			// The result must compile as a schema, so that argument
			// validation can use it.
			if _, err := jsonschema.Compile(got); err != nil {
				t.Errorf("sanitized schema does not compile: %v", err)
			}
		})
	}
}

// TestSanitizeDeeplyNestedSchema: nesting beyond what encoding/json
// accepts fails as JSON, never a stack overflow.
func TestSanitizeDeeplyNestedSchema(t *testing.T) {
	if _, err := SanitizeSchema(json.RawMessage(strings.Repeat(`{"items":`, 20_000) + "{}" + strings.Repeat("}", 20_000))); err == nil {
		t.Error("a schema nested 20,000 levels was sanitized")
	}
}
