package jsonschema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidatorKeywords(t *testing.T) {
	sch, err := Compile(json.RawMessage(`{
	  "type": "object",
	  "$defs": {"color": {"type": "string", "enum": ["red", "green"]}},
	  "properties": {
	    "color": {"$ref": "#/$defs/color"},
	    "id": {"type": "string", "pattern": "^[a-z]+-[0-9]+$"},
	    "kind": {"const": "file"},
	    "size": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+[km]b$"}]},
	    "mode": {"oneOf": [{"type": "string"}, {"type": "number", "minimum": 0}]},
	    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
	    "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2},
	    "nullable": {"type": ["string", "null"]}
	  },
	  "additionalProperties": {"type": "boolean"}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"color":"red","id":"ab-1","kind":"file","size":"10kb","mode":"x","ratio":0.5,"tags":["a"],"nullable":null,"flag":true}`
	if err := sch.Validate(json.RawMessage(ok)); err != nil {
		t.Fatalf("valid arguments refused: %v", err)
	}
	bad := `{"color":"blue","id":"AB","kind":"dir","size":true,"mode":[],"ratio":1,"tags":["abcd","b","c"],"nullable":3,"flag":"yes"}`
	err = sch.Validate(json.RawMessage(bad))
	if err == nil {
		t.Fatal("invalid arguments accepted")
	}
	for _, want := range []string{
		"(10 problems)",
		"/color (argument `color`): value must be one of 'red', 'green'",
		"/id (argument `id`): does not match pattern",
		"/kind (argument `kind`): must be \"file\"",
		"/size (argument `size`): matches none of the allowed shapes (anyOf)",
		"/mode (argument `mode`): must match exactly one of the allowed shapes (oneOf), matches 0",
		"/ratio (argument `ratio`): exclusiveMaximum: got 1, want less than 1",
		"/tags (argument `tags`): maxItems: got 3, want 2",
		"/tags/0 (argument `tags.0`): maxLength: got 4, want 3",
		"/nullable (argument `nullable`): got number, want string or null",
		"/flag (argument `flag`): got string, want boolean",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lacks %q:\n%v", want, err)
		}
	}
	if _, err := Compile(json.RawMessage(`{"$ref": "https://example.com/s.json"}`)); err == nil {
		t.Error("a remote $ref compiled")
	}
	if _, err := Compile(json.RawMessage(`{"pattern": "("}`)); err == nil {
		t.Error("a broken pattern compiled")
	}
}
