package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// SanitizeSchema rewrites a JSON schema from outside (an MCP server's tool
// input schema) into the subset the model APIs accept:
//
//   - every schema gets a `type`; a missing one is inferred from
//     properties/required/additionalProperties (object), items (array),
//     enum/const/format (string), numeric bounds (number), else string;
//   - `integer` becomes `number`, and a type union becomes its first
//     supported member (null is not one);
//   - objects always have `properties`, arrays always have `items`
//     (default `{"type":"string"}`);
//   - nested schemas (properties, items, additionalProperties,
//     anyOf/oneOf/allOf, $defs/definitions) are sanitized too;
//   - annotation keywords the APIs reject ($schema, $id, $comment,
//     examples, ...) are dropped, and `required` names only properties
//     that exist.
//
// The root is always an object schema.
func SanitizeSchema(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	if len(bytes.TrimSpace(raw)) == 0 {
		v = map[string]any{}
	} else {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("sanitize schema: %w", err)
		}
	}
	root, ok := v.(map[string]any)
	if !ok {
		if b, isBool := v.(bool); isBool && b {
			root = map[string]any{}
		} else {
			return nil, fmt.Errorf("sanitize schema: the root must be a JSON object, got %s", jsonKind(v))
		}
	}
	if _, has := root["type"]; !has {
		root["type"] = "object"
	}
	out, err := json.Marshal(sanitize(root))
	if err != nil {
		return nil, fmt.Errorf("sanitize schema: %w", err)
	}
	return out, nil
}

// droppedKeywords are annotations some model APIs reject.
var droppedKeywords = []string{"$schema", "$id", "$comment", "examples", "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding", "$anchor", "$dynamicAnchor"}

var supportedTypes = []string{"object", "array", "string", "number", "boolean", "integer"}

// sanitize rewrites one schema (any JSON value) and returns it.
func sanitize(v any) any {
	s, ok := v.(map[string]any)
	if !ok {
		// Boolean schemas (true: anything) and junk become a plain
		// string schema, the most general thing the APIs take.
		return map[string]any{"type": "string"}
	}
	for _, k := range droppedKeywords {
		delete(s, k)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if subs, ok := s[k].([]any); ok {
			for i := range subs {
				subs[i] = sanitize(subs[i])
			}
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := s[k].(map[string]any); ok {
			for name, d := range defs {
				defs[name] = sanitize(d)
			}
		}
	}

	typ := schemaType(s)
	if typ == "" {
		if _, composite := s["$ref"]; composite || s["anyOf"] != nil || s["oneOf"] != nil || s["allOf"] != nil {
			return s // its members carry the types
		}
		typ = "string"
	}
	if typ == "integer" {
		typ = "number"
	}
	s["type"] = typ

	switch typ {
	case "object":
		sanitizeObject(s)
	case "array":
		sanitizeArray(s)
	}
	return s
}

// sanitizeObject gives an object schema properties (sanitized), and
// keeps of its required names those that are properties, once each.
func sanitizeObject(s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	for name, p := range props {
		props[name] = sanitize(p)
	}
	s["properties"] = props
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		s["additionalProperties"] = sanitize(ap)
	}
	if req, ok := s["required"].([]any); ok {
		kept := req[:0]
		for _, r := range req {
			if name, ok := r.(string); ok && props[name] != nil && !slices.Contains(kept, any(name)) {
				kept = append(kept, name)
			}
		}
		if len(kept) == 0 {
			delete(s, "required")
		} else {
			s["required"] = kept
		}
	}
}

// sanitizeArray gives an array schema one item schema (sanitized).
func sanitizeArray(s map[string]any) {
	switch items := s["items"].(type) {
	case map[string]any:
		s["items"] = sanitize(items)
	case []any:
		// Tuple form (draft 4-7): the APIs want one item schema.
		if len(items) > 0 {
			s["items"] = sanitize(items[0])
		} else {
			s["items"] = map[string]any{"type": "string"}
		}
	default:
		s["items"] = map[string]any{"type": "string"}
	}
	delete(s, "additionalItems")
	delete(s, "prefixItems")
}

// schemaType returns the schema's declared type (the first supported one
// of a union), or one inferred from its keywords, or "".
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		if slices.Contains(supportedTypes, t) {
			return t
		}
	case []any:
		for _, m := range t {
			if name, ok := m.(string); ok && slices.Contains(supportedTypes, name) {
				return name
			}
		}
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := s[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties"):
		return "object"
	case has("items", "prefixItems", "minItems", "maxItems", "uniqueItems"):
		return "array"
	case has("enum", "const", "format", "pattern", "minLength", "maxLength"):
		return "string"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return ""
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
