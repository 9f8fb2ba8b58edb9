package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The test binary doubles as the helper and as the sandboxed command: with
// testHelperEnv set, `sandbox ARGS` is Main and `attack NAME ARGS` runs one
// of the attacks below. An attack prints what happened and exits 0 when the
// forbidden thing worked, exitBlocked when the kernel refused it.
const (
	testHelperEnv = "AGENT_LS_SANDBOX_TEST_HELPER"
	exitBlocked   = 3
)

func TestMain(m *testing.M) {
	if os.Getenv(testHelperEnv) == "1" && len(os.Args) > 1 {
		switch os.Args[1] {
		case "sandbox":
			os.Exit(Main(os.Args[2:]))
		case "attack":
			os.Exit(runAttack(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

var attacks = map[string]func(args []string) error{
	"write":  func(a []string) error { return os.WriteFile(a[0], []byte("pwned\n"), 0o644) },
	"mkdir":  func(a []string) error { return os.Mkdir(a[0], 0o755) },
	"remove": func(a []string) error { return os.Remove(a[0]) },
	"rename": func(a []string) error { return os.Rename(a[0], a[1]) },
	"link":   func(a []string) error { return os.Link(a[0], a[1]) },
	"symlink-write": func(a []string) error {
		// a[0] is a new link inside the root, a[1] its target outside.
		if err := os.Symlink(a[1], a[0]); err != nil {
			return err
		}
		return os.WriteFile(a[0], []byte("pwned\n"), 0o644)
	},
	"chdir-write": func(a []string) error {
		// Leave the root, then write through the magic cwd link.
		if err := os.Chdir(a[0]); err != nil {
			return err
		}
		return os.WriteFile("/proc/self/cwd/"+a[1], []byte("pwned\n"), 0o644)
	},
	"reopen-write": func(a []string) error {
		// Open read-only (allowed), reopen the descriptor for writing.
		f, err := os.Open(a[0])
		if err != nil {
			return err
		}
		defer f.Close()
		return os.WriteFile(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), []byte("pwned\n"), 0o644)
	},
	"mount-tmpfs": func(a []string) error { return unix.Mount("tmpfs", a[0], "tmpfs", 0, "") },
	// The namespace probe's own steps: a user namespace of the command's
	// own, where it would hold every capability over new mounts.
	"namespaces": func(a []string) error {
		_, err := probeNamespaces()
		return err
	},
	"umount": func(a []string) error { return unix.Unmount(a[0], unix.MNT_DETACH) },
	"dial": func(a []string) error {
		c, err := net.DialTimeout(a[0], a[1], 2*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("hello\n"))
		return err
	},
	"x32-socket": func(a []string) error {
		const x32Bit = 0x40000000
		fd, _, errno := unix.RawSyscall(unix.SYS_SOCKET|x32Bit, unix.AF_INET, unix.SOCK_STREAM, 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	},
	"io_uring": func(a []string) error {
		var params [120]byte // struct io_uring_params
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
		if errno != 0 {
			return errno
		}
		unix.Close(int(fd))
		return nil
	},
	"ptrace": func(a []string) error {
		pid, _ := strconv.Atoi(a[0])
		if err := unix.PtraceAttach(pid); err != nil {
			return err
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, 0, nil)
		return unix.PtraceDetach(pid)
	},
	"vm-read": func(a []string) error {
		pid, _ := strconv.Atoi(a[0])
		buf := make([]byte, 8)
		local := []unix.Iovec{{Base: &buf[0], Len: 8}}
		// The address need not be mapped: EFAULT means the call got through.
		remote := []unix.RemoteIovec{{Base: 0x400000, Len: 8}}
		_, err := unix.ProcessVMReadv(pid, local, remote, 0)
		if errors.Is(err, unix.EFAULT) {
			return nil // the kernel looked at the sibling's memory: not refused
		}
		return err
	},
	"kill": func(a []string) error {
		pid, _ := strconv.Atoi(a[0])
		return unix.Kill(pid, syscall.SIGCONT)
	},
	"unix-connect": func(a []string) error {
		c, err := net.Dial("unix", a[0])
		if err != nil {
			return err
		}
		return c.Close()
	},
	"tiocsti": func(a []string) error {
		// Push a character into the input of stdin's terminal.
		c := byte('x')
		return unix.IoctlSetPointerInt(0, unix.TIOCSTI, int(c))
	},
	"read-proc": func(a []string) error {
		// Another process's environment or memory, through /proc.
		f, err := os.Open("/proc/" + a[0] + "/" + a[1])
		if err != nil {
			return err
		}
		defer f.Close()
		buf := make([]byte, 64)
		_, err = f.Read(buf)
		if a[1] == "mem" && errors.Is(err, unix.EIO) {
			return nil // opened: offset 0 is simply unmapped
		}
		return err
	},
	"euid": func(a []string) error {
		fmt.Println("euid", os.Geteuid())
		return nil
	},
	// Legitimate work: these must succeed.
	"socketpair": func(a []string) error {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		if _, err := unix.Write(fds[0], []byte("ping")); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		buf := make([]byte, 4)
		if _, _, err := unix.Recvfrom(fds[1], buf, 0); err != nil {
			return fmt.Errorf("recv: %w", err)
		}
		if string(buf) != "ping" {
			return fmt.Errorf("got %q", buf)
		}
		return nil
	},
	"unix-serve": func(a []string) error {
		// A Unix server in the cwd that answers one client.
		l, err := net.Listen("unix", a[0])
		if err != nil {
			return err
		}
		defer l.Close()
		fmt.Println("listening")
		c, err := l.Accept()
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Write([]byte("served from the sandbox\n"))
		return err
	},
}

func runAttack(args []string) int {
	if len(args) > 1 && args[0] == "as-runner" {
		return asRunner(args[1], args[2:])
	}
	if len(args) == 0 || attacks[args[0]] == nil {
		fmt.Fprintf(os.Stderr, "unknown attack %q\n", args)
		return 2
	}
	err := attacks[args[0]](args[1:])
	if err == nil {
		fmt.Println("done")
		return 0
	}
	var errno syscall.Errno
	errors.As(err, &errno)
	fmt.Printf("blocked: %v (errno %d)\n", err, errno)
	return exitBlocked
}

// asRunner plays the agent: it runs argv under a workspace-write policy for
// cwd through the real runner, with this binary as helper, and relays the
// outcome. Used to test the runner as an unprivileged user.
func asRunner(cwd string, argv []string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cmd, err := Command(context.Background(), Policy{Mode: WorkspaceWrite, Cwd: cwd}, argv, os.Environ(), self)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("namespaces %v\n", Probe().Namespaces)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}
