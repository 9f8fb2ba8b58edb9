package mcp

import "syscall"

// setParentDeath kills the server when agent-ls dies without stopping it.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
