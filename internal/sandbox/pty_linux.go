package sandbox

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// PTYRows and PTYCols are the window size of the terminals OpenPTY opens.
const (
	PTYRows = 24
	PTYCols = 80
)

// OpenPTY opens a new pseudo-terminal: the master agent-ls reads and
// writes, and the slave the command gets as its standard streams and
// controlling terminal. Neither is anyone's controlling terminal yet.
func OpenPTY() (master, slave *os.File, err error) {
	// Non-blocking, the master goes through Go's poller: closing it ends
	// a Read still waiting.
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	fail := func(what string, err error) (*os.File, *os.File, error) {
		master.Close()
		return nil, nil, fmt.Errorf("pty: %s: %w", what, err)
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		return fail("unlock", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		return fail("number", err)
	}
	name := "/dev/pts/" + strconv.FormatUint(uint64(n), 10)
	sfd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("open "+name, err)
	}
	slave = os.NewFile(uintptr(sfd), name)
	if err := unix.IoctlSetWinsize(sfd, unix.TIOCSWINSZ, &unix.Winsize{Row: PTYRows, Col: PTYCols}); err != nil {
		slave.Close()
		return fail("window size", err)
	}
	return master, slave, nil
}

// AttachPTY makes slave, a terminal OpenPTY opened, the command's
// standard streams and the controlling terminal of the session Command
// starts it in. The seccomp filter still refuses TIOCSTI on it.
func (c *Cmd) AttachPTY(slave *os.File) {
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr.Setctty, c.SysProcAttr.Ctty = true, 0
}
