package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// The loopback network of a session. With the network off, the commands
// that share a [SocketRegistry] (one agent session's) share one network
// namespace holding nothing but lo, up: a dev server one command starts
// on 127.0.0.1 or ::1 is reached by the next, while nothing reaches the
// host's network, its loopback or its abstract Unix sockets (which
// belong to a network namespace), nor another session's loopback.
//
// agent-ls makes the namespace, and a user namespace that owns it, at
// the first command that needs it (netns_linux.c: a child sharing
// agent-ls's memory and descriptors enters both, maps the agent's ids,
// brings lo up, opens them and exits) and holds them by their
// descriptors alone: no process stands by. Closing the registry (the
// session's end) closes them, and the kernel frees the namespace once the
// last command in it has ended; the death of agent-ls, kill -9 included,
// closes them too, and its commands end with it.
//
// Each command's helper joins the two first (the plan's 'J' record,
// before its own user, mount and PID namespaces, so its user namespace is
// a child of the session's and the command has no capability over the
// session's network), and its filter then lets TCP and UDP sockets be
// made; their connect and bind go to the supervisor like those of Unix
// sockets, which makes them only on sockets of the session's namespace.
// Where this cannot be (no user namespaces, the helper's namespaces
// disabled, no supervisor for connect and bind) the command has no
// network at all, as before.

// sessionNet is a session's user and network namespaces.
type sessionNet struct {
	user, net *os.File
}

func (n *sessionNet) close() {
	if n != nil {
		n.user.Close()
		n.net.Close()
	}
}

// netNamespaces returns duplicates of the descriptors of the session's
// user and network namespaces for one command's helper, for the caller to
// close once the helper started; the namespaces are made on first use.
func (r *SocketRegistry) netNamespaces() (user, net *os.File, err error) {
	if r == nil {
		return nil, nil, errors.New("sandbox: no session")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return nil, nil, errRegistryClosed
	case r.netErr != nil:
		return nil, nil, r.netErr
	case r.net == nil:
		n, err := newSessionNet()
		if err != nil {
			r.netErr = err
			slog.Warn("sandbox: the session's commands get no loopback network", "err", err)
			return nil, nil, err
		}
		r.net = n
	}
	if user, err = dupFile(r.net.user); err != nil {
		return nil, nil, err
	}
	if net, err = dupFile(r.net.net); err != nil {
		user.Close()
		return nil, nil, err
	}
	return user, net, nil
}

func dupFile(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: session network: %w", err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// joinNet gives the plan the session's network namespace, and says so,
// when the command runs with the network off in namespaces of its own
// (inNS), has a session (p.Sockets) and the supervisor can decide connect
// and bind; otherwise, or when the namespace cannot be made, the command
// has no network at all.
func (pl *plan) joinNet(p Policy, inNS bool) bool {
	if p.Network || !inNS || p.Sockets == nil {
		return false
	}
	if ok, _ := unixSocketSupport(); !ok {
		return false
	}
	user, net, err := p.Sockets.netNamespaces()
	if err != nil {
		return false
	}
	pl.netUser, pl.netNS = user, net
	return true
}

var sessionNetProbe struct {
	once sync.Once
	err  error
}

// sessionNetSupport says whether a session's network namespace can be
// made here (asked once, by making one), given that the helper enters
// namespaces and the supervisor decides connect and bind; the note says
// why not.
func sessionNetSupport(c Capabilities) (bool, string) {
	switch {
	case !c.Namespaces:
		return false, "no user namespaces: " + c.NamespaceNote
	case !c.UnixSockets:
		return false, "no supervisor for connect and bind: " + c.UnixSocketsNote
	}
	p := &sessionNetProbe
	p.once.Do(func() {
		n, err := newSessionNet()
		n.close()
		p.err = err
	})
	if p.err != nil {
		return false, p.err.Error()
	}
	return true, ""
}

// explainLoopback says, for --explain, whether the commands of a session
// share a loopback network.
func explainLoopback(line func(string, ...any), p Policy, c Capabilities) {
	if p.Network {
		return
	}
	if !c.SessionNetwork || p.NoNamespace {
		note := c.SessionNetworkNote
		if p.NoNamespace {
			note = "the helper's namespaces are disabled"
		}
		line("loopback: the commands of a session share no loopback network here (%s);", note)
		line("         TCP and UDP sockets are refused: use Unix sockets in the workspace")
		return
	}
	line("loopback: the commands of one agent-ls session share a network namespace of their")
	line("         own with only lo (127.0.0.1, ::1): a server one command starts on a port is")
	line("         reached by the next; TCP and UDP sockets allowed there, their connect and bind")
	line("         made by the supervisor on sockets of that namespace only; nothing reaches the")
	line("         host's network, its loopback or its abstract Unix sockets, nor another")
	line("         session's loopback; the command has no capability over the namespace")
	line("         (lo, addresses and routes stay as they are); `agent-ls sandbox` alone runs")
	line("         outside any session: no loopback there")
}

// loopbackSummary is the loopback part of Capabilities.Summary.
func loopbackSummary(c Capabilities) string {
	if !c.SessionNetwork {
		return "; commands of a session share no loopback network here (" + c.SessionNetworkNote + "): TCP and UDP sockets are refused, so a server one command starts must listen on a Unix socket in the workspace for the next to reach it"
	}
	return "; besides, the commands of one session share a loopback network of their own (127.0.0.1 and ::1, TCP and UDP sockets allowed there): a server one command starts on a port is reached by the session's next commands, while the host's network, its loopback and other sessions' stay unreachable"
}
