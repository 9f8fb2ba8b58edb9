package agent

import (
	"slices"
	"sync"
)

// What an "always" answer covers (ApprovalRequest.Always).
const (
	alwaysInSandbox      = "this exact command (the same words, nothing longer) in this folder, run in the sandbox, for the rest of the session"
	alwaysOutsideSandbox = "this exact command (the same words, nothing longer) in this folder, run outside the sandbox, for the rest of the session"
	alwaysRetry          = "running this exact command (the same words, nothing longer) in this folder again without the sandbox when the sandbox blocks it, for the rest of the session"
	alwaysFiles          = "changes to these same files, for the rest of the session"
	alwaysTool           = "calls of this tool of this MCP server, whatever their arguments, for the rest of the session"
)

// approvalStore remembers "always" answers for the session: commands
// exactly (argv, cwd and how they run), patches by file, calls of other
// tools by server and tool.
type approvalStore struct {
	mu       sync.Mutex
	commands []storedCommand
	files    map[string]bool  // path → allowed (true) or rejected (false)
	tools    map[toolKey]bool // tool → allowed (true) or rejected (false)
	// observe, when set, is told of each answer remembered (not of those
	// restored from a record).
	observe func(ApprovalRule)
}

// execScope is how a command runs: what the user was asked about besides
// its words and folder.
type execScope int

const (
	inSandbox      execScope = iota // in the sandbox
	outsideSandbox                  // without one (escalated, full access, or none here)
	retryOutside                    // again without the sandbox after the sandbox blocked it
)

// scopeOf is the scope of a command that runs sandboxed or not.
func scopeOf(sandboxed bool) execScope {
	if sandboxed {
		return inSandbox
	}
	return outsideSandbox
}

type storedCommand struct {
	argv  []string
	cwd   string
	scope execScope
	allow bool
}

// lookupCommand finds the stored answer for exactly argv in cwd run in
// scope: the question the user answered "always" was about that command,
// so the answer covers nothing longer (`git log -1 --oneline` does not
// cover `git log -1 --oneline --output=/elsewhere`, nor `find . -name x`
// `find . -name x -exec rm {} +`), no other folder and no other sandbox
// request (allowing it in the sandbox says nothing about running it
// outside). A "reject always" is exact too, though refusing more would be
// safe: the question said "this exact command", the model is told the
// user refused this command, and a broader refusal would also refuse
// what the policy runs without asking (the same command in the sandbox
// after its escalation was refused).
func (s *approvalStore) lookupCommand(argv []string, cwd string, scope execScope) (storedCommand, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.commands) - 1; i >= 0; i-- {
		c := s.commands[i]
		if c.cwd == cwd && c.scope == scope && slices.Equal(c.argv, argv) {
			return c, true
		}
	}
	return storedCommand{}, false
}

func (s *approvalStore) rememberCommand(c storedCommand) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commands = append(s.commands, c)
	if s.observe != nil {
		s.observe(ApprovalRule{Command: c.argv, Cwd: c.cwd, Allow: c.allow, Unsandbox: c.scope == outsideSandbox, Retry: c.scope == retryOutside})
	}
}

// toolKey names a tool for its "always" answer.
type toolKey struct{ server, tool string }

// toolDecided reports whether the tool has a stored answer, and whether it
// allows.
func (s *approvalStore) toolDecided(k toolKey) (decided, allowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	allowed, decided = s.tools[k]
	return decided, allowed
}

func (s *approvalStore) rememberTool(k toolKey, allow bool) {
	s.setTool(k, allow)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.observe != nil {
		s.observe(ApprovalRule{Server: k.server, Tool: k.tool, Allow: allow})
	}
}

func (s *approvalStore) setTool(k toolKey, allow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools == nil {
		s.tools = make(map[toolKey]bool)
	}
	s.tools[k] = allow
}

// restore brings back an answer from a session's record. A command's
// answer means the exact command, whatever the agent-ls that wrote the
// record made of it (older ones took it as a prefix); a rejection in an
// older record, which did not say how the command was to run, is taken
// as one about running it in the sandbox.
func (s *approvalStore) restore(r ApprovalRule) {
	if r.Tool != "" {
		s.setTool(toolKey{r.Server, r.Tool}, r.Allow)
		return
	}
	if len(r.Command) > 0 {
		s.mu.Lock()
		scope := inSandbox
		switch {
		case r.Retry:
			scope = retryOutside
		case r.Unsandbox:
			scope = outsideSandbox
		}
		s.commands = append(s.commands, storedCommand{argv: slices.Clone(r.Command), cwd: r.Cwd, scope: scope, allow: r.Allow})
		s.mu.Unlock()
		return
	}
	s.setFiles(r.Files, r.Allow)
}

// filesDecided reports whether every path has a stored answer, and
// whether all of them allow.
func (s *approvalStore) filesDecided(paths []string) (decided, allowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	allowed = true
	for _, p := range paths {
		a, ok := s.files[p]
		if !ok {
			return false, false
		}
		allowed = allowed && a
	}
	return len(paths) > 0, allowed
}

func (s *approvalStore) rememberFiles(paths []string, allow bool) {
	s.setFiles(paths, allow)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.observe != nil {
		s.observe(ApprovalRule{Files: paths, Allow: allow})
	}
}

func (s *approvalStore) setFiles(paths []string, allow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = make(map[string]bool)
	}
	for _, p := range paths {
		s.files[p] = allow
	}
}
