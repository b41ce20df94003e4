//go:build linux

package proxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// fastConn is a connection on the fast relay. Everything in it is owned by
// its loop's goroutine until release records the fastEnd; from then on by
// the goroutine that continues the connection (afterFast).
//
// No goroutine waits for a connection on the fast relay: the goroutine
// that registers it (relayFast) returns once it has let go of the
// connection, and whichever of it and release comes last starts afterFast
// (see arrive). A parked goroutine would cost its stack, 8 KB or more for
// one that went through authentication, per idle connection.
type fastConn struct {
	c      *conn
	loop   *fastLoop
	filter StatementFilter // nil: statements need no inspection
	quick  QuickObserver   // nil: every statement the filter flags demotes

	cl fastDir // client to upstream
	up fastDir // upstream to client

	end      fastEnd // set by release
	released bool
	// waiting counts relayFast and release until both are done with fc;
	// the last starts afterFast.
	waiting atomic.Int32
}

// fastDir is one direction: bytes read from fd wait in buf until written
// to the other direction's fd. buf is taken from the loop's free list for a
// read and given back once empty, so an idle connection holds no buffer.
//
// buf[start:fwd] is framed and counted, to be written; buf[fwd:end] is read
// but not yet framed (a partial header, or a statement waiting to be whole
// for the filter). While buf[start:fwd] is not empty the source is not read
// (backpressure), so memory stays bounded by the buffer whatever the
// message sizes.
type fastDir struct {
	fd              int
	buf             []byte
	start, fwd, end int
	rem             int    // bytes of the frame being forwarded not yet framed
	interest        uint32 // epoll events watched on fd
	msgs            uint64 // frames framed since the last flush counted them
	upstream        bool   // the direction from the upstream

	// ins (upstream direction only) is what answerQuery queued for the
	// ReadyForQuery at buf[insAt], framed: it is written between
	// buf[start:insAt] and buf[insAt:fwd]; nil once written. held: framing
	// stopped at a ReadyForQuery, to go on once what waits is written.
	// parked: a goroutine works out what the frame at fwd needs
	// (fastasync_linux.go); the source is neither read nor framed.
	ins    []byte
	insAt  int
	held   bool
	parked bool
}

// readCode classifies an error reading d's source. (Derived rather than
// stored: every idle connection carries two fastDirs.)
func (d *fastDir) readCode() ErrorCode {
	if d.upstream {
		return CodeBackendRead
	}
	return CodeClientRead
}

// writeCode classifies an error writing d's bytes to the other side.
func (d *fastDir) writeCode() ErrorCode {
	if d.upstream {
		return CodeClientWrite
	}
	return CodeBackendWrite
}

// waiting reports whether bytes wait to be written to the other side.
func (d *fastDir) waiting() bool { return d.start < d.fwd || d.ins != nil }

// pending returns what waits to be written, in order: a copy when an
// injection is among it.
func (d *fastDir) pending() []byte {
	if d.ins == nil {
		return d.buf[d.start:d.fwd]
	}
	p := make([]byte, 0, d.fwd-d.start+len(d.ins))
	p = append(p, d.buf[d.start:d.insAt]...)
	p = append(p, d.ins...)
	return append(p, d.buf[d.insAt:d.fwd]...)
}

// fastEnd is how a connection left the fast relay: the sockets (no longer
// watched) and either the error that ended it or, when demoted, the
// state for the goroutine relay.
type fastEnd struct {
	err     error
	demoted bool
	reason  string // why it was demoted, for the debug log
}

