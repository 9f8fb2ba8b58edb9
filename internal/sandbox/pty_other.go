//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

// OpenPTY: agent-ls opens pseudo-terminals on Linux only; elsewhere
// exec_command with tty=true says so and the model can run without one.
func OpenPTY() (master, slave *os.File, err error) {
	return nil, nil, errors.New("a pseudo-terminal (tty=true) is available on Linux only; run the command with tty=false")
}

// AttachPTY: OpenPTY gives no terminal here to attach.
func (c *Cmd) AttachPTY(slave *os.File) {
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
}
