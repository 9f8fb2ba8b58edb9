package tools

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Window size of the terminal a tty session gets.
const (
	ptyRows = 24
	ptyCols = 80
)

// openPTY opens a new pseudo-terminal: the master agent-ls reads and
// writes, and the slave the command gets as its standard streams and
// controlling terminal. Neither is anyone's controlling terminal yet.
func openPTY() (master, slave *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
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
	if err := unix.IoctlSetWinsize(sfd, unix.TIOCSWINSZ, &unix.Winsize{Row: ptyRows, Col: ptyCols}); err != nil {
		slave.Close()
		return fail("window size", err)
	}
	return master, slave, nil
}
