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
				if need, decoded := fc.needsObservation(typ, d.buf[d.fwd:d.fwd+size]); need {
					if !decoded {
						return fc.demote("statement that does not decode")
					}
					switch fc.answerQuery(typ) {
					case quickNone:
						if typ == protocol.TypeQuery {
							// ObserveQuery on a goroutine; the
							// client's bytes wait (fastasync_linux.go).
							fc.observeLater()
							return true
						}
						return fc.demote("statement for the observer")
					case quickRefused:
						// The Query goes no further than the
						// buffer: a Sync in its place brings the
						// ReadyForQuery the refusal precedes.
						d.replaceWithSync(size)
						c.s.relay.addRelayed(dirToUpstream, uint64(size-len(syncFrame)), 0)
						size = len(syncFrame)
					}
				}
			}
			if typ == protocol.TypeQuery {
				c.zSent++ // a Query always ends with one ReadyForQuery
			}
		case protocol.TypeSync, protocol.TypeFunctionCall:
			if typ == protocol.TypeFunctionCall && fc.filter != nil && fc.filter.NeedsObservation(&c.session, KindFunctionCall, nil) {
				return fc.demote("function call for the observer")
			}
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
			if typ == protocol.TypeBind && fc.filter != nil && c.gateBinds() {
				return fc.demote("a Bind the observer gates")
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
// filter. A frame that does not decode (decoded false) goes to the
// goroutine relay, which forwards it for the upstream to report.
func (fc *fastConn) needsObservation(typ byte, frame []byte) (need, decoded bool) {
	c, l := fc.c, fc.loop
	body := protocol.Body(frame)
	if typ == protocol.TypeQuery {
		if l.query.Decode(body) != nil {
			return true, false
		}
		if need = fc.filter.NeedsObservation(&c.session, KindQuery, l.query.SQL); need {
			c.decodeState().query = l.query // answerQuery and observeLater read it there
		}
		return need, true
	}
	if l.parse.Decode(body) != nil {
		return true, false
	}
	return fc.filter.NeedsObservation(&c.session, KindParse, l.parse.SQL), true
}

// answer is what became of a Query the filter flagged.
type answer int

const (
	quickNone    answer = iota // not answered: the goroutine relay asks ObserveQuery
	quickForward               // forwarded, its notices (if any) queued
	quickRefused               // refused: its refusal queued, not forwarded
)

// answerQuery asks the quick observer, if any, about the Query just
// decoded into c.query (a Parse is left to the goroutine relay), and
// queues what its answer adds before the Query's ReadyForQuery.
func (fc *fastConn) answerQuery(typ byte) answer {
	if fc.quick == nil || typ != protocol.TypeQuery {
		return quickNone
	}
	c := fc.c
	a, ok := c.observeQuick(fc.quick, c.query.SQL)
	if !ok {
		return quickNone
	}
	if a.Finish != nil && a.Refuse == nil {
		// Sent first, finished after (fastLoop.finish): the loop's
		// next step, before any byte of the answer is framed.
		fc.loop.finishing = append(fc.loop.finishing, quickFinish{fc: fc, seq: c.zSent + 1, finish: a.Finish})
		return quickForward
	}
	c.queueQuick(a, c.zSent+1)
	if a.After != nil {
		fc.loop.later(a.After)
	}
	if a.Refuse != nil {
		return quickRefused
	}
	return quickForward
}

// replaceWithSync puts a Sync in place of the whole frame of size bytes
// at d.fwd, moving the unframed bytes after it up.
func (d *fastDir) replaceWithSync(size int) {
	copy(d.buf[d.fwd:], syncFrame)
	n := copy(d.buf[d.fwd+len(syncFrame):], d.buf[d.fwd+size:d.end])
	d.end = d.fwd + len(syncFrame) + n
}

// frame frames what d holds, as frameClient or frameUpstream.
func (fc *fastConn) frame(d *fastDir) bool {
	if d.upstream {
		return fc.frameUpstream()
	}
	return fc.frameClient()
}

// frameUpstream frames the upstream's messages as upstreamStep would,
// counting what it counts, and places the notices and refusals queued
// for a ReadyForQuery (answerQuery) just before it, in d.ins.
func (fc *fastConn) frameUpstream() bool {
	d, c := &fc.up, fc.c
	d.held = false
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
		stop := false
		switch typ {
		case protocol.TypeErrorResponse:
			c.sawError = true
		case protocol.TypeReadyForQuery:
			if c.inj.pending.Load() > 0 {
				placed, ok := fc.placeInjection(1 + int(n))
				if !ok {
					return false
				}
				if d.parked {
					return true // until the deferred notices are in
				}
				if !placed {
					d.held = true // until what waits is written
					return true
				}
				// One injection per write: frame up to this
				// ReadyForQuery, and the rest once it is out.
				stop = d.ins != nil
			}
			c.zRecv++
			c.strs.done.Store(c.zRecv)
			// The observer's state follows the transaction
			// (SessionTracker), as in upstreamStep; status 0: unknown.
			var status byte
			if d.end-d.fwd > protocol.HeaderLen {
				status = d.buf[d.fwd+protocol.HeaderLen]
			}
			if st := c.session.State; st != nil {
				st.ReadyForQuery(c.zRecv, status, c.sawError)
			}
			c.sawError = false
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
		if stop {
			d.held = true
			return true
		}
	}
	return true
}

// placeInjection takes the frames queued for the ReadyForQuery at d.fwd
// into d.ins, to be written just before it. It places nothing, and
// reports placed false, while an earlier injection waits or the framed
// bytes leave too little room: what waits to be written must fit one
// buffer, which a demotion hands to the goroutine relay's writer
// (resume). When even an empty buffer leaves too little room, it demotes
// the connection, reporting ok false: the goroutine relay then writes
// them. A deferred notice among them parks d until it is in
// (awaitDeferred).
func (fc *fastConn) placeInjection(rfqSize int) (placed, ok bool) {
	d, c := &fc.up, fc.c
	if d.ins != nil {
		return false, true
	}
	limit := len(d.buf) - (d.fwd - d.start) - rfqSize
	ins, got := c.inj.takeFrames(nil, c.zRecv+1, c.sawError, limit)
	switch {
	case got == injTaken && len(ins) > 0:
		d.ins, d.insAt = ins, d.fwd
	case got == injDeferred:
		fc.awaitDeferred(c.zRecv + 1)
		return false, true
	case got == injTooLarge && d.start < d.fwd:
		return false, true
	case got == injTooLarge:
		return false, fc.demote("notice larger than the buffer")
	}
	return true, true
}
