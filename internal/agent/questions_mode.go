package agent

// planMode reports whether the session runs in plan mode, where the model
// may always ask the user.
func (s *session) planMode() bool { return false }
