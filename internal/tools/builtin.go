package tools

// Builtin returns the built-in tools, in the order they are offered to the
// model. Adding a tool is one file plus one line here.
func Builtin() []Handler {
	return []Handler{
		UpdatePlan{},
		Shell{},
		ApplyPatch{},
		WriteFile{},
		ReadFile{},
		ListDir{},
		GrepFiles{},
		Glob{},
		ViewImage{},
	}
}
