package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// headerTimeout bounds how long a client may take to send its request
// line and headers, and maxHeaderBytes how much they may weigh (as
// net/http's server default): a command cannot make agent-ls hold more.
const (
	headerTimeout  = 30 * time.Second
	maxHeaderBytes = 1 << 20
)

// serveConn answers one client connection: a CONNECT tunnel, or one
// plain HTTP request forwarded with "Connection: close".
func (p *Proxy) serveConn(ctx context.Context, c net.Conn, client Client) {
	defer c.Close()
	lr := &io.LimitedReader{R: c, N: maxHeaderBytes}
	br := bufio.NewReaderSize(lr, 4096)
	c.SetReadDeadline(time.Now().Add(headerTimeout))
	req, err := http.ReadRequest(br)
	if lr.N <= 0 {
		writeStatus(c, 431, fmt.Sprintf("agent-ls proxy: the request's headers are over %d bytes", maxHeaderBytes))
		return
	}
	if err != nil {
		writeStatus(c, 400, "agent-ls proxy: bad request: "+err.Error())
		return
	}
	c.SetReadDeadline(time.Time{})
	lr.N = math.MaxInt64 // the body or the tunnel: no bound but the peer's
	host, port, perr := target(req)
	if perr != nil {
		writeStatus(c, perr.status, perr.text)
		return
	}
	acc := Access{Host: normalHost(host), Port: port, Decision: "denied", Client: client}
	defer func() { p.report(acc) }()
	addrs, refused := p.admit(ctx, host, port, client)
	if refused != nil {
		writeStatus(c, refused.status, refused.text)
		return
	}
	up, err := p.dial(ctx, addrs)
	if err != nil {
		acc.Decision = "allowed"
		writeStatus(c, 502, fmt.Sprintf("agent-ls proxy: cannot connect to %s: %v", hostPort(host, port), err))
		return
	}
	defer up.Close()
	acc.Decision = "allowed"
	if req.Method == http.MethodConnect {
		acc.Bytes = tunnel(c, br, up)
		return
	}
	acc.Bytes = forward(c, req, up)
}

// target is the host and port a request is for: CONNECT's authority
// (port required), or a plain request's absolute http:// URL.
func target(req *http.Request) (string, int, *refusal) {
	hostport, defPort := req.Host, 0
	if req.Method != http.MethodConnect {
		if req.URL.Scheme != "http" || req.URL.Host == "" {
			return "", 0, &refusal{400, "agent-ls proxy: only CONNECT and absolute http:// requests are proxied"}
		}
		hostport, defPort = req.URL.Host, 80
	}
	host, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		if defPort == 0 {
			return "", 0, &refusal{400, "agent-ls proxy: CONNECT needs host:port"}
		}
		host, ps = hostport, strconv.Itoa(defPort)
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 || host == "" {
		return "", 0, &refusal{400, "agent-ls proxy: bad host or port " + hostport}
	}
	return host, port, nil
}

// writeStatus answers with a short text body and closes the exchange.
func writeStatus(w io.Writer, status int, text string) {
	body := text + "\n"
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

// tunnel relays bytes both ways between the client and the host until
// both sides are done, and returns how many moved. What the client sent
// after its CONNECT (already buffered) goes first.
func tunnel(c net.Conn, br *bufio.Reader, up net.Conn) int64 {
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return 0
	}
	var sent int64
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		m, err := up.Write(b)
		sent += int64(m)
		if err != nil {
			return sent
		}
	}
	var wg sync.WaitGroup
	var recv atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		n, _ := io.Copy(c, up)
		recv.Store(n)
		closeWrite(c)
	}()
	n, _ := io.Copy(up, c)
	sent += n
	closeWrite(up)
	wg.Wait()
	return sent + recv.Load()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// hopHeaders are the headers of one hop, not passed on.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward sends one plain HTTP request to the host in origin form and
// relays its answer, both streamed; the exchange then closes.
func forward(c net.Conn, req *http.Request, up net.Conn) int64 {
	cu := &countingConn{Conn: up}
	for _, h := range req.Header.Values("Connection") {
		req.Header.Del(h)
	}
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	req.RequestURI = ""
	req.Close = true
	if err := req.Write(cu); err != nil {
		writeStatus(c, 502, "agent-ls proxy: sending the request: "+err.Error())
		return cu.n.Load()
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(cu, 4096), req)
	if err != nil {
		writeStatus(c, 502, "agent-ls proxy: reading the answer: "+err.Error())
		return cu.n.Load()
	}
	defer resp.Body.Close()
	resp.Close = true
	resp.Write(c)
	return cu.n.Load()
}

// countingConn counts the bytes read and written.
type countingConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.n.Add(int64(n))
	return n, err
}
