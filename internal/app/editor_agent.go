package app

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/lsp"
)

// editorAgent is the agent of an editor's connection, a language
// server's (lsp.Agent) or an ACP client's (through acpAgent): its
// settings follow the config files, which are read again when they
// change, and for a language server the editor's settings
// (workspace/didChangeConfiguration).
type editorAgent struct {
	*agent.Manager
	root *root
	res  *resolver
	cwd  string
	log  *slog.Logger

	mu     sync.Mutex
	editor json.RawMessage // the editor's latest settings
	stamp  string          // the config files as last read
	shown  map[string]bool // the messages of the last reload, not repeated
	// folders are the editor's workspace folders (the first is cwd);
	// toldFolders those whose being read-only the user was told.
	folders     []string
	toldFolders map[string]bool
	// show tells the user what a reload found (set once serving).
	show func(...lsp.Message)
}

// newEditorAgent builds the agent of one connection, serve's or acp's:
// its manager over the connection's frontend parts (whose cwd is the
// workspace), with show telling the user what the settings, the session
// records and the MCP servers have to say. settle puts the first
// settings in force before the manager is built.
func (r *root) newEditorAgent(res *resolver, fp frontendParts, show func(...lsp.Message), settle func(*editorAgent)) (*editorAgent, error) {
	removeStaleMarkers(fp.cwd, r.log)
	a := &editorAgent{root: r, res: res, cwd: fp.cwd, log: r.log, show: show, folders: slices.Clone(fp.folders)}
	settle(a)
	// A session record that cannot be written is shown, and so is
	// whether it was written again whole.
	if r.sessions != nil {
		r.sessions.Notify(func(msg string) { show(lsp.Message{Error: true, Text: msg}) })
	}
	// An MCP server of the configuration that fails to start is shown
	// once.
	r.mcpNotices.Listen(func(msg string) {
		r.log.Warn(msg)
		show(lsp.Message{Error: true, Text: msg})
	})
	// A prompt that waited in the queue starts with the settings of the
	// config files as they are then, like one the user sends.
	fp.beforeQueued = func() { a.tell(a.fresh()) }
	mgr, err := r.newManager(fp)
	if err != nil {
		return nil, err
	}
	a.Manager = mgr
	a.tell(a.folderNotices(fp.folders))
	return a, nil
}

// Configure applies the editor's new settings (lsp.Configurable).
func (a *editorAgent) Configure(settings json.RawMessage) []lsp.Message {
	return a.configure(settings)
}

// configure resolves the settings again with the editor's settings and
// puts them in force for new sessions and the next turns.
func (a *editorAgent) configure(settings json.RawMessage) []lsp.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.editor = settings
	return a.reload()
}

// settled takes the settings resolved before the agent was built, from
// the config files as stamp says they were then, as its own: they are
// not resolved again, and the problems told then (msgs) are not told
// twice.
func (a *editorAgent) settled(stamp string, msgs []lsp.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stamp = stamp
	a.shown = map[string]bool{}
	for _, m := range msgs {
		a.shown[m.Text] = true
	}
}

// reload resolves the settings and applies them. Called with a.mu held.
func (a *editorAgent) reload() []lsp.Message {
	editor, eprobs := config.EditorLayer(a.editor, "editor settings")
	a.stamp = filesStamp(a.res.userFile, a.cwd)
	s, probs := a.res.resolve(a.cwd, editor)
	msgs := problemMessages(append(eprobs, probs...))
	if msg := agent.HomeWorkspaceReadOnly(a.cwd, s.SandboxMode, s.AllowHomeWorkspace); msg != "" {
		msgs = append(msgs, lsp.Message{Text: msg})
	}
	if err := a.root.update(s); err != nil {
		return append(msgs, lsp.Message{Error: true, Text: "agent-ls: the new settings cannot apply: " + err.Error()})
	}
	if a.Manager != nil {
		folders := slices.Clone(a.folders)
		if err := a.Manager.UpdateDefaults(func(d *agent.Defaults) { *d = s.agentDefaults(); d.Folders = folders }); err != nil {
			msgs = append(msgs, lsp.Message{Error: true, Text: "agent-ls: the new settings cannot apply: " + err.Error()})
		}
	}
	// Tell the user what is new: the same warning at every change of
	// the editor's settings would be noise.
	var fresh []lsp.Message
	shown := map[string]bool{}
	for _, m := range msgs {
		shown[m.Text] = true
		if !a.shown[m.Text] {
			a.log.Warn(m.Text)
			fresh = append(fresh, m)
		}
	}
	a.shown = shown
	return fresh
}

