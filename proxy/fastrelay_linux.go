//go:build linux

package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"sync/atomic"
	"syscall"

	"github.com/pgequiv/pgequiv/protocol"
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
//
// Every idle connection carries one, so it keeps only what cannot be
// derived: the bound on message sizes and the buffer size come from c.
type fastConn struct {
	c      *conn
	loop   *fastLoop
	filter StatementFilter // nil: statements need no inspection

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
	msgs            uint64 // frames framed since the last flush counted them
	interest        uint32 // epoll events watched on fd
	upstream        bool   // the direction from the upstream
}

// readCode classifies an error reading d's source.
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
		c: c, filter: filter,
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
		clPending: fc.cl.buf[fc.cl.start:fc.cl.fwd], upPending: fc.up.buf[fc.up.start:fc.up.fwd],
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
	if events&syscall.EPOLLOUT != 0 && o.start < o.fwd {
		if !fc.flush(o) {
			return
		}
	}
	if events&(syscall.EPOLLIN|syscall.EPOLLHUP|syscall.EPOLLERR) == 0 {
		return
	}
	if d.start < d.fwd {
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
		fc.release(fastEnd{err: &Error{Code: d.readCode(), Err: os.NewSyscallError("read", errno)}})
		return
	case n == 0:
		err := io.EOF
		if d.rem > 0 || d.end > d.fwd {
			err = io.ErrUnexpectedEOF // as the goroutine relay's reader reports a cut frame
		}
		fc.release(fastEnd{err: &Error{Code: d.readCode(), Err: err}})
		return
	}
	d.end += n
	var ok bool
	if d.upstream {
		ok = fc.frameUpstream()
	} else {
		ok = fc.frameClient()
	}
	if ok {
		fc.flush(d)
	}
}

