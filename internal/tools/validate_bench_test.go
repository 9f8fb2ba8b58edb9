package tools

import (
	"encoding/json"
	"testing"
)

// Benchmarks of argument validation: a built-in tool's call and the
// largest schema of the MCP corpus. Compiling happens once per tool at
// registration; validating happens on every call.

func BenchmarkValidateReadFile(b *testing.B) {
	sch, err := compileSchema(ReadFile{}.Spec().Parameters)
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"file_path": "internal/tools/validate.go", "offset": 10, "limit": 200}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := validateArguments(sch, args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateReadFileInvalid(b *testing.B) {
	sch, err := compileSchema(ReadFile{}.Spec().Parameters)
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"file_path": 3, "offset": "2", "limit": 1.5, "mode": "x"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := validateArguments(sch, args); err == nil {
			b.Fatal("accepted")
		}
	}
}

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
		if _, err := compileSchema(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateLargestMCPSchema(b *testing.B) {
	raw := largestMCPSchema(b)
	sch, err := compileSchema(raw)
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
		_ = validateArguments(sch, args)
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
