//go:build !linux

package tools

import (
	"errors"
	"os"
)

// openPTY: agent-ls opens pseudo-terminals on Linux only; elsewhere
// exec_command with tty=true says so and the model can run without one.
func openPTY() (master, slave *os.File, err error) {
	return nil, nil, errors.New("a pseudo-terminal (tty=true) is available on Linux only; run the command with tty=false")
}