// fresh reads the config files again if they changed since they were
// last read, and returns what to tell the user about them.
func (a *editorAgent) fresh() []lsp.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	if filesStamp(a.res.userFile, a.cwd) == a.stamp {
		return nil
	}
	return a.reload()
}

// NewSession starts a session with the settings of the files as they are.
func (a *editorAgent) NewSession(o agent.SessionOptions) (agent.SessionInfo, error) {
	a.tell(a.fresh())
	info, err := a.Manager.NewSession(o)
	if err == nil {
		a.tell(a.homeNotice(info.Cwd))
		a.tell(a.folderNotices(o.Folders))
	}
	return info, err
}

// homeNotice is the warning for a session in cwd whose sandbox is
// read-only because cwd is the home folder, unless already told.
func (a *editorAgent) homeNotice(cwd string) []lsp.Message {
	s := a.root.currentSettings()
	msg := agent.HomeWorkspaceReadOnly(cwd, s.SandboxMode, s.AllowHomeWorkspace)
	a.mu.Lock()
	defer a.mu.Unlock()
	if msg == "" || a.shown[msg] {
		return nil
	}
	if a.shown == nil {
		a.shown = map[string]bool{}
	}
	a.shown[msg] = true
	return []lsp.Message{{Text: msg}}
}

// StartTurn starts a turn with the settings of the files as they are.
func (a *editorAgent) StartTurn(sessionID string, in agent.TurnInput) (*agent.Turn, error) {
	a.tell(a.fresh())
	return a.Manager.StartTurn(sessionID, in)
}

// Submit starts or queues a prompt with the settings of the files as
// they are.
func (a *editorAgent) Submit(sessionID string, in agent.TurnInput) (agent.Submitted, error) {
	a.tell(a.fresh())
	return a.Manager.Submit(sessionID, in)
}

// Steer sends a message into the running turn, or starts one, with the
// settings of the files as they are.
func (a *editorAgent) Steer(sessionID string, in agent.TurnInput, queuedTurnID string) (agent.SteerResult, error) {
	a.tell(a.fresh())
	return a.Manager.Steer(sessionID, in, queuedTurnID)
}

// ResumeQueue lets a paused queue go on with the settings of the files
// as they are.
func (a *editorAgent) ResumeQueue(sessionID string) (string, error) {
	a.tell(a.fresh())
	return a.Manager.ResumeQueue(sessionID)
}

// ApprovePlan starts (or queues) the turn that carries the plan out with
// the settings of the files as they are.
func (a *editorAgent) ApprovePlan(sessionID string) (agent.Submitted, error) {
	a.tell(a.fresh())
	return a.Manager.ApprovePlan(sessionID)
}

// Close interrupts the turns and closes the sessions' records, so
// another connection can bring them back.
func (a *editorAgent) Close() { a.root.closeManager(a.Manager) }

func (a *editorAgent) tell(msgs []lsp.Message) {
	if len(msgs) > 0 && a.show != nil {
		a.show(msgs...)
	}
}

// filesStamp identifies the versions of the config files: a change to
// either gives another stamp.
func filesStamp(userFile, projectRoot string) string {
	var b strings.Builder
	for _, p := range []string{userFile, filepath.Join(projectRoot, config.ProjectFile)} {
		if st, err := os.Stat(p); err == nil {
			b.WriteString(p + "@" + st.ModTime().Format(time.RFC3339Nano) + "/" + strconv.FormatInt(st.Size(), 10) + ";")
		}
	}
	return b.String()
}

// problemMessages turns configuration problems into at most two messages
// for the user: what was not used, and what was ignored.
func problemMessages(probs []config.Problem) []lsp.Message {
	var errs, ignored []string
	for _, p := range probs {
		if p.Ignored {
			ignored = append(ignored, p.String())
		} else {
			errs = append(errs, p.String())
		}
	}
	var msgs []lsp.Message
	if len(errs) > 0 {
		msgs = append(msgs, lsp.Message{Error: true, Text: "agent-ls: configuration errors:\n" + strings.Join(errs, "\n")})
	}
	if len(ignored) > 0 {
		msgs = append(msgs, lsp.Message{Text: "agent-ls: the project's .agent-ls/config.toml may only narrow your settings; ignored:\n" + strings.Join(ignored, "\n")})
	}
	return msgs
}
