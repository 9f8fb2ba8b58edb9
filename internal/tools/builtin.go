package tools

// Builtin returns the built-in tools (the model sees them sorted by name).
// Adding a tool is one file plus one line here.
func Builtin() []Handler {
	return []Handler{
		UpdatePlan{},
		Shell{},
		ExecCommand{},
		WriteStdin{},
		ApplyPatch{},
		WriteFile{},
		ReadFile{},
		ListDir{},
		GrepFiles{},
		Glob{},
		ViewImage{},
		RequestUserInput{},
		LSPDefinition{},
		LSPReferences{},
		LSPHover{},
		LSPDiagnostics{},
		LSPSymbols{},
		LSPDocumentSymbols{},
		LSPRename{},
	}
}
