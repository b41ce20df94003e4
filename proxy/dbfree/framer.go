package dbfree

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/pgequiv/pgequiv/protocol"
)

// framer sits between the socket and pgproto3's Backend and hands it one
// whole message at a time. Framing here, rather than in pgproto3, gives
// three things pgproto3 does not:
//
//   - an idle timeout: the wait for a message's first byte is bounded by
//     client_idle_timeout, and the rest of the message by
//     client_read_timeout (a client that starts a message and stalls);
//   - the size check before the body is read;
//   - strict decoding of Query, Parse and Bind with the protocol package,
//     which refuses bytes after the last field (pgproto3's Parse ignores
//     them, so "SELECT 1\0<junk>" would be judged as "SELECT 1").
//
// Because pgproto3 reads at least what it needs and the framer returns at
// most one message per Read, the framer reading a header means the server
// is waiting for the client's next message.
type framer struct {
	c   *conn
	br  *bufio.Reader
	max int
	// armed: startup is over and the timeouts apply; during startup the
	// socket's startup deadline does.
	armed        bool
	idle, stall  time.Duration
	frame        []byte // the current message, header included
	off          int    // how much of frame was handed out
	readDeadline bool   // a read deadline is set on the socket
}

func newFramer(c *conn, nc net.Conn, maxMessageSize int) *framer {
	return &framer{c: c, br: bufio.NewReaderSize(nc, 8<<10), max: maxMessageSize}
}

// arm starts applying the idle and read timeouts (0: none).
func (f *framer) arm(idle, stall time.Duration) {
	f.armed, f.idle, f.stall = true, idle, stall
}

func (f *framer) Read(p []byte) (int, error) {
	if f.off == len(f.frame) {
		if err := f.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, f.frame[f.off:])
	f.off += n
	return n, nil
}

// next reads one whole message into frame.
func (f *framer) next() error {
	f.frame, f.off = f.frame[:0], 0 // an error leaves nothing to hand out
	if f.armed && f.idle > 0 && f.br.Buffered() == 0 {
		if err := f.deadline(f.idle); err != nil {
			return err
		}
		if _, err := f.br.Peek(1); err != nil {
			if isTimeout(err) {
				return errorf(codeIdleSessionTimeout, "terminating connection due to idle-session timeout (client_idle_timeout %v)", f.idle)
			}
			return err
		}
	}
	if f.armed {
		if err := f.deadline(f.stall); err != nil {
			return err
		}
	}
	var hdr [5]byte
	if _, err := io.ReadFull(f.br, hdr[:]); err != nil {
		return f.readErr(err)
	}
	typ, n := hdr[0], int(int32(binary.BigEndian.Uint32(hdr[1:])))
	if n < 4 {
		return &protocol.MalformedError{Type: typ, Reason: fmt.Sprintf("invalid message length %d", n)}
	}
	if n-4 > f.max {
		return &protocol.MessageTooLargeError{Type: typ, Size: n, Max: f.max}
	}
	if cap(f.frame) < n+1 || cap(f.frame) > 1<<20 && cap(f.frame) > 4*(n+1) {
		// Grow, or let a huge buffer go once messages are small again.
		f.frame = make([]byte, n+1)
	}
	f.frame = f.frame[:n+1]
	copy(f.frame, hdr[:])
	if _, err := io.ReadFull(f.br, f.frame[5:]); err != nil {
		return f.readErr(err)
	}
	return validate(typ, f.frame[5:])
}

func (f *framer) readErr(err error) error {
	if isTimeout(err) && f.armed && f.stall > 0 {
		return errorf(codeProtocolViolation, "terminating connection: a message did not arrive in full within client_read_timeout (%v)", f.stall)
	}
	return err
}

// deadline sets the socket's read deadline d from now (0: none), unless
// the connection is being aborted, whose deadline must not be undone.
func (f *framer) deadline(d time.Duration) error {
	if d <= 0 && !f.readDeadline {
		return nil
	}
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	if f.c.ctx.Err() != nil {
		return net.ErrClosed
	}
	var t time.Time
	if d > 0 {
		t = time.Now().Add(d)
	}
	f.readDeadline = d > 0
	return f.c.net.SetReadDeadline(t)
}

// validate decodes the messages whose text the judge reads with the
// protocol package's strict decoders.
func validate(typ byte, body []byte) error {
	switch typ {
	case protocol.TypeQuery:
		var q protocol.Query
		return q.Decode(body)
	case protocol.TypeParse:
		var p protocol.Parse
		return p.Decode(body)
	case protocol.TypeBind:
		var b protocol.Bind
		return b.Decode(body)
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
