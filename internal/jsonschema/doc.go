// Package jsonschema checks a tool call's arguments against the tool's
// JSON schema before the tool runs, and tells the model every problem at
// once, each at its JSON pointer with the value sent.
//
// The validator is agent-ls's own. Of the maintained libraries,
// santhosh-tekuri/jsonschema/v6 compiles its meta-schemas in init (about
// 15 ms and 1.7 MB of allocations on every agent-ls start, four times what
// all of agent-ls's init allocates today) and google/jsonschema-go stops
// at the first problem; both validate a read_file call about half as fast
// as this one.
//
// # What it checks
//
// Boolean schemas (true, false) and these keywords: type (a name or a
// list; integer means a number without a fraction), enum, const,
// minimum, maximum, exclusiveMinimum and exclusiveMaximum (their numeric
// form), minLength and maxLength (counted in code points), pattern (in
// Go's RE2 syntax, unanchored), minItems, maxItems, items (one schema
// for every element, or a list of schemas for the elements at the same
// positions), required, properties, additionalProperties (a boolean or a
// schema), allOf, anyOf, oneOf, and $ref to a JSON pointer into the same
// document ("#", "#/$defs/x", "#/properties/a/items"), whatever its
// siblings.
//
// # What it does not check
//
// Compile ignores every other keyword, so a value breaking only these
// passes:
//
//   - numbers: multipleOf, and exclusiveMinimum and exclusiveMaximum in
//     their draft-4 boolean form (minimum and maximum are then checked as
//     inclusive);
//   - strings: format, contentEncoding, contentMediaType, contentSchema;
//   - arrays: uniqueItems, contains, minContains, maxContains,
//     additionalItems, prefixItems, unevaluatedItems (with prefixItems,
//     a schema-valued items is checked against every element, the
//     prefix's too);
//   - objects: patternProperties, propertyNames, minProperties,
//     maxProperties, dependencies, dependentRequired, dependentSchemas,
//     unevaluatedProperties (a property matched only by patternProperties
//     is checked against additionalProperties, or refused when it is
//     false);
//   - logic: not, if, then, else;
//   - references: $dynamicRef and $recursiveRef; $id and $anchor do not
//     name anything a $ref can reach;
//   - keywords it knows, given a value of the wrong kind (a required or
//     an enum that is not a list, a pattern or a bound that is not a
//     string or a number, a negative length): they are skipped, not
//     refused.
//
// Annotations (title, description, default, examples, deprecated,
// readOnly, writeOnly, $comment) assert nothing and are ignored as the
// specification says; $schema is not read, every document is checked
// by the rules above whatever its draft. Compile refuses, rather than
// ignores: a subschema that is neither an object nor a boolean, a type
// that is not a string or a list of the seven type names, a pattern Go's
// regexp cannot compile, and a $ref that is not a local JSON pointer (a
// URL, or "#name" for an $anchor).
//
// # Untrusted schemas
//
// Schemas from MCP servers are untrusted input, so a schema is compiled
// once, when its tool is registered, into an immutable graph that any
// number of calls may validate against at once. Compiling resolves every
// $ref, bounds the schema's size and nesting, and refuses a $ref cycle
// that never descends into the value ({"$ref": "#"}, a → b → a through
// allOf), which would otherwise recurse forever while validating.
// Validation itself is bounded too (a budget of steps and of depth), so a
// schema that compiles cannot make a call hang.
package jsonschema