// relayFast hands the connection to an event loop and reports true: from
// then on the connection is the fast relay's, and afterFast, on another
// goroutine, goes on with it when the loop ends or demotes it. It reports
// false, having changed nothing, if the connection cannot move to the
// loop.
func (c *conn) relayFast(filter StatementFilter) bool {
	cfd, err := dupSocket(c.client)
	if err != nil {
		c.logDebug("fast relay unavailable", "err", err)
		return false
	}
	ufd, err := dupSocket(c.upstream)
	if err != nil {
		syscall.Close(cfd)
		c.logDebug("fast relay unavailable", "err", err)
		return false
	}
	fc := &fastConn{
		c: c, filter: filter, quick: quickObserver(filter),
		cl: fastDir{fd: cfd},
		up: fastDir{fd: ufd, upstream: true},
	}
	fc.waiting.Store(2)
	if err := c.s.fast.register(fc); err != nil {
		syscall.Close(cfd)
		syscall.Close(ufd)
		c.logDebug("fast relay unavailable", "err", err)
		return false
	}
	c.s.relay.fast.Add(1)
	// Go's own descriptors go: closing them removes them from the Go
	// netpoller, which would otherwise also wake on every message. The
	// sockets live on in the duplicates, and afterFast makes new
	// net.Conns of them; dropping the closed ones frees their memory
	// while the connection idles.
	c.connMu.Lock()
	c.client.Close()
	c.upstream.Close()
	c.client, c.upstream = nil, nil
	c.connMu.Unlock()
	// The goroutine relay's buffers are empty (see fastFilter) and
	// unused while the loop relays; resume takes some again if needed.
	c.unwireRelay()
	// An abort (Shutdown) ends the connection on the loop: conn.abort
	// cancels c.ctx and then looks for c.parked, so one of it and this
	// check sees the other. (A context.AfterFunc would do, at the cost
	// of some 400 bytes per idle connection.)
	c.parked.Store(fc)
	if c.ctx.Err() != nil {
		fc.abort()
	}
	fc.arrive()
	return true
}

// arrive is called once by relayFast and once by release; the second
// starts afterFast. The atomic add orders everything either did before
// it ahead of afterFast.
func (fc *fastConn) arrive() {
	if fc.waiting.Add(-1) == 0 {
		go fc.c.afterFast(fc)
	}
}

// afterFast goes on with a connection the fast relay let go of: it ends
// it, or continues on the goroutine relay, and then finishes it as run
// would have.
func (c *conn) afterFast(fc *fastConn) {
	c.parked.Store(nil)
	err := c.leaveFast(fc)
	c.s.connDone(c, c.finish(err))
}

// leaveFast takes the sockets back from fc and returns the connection's
// error once it has ended, on the fast relay or, if fc was demoted, on the
// goroutine relay.
func (c *conn) leaveFast(fc *fastConn) error {
	end := fc.end
	if f := c.s.knobs.onFastRelayEnd; f != nil {
		f(c.id, end.demoted)
	}
	client, cerr := fileConn(fc.cl.fd)
	up, uerr := fileConn(fc.up.fd)
	if cerr != nil || uerr != nil {
		for _, nc := range []net.Conn{client, up} {
			if nc != nil {
				nc.Close()
			}
		}
		return c.endFast(&Error{Code: CodeBackendRead, Err: fmt.Errorf("fast relay: taking the sockets back: %w", errors.Join(cerr, uerr))})
	}
	if !end.demoted {
		c.setConns(client, up)
		return c.endFast(end.err)
	}
	c.logDebug("fast relay: continuing on the goroutine relay", "reason", end.reason)
	c.s.relay.demoted.Add(1)
	c.resume(&fastHandback{
		client: client, upstream: up,
		clPending: fc.cl.pending(), upPending: fc.up.pending(),
		clHeld: fc.cl.buf[fc.cl.fwd:fc.cl.end], upHeld: fc.up.buf[fc.up.fwd:fc.up.end],
		clSkip: fc.cl.rem, upSkip: fc.up.rem,
	})
	return c.relayGoroutines()
}

// dupSocket returns a close-on-exec duplicate of c's socket.
func dupSocket(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, fmt.Errorf("fast relay: %T has no file descriptor", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("fast relay: %w", err)
	}
	nfd := -1
	var derr error
	if err := raw.Control(func(fd uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		if errno != 0 {
			derr = os.NewSyscallError("fcntl", errno)
			return
		}
		nfd = int(r)
	}); err != nil {
		return -1, fmt.Errorf("fast relay: %w", err)
	}
	if derr != nil {
		return -1, fmt.Errorf("fast relay: dup: %w", derr)
	}
	// The duplicate shares the file status flags: it is non-blocking
	// already, as Go's sockets are. Say so anyway; it must never block.
	if err := syscall.SetNonblock(nfd, true); err != nil {
		syscall.Close(nfd)
		return -1, fmt.Errorf("fast relay: %w", os.NewSyscallError("fcntl", err))
	}
	return nfd, nil
}