// flush writes d's framed bytes to the other side and updates what the
// loop watches. It reports false if the connection was released.
func (fc *fastConn) flush(d *fastDir) bool {
	o := &fc.up
	if d.upstream {
		o = &fc.cl
	}
	sent := d.start
	for d.start < d.fwd {
		n, errno := sysSend(o.fd, d.buf[d.start:d.fwd])
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
		d.start += n
	}
	if d.start > sent {
		fc.countSent(d, d.start-sent)
	}
	if d.start == d.fwd {
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
	if d.start == d.fwd {
		wantD |= syscall.EPOLLIN
	} else {
		wantO |= syscall.EPOLLOUT
	}
	if o.start == o.fwd {
		wantO |= syscall.EPOLLIN
	} else {
		wantD |= syscall.EPOLLOUT
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

// header returns the type and length field of the frame at d.fwd, and
// false if the header is not complete.
func (d *fastDir) header() (typ byte, n uint32, ok bool) {
	if d.end-d.fwd < protocol.HeaderLen {
		return 0, 0, false
	}
	return d.buf[d.fwd], binary.BigEndian.Uint32(d.buf[d.fwd+1:]), true
}

// take frames the frame of size bytes at d.fwd, as far as it has arrived.
func (d *fastDir) take(size int) {
	k := min(size, d.end-d.fwd)
	d.fwd += k
	d.rem = size - k
}

// skipRest frames the arrived part of the frame being forwarded; it
// reports whether the frame is complete.
func (d *fastDir) skipRest() bool {
	k := min(d.rem, d.end-d.fwd)
	d.fwd += k
	d.rem -= k
	return d.rem == 0
}

// frameClient frames the client's messages as clientStep would, counting
// what it counts. It demotes the connection, at the frame's first byte,
// for a message the goroutine relay must decode or report, and reports
// false then.
func (fc *fastConn) frameClient() bool {
	d, c := &fc.cl, fc.c
	maxMsg := c.opts.MaxMessageSize
	for d.fwd < d.end {
		if d.rem > 0 {
			d.skipRest()
			continue
		}
		typ, n, ok := d.header()
		if !ok {
			return true
		}
		if n < 4 || n > math.MaxInt32 || maxMsg > 0 && int(n) > maxMsg {
			return fc.demote("malformed or oversized client message")
		}
		size := 1 + int(n)
		switch typ {
		case protocol.TypeQuery, protocol.TypeParse:
			if fc.filter != nil {
				if size > len(d.buf) {
					return fc.demote("statement larger than the buffer")
				}
				if d.end-d.fwd < size {
					return true // the filter needs it whole
				}
				if fc.needsObservation(typ, d.buf[d.fwd:d.fwd+size]) {
					return fc.demote("statement for the observer")
				}
			}
			if typ == protocol.TypeQuery {
				c.zSent++ // a Query always ends with one ReadyForQuery
			}
		case protocol.TypeSync, protocol.TypeFunctionCall:
			c.zSent++
			if typ == protocol.TypeSync {
				c.strs.execSinceSync = false
			}
		case protocol.TypeDescribe:
			// Unwatched: a ParameterDescription of this batch cannot be
			// matched to its statement after a demotion (conn_bind.go).
			c.bt.uncertain = c.zSent + 1
		case protocol.TypeBind, protocol.TypeExecute, protocol.TypeClose:
			if typ == protocol.TypeExecute {
				c.strs.execSinceSync = true
			}
			if c.debug() {
				return fc.demote("debug logging")
			}
		case protocol.TypeTerminate:
			// As in clientStep: the upstream's EOF is now a clean end,
			// and no notice waits for a ReadyForQuery.
			c.terminated.Store(true)
			c.inj.close()
		}
		d.take(size)
		d.msgs++
	}
	return true
}

// needsObservation decodes a whole Query or Parse frame and asks the
// filter. A frame that does not decode goes to the goroutine relay, which
// forwards it for the upstream to report.
func (fc *fastConn) needsObservation(typ byte, frame []byte) bool {
	c, l := fc.c, fc.loop
	body := protocol.Body(frame)
	if typ == protocol.TypeQuery {
		if l.query.Decode(body) != nil {
			return true
		}
		return fc.filter.NeedsObservation(&c.session, KindQuery, l.query.SQL)
	}
	if l.parse.Decode(body) != nil {
		return true
	}
	return fc.filter.NeedsObservation(&c.session, KindParse, l.parse.SQL)
}

// frameUpstream frames the upstream's messages as upstreamStep would,
// counting what it counts. No notice is ever queued while a connection is
// on the fast relay (the observer is not called), so ReadyForQuery needs
// no injection here.
func (fc *fastConn) frameUpstream() bool {
	d, c := &fc.up, fc.c
	for d.fwd < d.end {
		if d.rem > 0 {
			d.skipRest()
			continue
		}
		typ, n, ok := d.header()
		if !ok {
			return true
		}
		if n < 4 || n > math.MaxInt32 {
			return fc.demote("malformed upstream message")
		}
		switch typ {
		case protocol.TypeErrorResponse:
			c.sawError = true
		case protocol.TypeReadyForQuery:
			c.zRecv++
			c.strs.done.Store(c.zRecv)
			c.sawError = false
			// The transaction status, for observer state set later in
			// the transaction (SessionTracker); 0: unknown.
			var status byte
			if d.end-d.fwd > protocol.HeaderLen {
				status = d.buf[d.fwd+protocol.HeaderLen]
			}
			if st := c.session.State; st != nil {
				st.TxStatus(status)
			}
		case protocol.TypeParameterStatus:
			// standard_conforming_strings decides how later statements
			// are lexed: read it whole, as upstreamStep does.
			size := 1 + int(n)
			if size > len(d.buf) {
				return fc.demote("parameter status larger than the buffer")
			}
			if d.end-d.fwd < size {
				return true
			}
			c.strs.noteParameterStatus(d.buf[d.fwd : d.fwd+size])
		}
		d.take(1 + int(n))
		d.msgs++
	}
	return true
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
	fc.released = true
	fc.loop.forget(fc.cl.fd)
	fc.loop.forget(fc.up.fd)
	fc.loop.released()
	fc.end = end
	fc.arrive()
}
