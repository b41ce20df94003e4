//go:build linux

package proxy

import (
	"bytes"
)

// A statement the quick observer cannot answer (a tagged statement of a
// shape or pair not seen before) is judged by ObserveQuery, which may
// wait for the judge, and an annotate-mode notice may come after the
// statement's response. Neither may block the event loop, and handing
// the connection to the goroutine relay for good would cost every later
// statement: so the loop parks the direction that must wait (it is
// neither read nor framed, while the other goes on), a goroutine does
// the waiting, and a command brings the result back to the loop.

// observeLater runs ObserveQuery for the simple Query just decoded into
// c.query, whose frame is at cl.fwd, on a goroutine; the client's bytes
// wait until applyObserved. A Query only: a Parse's Action can ask for
// state (bind tracking, discarding) the goroutine relay alone keeps.
func (fc *fastConn) observeLater() {
	c := fc.c
	// The statements framed before this one are answered first: the
	// goroutine's ObserveQuery must not run beside their finishing.
	fc.loop.finish()
	fc.cl.parked = true
	sql := bytes.Clone(c.query.SQL) // the frame may move in the buffer
	zSent := c.zSent
	fc.waiting.Add(1)
	go func() {
		defer fc.arrive()
		// As handleFrontend: the Query is the next message to end with
		// a ReadyForQuery.
		c.event.Batch = zSent + 1
		a := c.observeAt(KindQuery, nil, sql, zSent+1)
		if !fc.post(fastCmd{fc: fc, observed: &a}) {
			abandon(a)
		}
	}()
}

// applyObserved forwards, or answers, the Query waiting at cl.fwd as
// handleFrontend does with a, and goes on with the client's bytes.
func (fc *fastConn) applyObserved(a Action) {
	d, c := &fc.cl, fc.c
	d.parked = false
	seq := c.zSent + 1
	c.injectNotice(a, seq)
	_, n, _ := d.header() // the Query's, whole (frameClient)
	size := 1 + int(n)
	if a.Refuse != nil || a.Answer != nil {
		if a.Refuse != nil {
			c.injectRefusal(a, seq)
		} else {
			c.injectAnswer(a, seq)
		}
		d.replaceWithSync(size)
		c.s.relay.addRelayed(dirToUpstream, uint64(size-len(syncFrame)), 0)
		size = len(syncFrame)
	}
	c.zSent++
	d.take(size)
	d.msgs++
	fc.pump(d)
}

// abandon gives up the deferred notices of an Action the loop will not
// apply (its connection left the loop meanwhile): the observer then
// records them as not shown.
func abandon(a Action) {
	if a.Later != nil {
		a.Later.abandon()
	}
	for _, d := range a.Laters {
		d.abandon()
	}
}

// awaitDeferred parks the upstream direction at the ReadyForQuery at
// up.fwd, number zRecv, while a goroutine waits for its deferred notices
// (settle); resumeUpstream then places them.
func (fc *fastConn) awaitDeferred(zRecv uint64) {
	c := fc.c
	fc.up.parked = true
	fc.waiting.Add(1)
	go func() {
		defer fc.arrive()
		c.inj.settle(zRecv, c.ctx.Done())
		fc.post(fastCmd{fc: fc, resume: true})
	}()
}

// resumeUpstream goes on with the upstream's bytes after awaitDeferred.
func (fc *fastConn) resumeUpstream() {
	fc.up.parked = false
	fc.pump(&fc.up)
}