// fileConn turns fd back into a net.Conn and closes fd.
func fileConn(fd int) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), "socket")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("fast relay: %w", err)
	}
	return c, nil
}

// onEvent handles readiness of fd, the source of one direction and the
// destination of the other.
func (fc *fastConn) onEvent(fd int, events uint32) {
	d, o := &fc.cl, &fc.up
	if fd == fc.up.fd {
		d, o = &fc.up, &fc.cl
	}
	if events&syscall.EPOLLOUT != 0 && o.waiting() {
		if !fc.flush(o) {
			return
		}
		if o.held && !o.waiting() && !fc.pump(o) {
			return
		}
	}
	if events&(syscall.EPOLLIN|syscall.EPOLLHUP|syscall.EPOLLERR) == 0 {
		return
	}
	if d.waiting() || d.parked {
		// Not reading fd: its bytes wait for the other side. A hang-up
		// or error is reported whatever the interest, level-triggered,
		// so it must end the connection now or the loop would spin. A
		// hang-up means the peer reset or fully closed the socket: the
		// bytes it sent are lost either way.
		if events&(syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
			fc.release(fastEnd{err: &Error{Code: d.readCode(), Err: socketError(fd)}})
		}
		return
	}
	fc.read(d)
}

// socketError is the pending error of fd, or io.EOF if none.
func socketError(fd int) error {
	if v, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ERROR); err == nil && v != 0 {
		return os.NewSyscallError("read", syscall.Errno(v))
	}
	return io.EOF
}

// read does one read from d's source, frames what came and writes what
// can be forwarded.
func (fc *fastConn) read(d *fastDir) {
	if d.buf == nil {
		d.buf = fc.loop.getBuf(fc.c.bufSize())
	}
	if d.end == len(d.buf) {
		// frame never leaves the buffer full without something to
		// write; hand the connection over rather than misread a
		// zero-length read as EOF.
		fc.demote("read buffer full")
		return
	}
	n, errno := sysRead(d.fd, d.buf[d.end:])
	switch {
	case errno == syscall.EAGAIN || errno == syscall.EINTR:
		// Level-triggered: it will be reported again.
		if d.end == 0 {
			fc.loop.putBuf(d.buf)
			d.buf = nil
		}
		return
	case errno != 0:
		d.dropEmptyBuf(fc.loop)
		fc.release(fastEnd{err: &Error{Code: d.readCode(), Err: os.NewSyscallError("read", errno)}})
		return
	case n == 0:
		err := io.EOF
		if d.rem > 0 || d.end > d.fwd {
			err = io.ErrUnexpectedEOF // as the goroutine relay's reader reports a cut frame
		}
		d.dropEmptyBuf(fc.loop)
		fc.release(fastEnd{err: &Error{Code: d.readCode(), Err: err}})
		return
	}
	d.end += n
	fc.pump(d)
}

// dropEmptyBuf gives d's buffer back to the loop if it holds nothing, as
// when the read that ends a connection was the first into it: otherwise
// every connection's end would take a buffer from the free list for good.
func (d *fastDir) dropEmptyBuf(l *fastLoop) {
	if d.buf != nil && d.end == 0 {
		l.putBuf(d.buf)
		d.buf = nil
	}
}

// pump frames d's bytes and writes them, again while framing stopped
// (held) for an injection that is now out. It reports false if the
// connection was released.
func (fc *fastConn) pump(d *fastDir) bool {
	for {
		if !fc.frame(d) || !fc.flush(d) {
			return false
		}
		if !d.held || d.waiting() || d.parked {
			return true
		}
	}
}

