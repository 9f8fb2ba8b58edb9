package jsonschema_test

import (
	"encoding/json"
	"testing"

	"github.com/agent-ls/agent-ls/internal/jsonschema"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// Benchmarks of argument validation against a built-in tool's schema.
// Compiling happens once per tool at registration; validating happens on
// every call. internal/tools benchmarks the largest schema of its MCP
// corpus.

func BenchmarkValidateReadFile(b *testing.B) {
	sch, err := jsonschema.Compile(tools.ReadFile{}.Spec().Parameters)
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"file_path": "internal/tools/validate.go", "offset": 10, "limit": 200}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := sch.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateReadFileInvalid(b *testing.B) {
	sch, err := jsonschema.Compile(tools.ReadFile{}.Spec().Parameters)
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"file_path": 3, "offset": "2", "limit": 1.5, "mode": "x"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := sch.Validate(args); err == nil {
			b.Fatal("accepted")
		}
	}
}
