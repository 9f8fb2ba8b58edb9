package tools

import (
	"encoding/json"
	"testing"

	"github.com/agent-ls/agent-ls/internal/jsonschema"
)

// Benchmarks of registration and of argument validation against the
// largest schema of the MCP corpus. Compiling happens once per tool at
// registration; validating happens on every call.

// largestMCPSchema returns the biggest schema of the corpus, sanitized.
func largestMCPSchema(b *testing.B) json.RawMessage {
	var biggest json.RawMessage
	for _, cs := range loadMCPSchemas(b) {
		if len(cs.raw) > len(biggest) {
			biggest = cs.raw
		}
	}
	clean, err := SanitizeSchema(biggest)
	if err != nil {
		b.Fatal(err)
	}
	return clean
}

func BenchmarkCompileLargestMCPSchema(b *testing.B) {
	raw := largestMCPSchema(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := jsonschema.Compile(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateLargestMCPSchema(b *testing.B) {
	raw := largestMCPSchema(b)
	sch, err := jsonschema.Compile(raw)
	if err != nil {
		b.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	inst, _ := generate(doc, doc, 0)
	args, err := json.Marshal(inst)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = sch.Validate(args)
	}
}

// BenchmarkNewRegistryBuiltin is what compiling the built-in schemas at
// registration adds to starting a server.
func BenchmarkNewRegistryBuiltin(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewRegistry(Builtin()...); err != nil {
			b.Fatal(err)
		}
	}
}
