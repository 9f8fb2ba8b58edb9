package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/jsonschema"
)

// Structured results (MCP 2025-06-18 and later). A tool may declare an
// outputSchema; its results then carry structuredContent, which must
// match it. agent-ls checks that with the validator of the tools'
// arguments (internal/jsonschema, made for untrusted schemas): a result
// that does not match, or a successful one without structuredContent, is
// an error output for the model saying why. The model reads the content
// blocks: the spec asks a tool that returns structured content to give
// its JSON in a text block too, so a result with a text block is given
// as it is, and structuredContent, as JSON text, only to a result with no
// text block (resultOutput).

// maxOutputSchemaBytes bounds an output schema agent-ls compiles.
const maxOutputSchemaBytes = 1 << 20

// outputSchema compiles a tool's declared output schema; nil when it has
// none.
func outputSchema(schema any) (*jsonschema.Schema, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	if len(raw) > maxOutputSchemaBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxOutputSchemaBytes)
	}
	return jsonschema.Compile(raw)
}

// checkStructured says why res breaks its tool's output schema, if it
// does. A result that reports an error is not checked.
func checkStructured(schema *jsonschema.Schema, res *sdk.CallToolResult) error {
	if schema == nil || res.IsError {
		return nil
	}
	if res.StructuredContent == nil {
		return errors.New("the tool declares an output schema, but its result has no structuredContent")
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("its structuredContent cannot be read: %w", err)
	}
	if err := schema.Validate(raw); err != nil {
		return fmt.Errorf("its structuredContent does not match the tool's output schema:\n%s", problems(err))
	}
	return nil
}

// problems are the lines of a validation error, worded for a result:
// the validator speaks to a model about the arguments it sent.
func problems(err error) string {
	text := err.Error()
	if i := strings.IndexByte(text, '\n'); i >= 0 && strings.HasPrefix(text, "invalid arguments") {
		text = text[i+1:]
	}
	return strings.ReplaceAll(text, "(argument `", "(field `")
}
