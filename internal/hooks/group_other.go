//go:build !unix

package hooks

import "os/exec"

// ownGroup: without Unix process groups, a timeout kills the hook's own
// process (exec's default); a child it started that outlives it is not
// reached.
func ownGroup(*exec.Cmd) {}
