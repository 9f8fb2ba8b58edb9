//go:build unix && !linux

package hooks

import "syscall"

// diesWithParent: only Linux can tie a child's life to its parent's.
func diesWithParent(*syscall.SysProcAttr) {}
