package sandbox

import (
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// inbox is a listener standing in for a host service: it records the
// payload of each connection or datagram that reaches it, in arrival
// order. Whether a command that has ended reached it is told by a marker
// the test sends afterwards, from outside the sandbox (see quietBefore),
// not by waiting a while for stragglers.
type inbox struct {
	network, addr string
	arrivals      chan string
	markers       int
}

// arrivalTimeout bounds the wait for traffic that must come: it fails a
// broken test instead of hanging it, and is never waited out when the
// traffic comes.
const arrivalTimeout = time.Minute

// listenInbox listens on network at addr ("127.0.0.1:0", a socket path,
// ...); ok is false when this machine has no such family.
func listenInbox(t *testing.T, network, addr string) (b *inbox, ok bool) {
	t.Helper()
	b = &inbox{network: network, arrivals: make(chan string, 64)}
	switch network {
	case "tcp4", "tcp6":
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Logf("no %s listener (%v); skipping that family", network, err)
			return nil, false
		}
		t.Cleanup(func() { l.Close() })
		b.addr = l.Addr().String()
		go b.accept(l)
	default: // udp4, udp6, unixgram
		pc, err := net.ListenPacket(network, addr)
		if err != nil {
			if network == "unixgram" {
				t.Fatal(err)
			}
			t.Logf("no %s listener (%v); skipping that family", network, err)
			return nil, false
		}
		t.Cleanup(func() { pc.Close() })
		b.addr = pc.LocalAddr().String()
		go b.read(pc)
	}
	return b, true
}

func (b *inbox) accept(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		// The senders write one short line and close.
		c.SetReadDeadline(time.Now().Add(arrivalTimeout))
		p, _ := io.ReadAll(io.LimitReader(c, 64))
		c.Close()
		b.arrivals <- string(p)
	}
}

func (b *inbox) read(pc net.PacketConn) {
	buf := make([]byte, 64)
	for {
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		b.arrivals <- string(buf[:n])
	}
}

// quietBefore reports what reached the inbox before a marker the test
// sends now: a command that has ended sent whatever it sent before the
// marker, and the kernel delivers loopback and Unix socket traffic to the
// listening socket as it is sent, so reading up to the marker sees all of
// it. It returns the payloads other than the marker.
func (b *inbox) quietBefore(t *testing.T) []string {
	t.Helper()
	b.markers++
	marker := "marker " + strconv.Itoa(b.markers) + "\n"
	c, err := net.Dial(b.network, b.addr)
	if err != nil {
		t.Fatalf("sending the marker to %s %s: %v", b.network, b.addr, err)
	}
	_, err = c.Write([]byte(marker))
	c.Close()
	if err != nil {
		t.Fatalf("sending the marker to %s %s: %v", b.network, b.addr, err)
	}
	var others []string
	for {
		p, err := b.next()
		if err != nil {
			t.Fatalf("%s inbox: the marker never arrived: %v", b.network, err)
		}
		if p == marker {
			return others
		}
		others = append(others, p)
	}
}

// next returns the next payload to arrive, waiting for it.
func (b *inbox) next() (string, error) {
	select {
	case p := <-b.arrivals:
		return p, nil
	case <-time.After(arrivalTimeout):
		return "", errors.New("nothing arrived within " + arrivalTimeout.String())
	}
}