// flush writes d's framed bytes to the other side and updates what the
// loop watches. It reports false if the connection was released.
func (fc *fastConn) flush(d *fastDir) bool {
	o := &fc.up
	if d.upstream {
		o = &fc.cl
	}
	sent := 0
	for d.waiting() {
		n, errno := d.send(o.fd)
		if errno == syscall.EINTR {
			continue
		}
		if errno == syscall.EAGAIN {
			break
		}
		if errno != 0 {
			fc.release(fastEnd{err: &Error{Code: d.writeCode(), Err: os.NewSyscallError("write", errno)}})
			return false
		}
		sent += d.advance(n)
	}
	if sent > 0 {
		fc.countSent(d, sent)
	}
	if !d.waiting() {
		switch {
		case d.end == d.fwd && d.buf != nil:
			// Empty: the buffer goes back to the loop.
			fc.loop.putBuf(d.buf)
			d.buf = nil
			d.start, d.fwd, d.end = 0, 0, 0
		case d.start > 0:
			// Everything framed is out: move the unframed rest to the
			// front.
			d.end = copy(d.buf, d.buf[d.fwd:d.end])
			d.start, d.fwd = 0, 0
		}
	}
	// Read a source only while none of its bytes wait; watch a
	// destination for room only while bytes wait for it.
	wantD, wantO := uint32(0), uint32(0)
	if d.waiting() {
		wantO |= syscall.EPOLLOUT
	} else if !d.parked {
		wantD |= syscall.EPOLLIN
	}
	if o.waiting() {
		wantD |= syscall.EPOLLOUT
	} else if !o.parked {
		wantO |= syscall.EPOLLIN
	}
	for _, w := range [2]struct {
		d    *fastDir
		want uint32
	}{{d, wantD}, {o, wantO}} {
		if err := fc.loop.setInterest(w.d, w.want); err != nil {
			fc.release(fastEnd{err: &Error{Code: w.d.readCode(), Err: fmt.Errorf("fast relay: %w", err)}})
			return false
		}
	}
	return true
}

// send does one write of what waits in d to fd: with an injection, one
// sendmsg of the three parts, so that a response and its notice still
// cost one system call.
func (d *fastDir) send(fd int) (int, syscall.Errno) {
	if d.ins == nil {
		return sysSend(fd, d.buf[d.start:d.fwd])
	}
	var iov [3]unix.Iovec
	k := 0
	for _, p := range [3][]byte{d.buf[d.start:d.insAt], d.ins, d.buf[d.insAt:d.fwd]} {
		if len(p) > 0 {
			iov[k].Base = &p[0]
			iov[k].SetLen(len(p))
			k++
		}
	}
	return sysSendIov(fd, iov[:k])
}

// advance moves past n bytes written by send and returns how many of them
// came from buf (the injected ones are not relayed bytes, as in the
// goroutine relay's counters).
func (d *fastDir) advance(n int) (fromBuf int) {
	if d.ins != nil {
		k := min(n, d.insAt-d.start)
		d.start += k
		n -= k
		fromBuf = k
		if d.start < d.insAt {
			return fromBuf
		}
		m := min(n, len(d.ins))
		d.ins = d.ins[m:]
		n -= m
		if len(d.ins) > 0 {
			return fromBuf
		}
		d.ins = nil
	}
	d.start += n
	return fromBuf + n
}

// countSent adds n bytes sent from d, and the frames framed in d so far,
// to the server's relay counters: one pair of atomic adds per write,
// however many messages it carried.
func (fc *fastConn) countSent(d *fastDir, n int) {
	dir := dirToUpstream
	if d.upstream {
		dir = dirToClient
	}
	fc.c.s.relay.addRelayed(dir, uint64(n), d.msgs)
	d.msgs = 0
}

// demote releases the connection to the goroutine relay; it reports false
// for frame's callers.
func (fc *fastConn) demote(reason string) bool {
	fc.release(fastEnd{demoted: true, reason: reason})
	return false
}

// release stops watching fc's sockets and hands fc to its goroutine.
func (fc *fastConn) release(end fastEnd) {
	if fc.released {
		return
	}
	// Its answers finish on the loop, before the connection leaves it.
	fc.loop.finish()
	fc.released = true
	fc.loop.forget(fc.cl.fd)
	fc.loop.forget(fc.up.fd)
	fc.loop.released()
	fc.end = end
	fc.arrive()
}
