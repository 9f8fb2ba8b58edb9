package app

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// addDirFlag registers exec's --add-dir (Codex's flag, repeatable): a
// further workspace folder of the session.
func addDirFlag(fs *flag.FlagSet) *[]string {
	var dirs []string
	fs.Func("add-dir", "a further workspace `folder` (repeatable): inside the session's workspace, writable with its own protected names unless it is / or your home folder (or holds it) or one of agent-ls's own folders", func(v string) error {
		abs, err := filepath.Abs(v)
		if err != nil {
			return fmt.Errorf("--add-dir: %w", err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return fmt.Errorf("--add-dir %s: not a directory", v)
		}
		dirs = append(dirs, abs)
		return nil
	})
	return &dirs
}

// execFolders gives the session the --add-dir folders (a resumed one
// too) and tells the terminal about those that stay read-only.
func execFolders(mgr *agent.Manager, info agent.SessionInfo, o execOptions, stderr io.Writer) error {
	if len(o.addDirs) == 0 {
		return nil
	}
	if _, err := mgr.UpdateSession(info.SessionID, func(so *agent.SessionOptions) { so.Folders = o.addDirs }); err != nil {
		return err
	}
	if o.jsonOut {
		return nil
	}
	for _, d := range o.addDirs {
		if msg := mgr.FolderNotice(d, info.SandboxMode); msg != "" {
			fmt.Fprintf(stderr, "agent-ls exec: %s\n", strings.TrimPrefix(msg, "agent-ls: "))
		}
	}
	return nil
}
