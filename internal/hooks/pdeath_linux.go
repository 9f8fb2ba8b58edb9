package hooks

import "syscall"

// diesWithParent has the kernel kill the hook if agent-ls dies first (even
// by SIGKILL, when nothing of agent-ls runs to stop it).
func diesWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
