//go:build linux

package proxy

import (
	"encoding/binary"
	"math"

	"github.com/pgequiv/pgequiv/protocol"
)

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
	for d.fwd < d.end {
		if d.rem > 0 {
			d.skipRest()
			continue
		}
		typ, n, ok := d.header()
		if !ok {
			return true
		}
		if n < 4 || n > math.MaxInt32 || fc.maxMsg > 0 && int(n) > fc.maxMsg {
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
	c := fc.c
	body := protocol.Body(frame)
	if typ == protocol.TypeQuery {
		if c.query.Decode(body) != nil {
			return true
		}
		return fc.filter.NeedsObservation(&c.session, KindQuery, c.query.SQL)
	}
	if c.parse.Decode(body) != nil {
		return true
	}
	return fc.filter.NeedsObservation(&c.session, KindParse, c.parse.SQL)
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
