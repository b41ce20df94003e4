package proxy

import (
	"bufio"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgproto3"
)

// injection is a message the proxy adds to the upstream's response stream
// just before the seq-th ReadyForQuery of the connection.
type injection struct {
	seq   uint64
	frame []byte
	// deferred, if set, stands for a notice still being worked out; the
	// upstream goroutine waits for it (until its deadline) when it is due.
	deferred *Deferred
	// refusal marks an ErrorResponse standing for a refused statement; it
	// is dropped if the upstream already reported an error in that batch,
	// because PostgreSQL reports only the first error of a batch.
	refusal bool
}

// injector queues injections from the client goroutine to the upstream
// goroutine. pending lets the upstream goroutine skip the lock when empty.
type injector struct {
	pending atomic.Int32
	mu      sync.Mutex
	items   []injection
	closed  bool
	// stop, closed by close, ends waits for deferred notices. It is made
	// with the first deferred notice: most connections never queue one,
	// and an idle connection should not carry a channel.
	stop chan struct{}
	due  []injection // scratch, owned by the upstream goroutine
}

func (q *injector) add(in injection) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		if in.deferred != nil {
			in.deferred.abandon()
		}
		return
	}
	if in.deferred != nil && q.stop == nil {
		q.stop = make(chan struct{})
	}
	q.items = append(q.items, in)
	q.pending.Add(1)
	q.mu.Unlock()
}

// close abandons every deferred notice still queued or waited for; later
// adds are dropped. Called when the client sends Terminate (it reads
// nothing more) and when the connection ends. Idempotent.
func (q *injector) close() {
	q.mu.Lock()
	if !q.closed && q.stop != nil {
		close(q.stop)
	}
	q.closed = true
	for _, in := range q.items {
		if in.deferred != nil {
			in.deferred.abandon()
		}
	}
	q.mu.Unlock()
}

// flush writes, in order, the injections due before ReadyForQuery number
// zRecv. It waits for deferred notices outside the lock, so the client
// goroutine can keep queueing meanwhile; stop (the connection's end) and
// close end such waits.
func (q *injector) flush(w *bufio.Writer, zRecv uint64, sawError bool, stop <-chan struct{}) error {
	q.mu.Lock()
	due := q.due[:0]
	keep := q.items[:0]
	for _, in := range q.items {
		if in.seq > zRecv {
			keep = append(keep, in)
		} else {
			due = append(due, in)
		}
	}
	clear(q.items[len(keep):])
	q.items = keep
	q.pending.Add(-int32(len(due)))
	// Made before any deferred notice in due was queued (add), if any was.
	ended := q.stop
	q.mu.Unlock()

	var err error
	for _, in := range due {
		frame := in.frame
		if in.deferred != nil {
			n := in.deferred.wait(stop, ended)
			if n == nil || err != nil {
				continue
			}
			frame = encodeNotice(n)
		}
		if err != nil || frame == nil || in.refusal && sawError {
			continue
		}
		_, err = w.Write(frame)
	}
	clear(due)
	q.due = due[:0]
	return err
}

// What takeFrames did.
type taken int

const (
	injTaken    taken = iota // the due frames were appended
	injDeferred              // nothing taken: a due notice is deferred (settle it first)
	injTooLarge              // nothing taken: they would pass the limit
)

// takeFrames is flush for the fast relay, which writes the injections
// itself: it appends to dst the frames due before ReadyForQuery number
// zRecv, removing them from the queue, and returns dst. It takes nothing
// if one of them is a deferred notice, which settle waits for off the
// event loop, or if they would make dst longer than limit bytes.
func (q *injector) takeFrames(dst []byte, zRecv uint64, sawError bool, limit int) ([]byte, taken) {
	q.mu.Lock()
	defer q.mu.Unlock()
	size, due := len(dst), 0
	for _, in := range q.items {
		if in.seq > zRecv {
			continue
		}
		if in.deferred != nil {
			return dst, injDeferred
		}
		due++
		if !in.refusal || !sawError {
			size += len(in.frame)
		}
	}
	if size > limit {
		return dst, injTooLarge
	}
	keep := q.items[:0]
	for _, in := range q.items {
		switch {
		case in.seq > zRecv:
			keep = append(keep, in)
		case !in.refusal || !sawError:
			dst = append(dst, in.frame...)
		}
	}
	clear(q.items[len(keep):])
	q.items = keep
	q.pending.Add(-int32(due))
	return dst, injTaken
}

// settle waits, as flush does, for the deferred notices due before
// ReadyForQuery number zRecv, and puts each one's frame in its place in
// the queue (none: nothing is written for it), for takeFrames. It runs
// off the event loop, which meanwhile may queue more.
func (q *injector) settle(zRecv uint64, stop <-chan struct{}) {
	q.mu.Lock()
	var due []*Deferred
	for _, in := range q.items {
		if in.seq <= zRecv && in.deferred != nil {
			due = append(due, in.deferred)
		}
	}
	qstop := q.stop // made, under the lock, with the first deferred notice
	q.mu.Unlock()
	for _, d := range due {
		var frame []byte
		if n := d.wait(stop, qstop); n != nil {
			frame = encodeNotice(n)
		}
		q.mu.Lock()
		for i := range q.items {
			if q.items[i].deferred == d {
				q.items[i].deferred, q.items[i].frame = nil, frame
			}
		}
		q.mu.Unlock()
	}
}

// encodeNotice encodes n with Severity NOTICE and SQLSTATE 00000 unless
// set; nil if it cannot be encoded.
func encodeNotice(n *pgproto3.NoticeResponse) []byte {
	m := *n
	if m.Severity == "" {
		m.Severity, m.SeverityUnlocalized = "NOTICE", "NOTICE"
	}
	if m.Code == "" {
		m.Code = "00000"
	}
	frame, err := m.Encode(nil)
	if err != nil {
		return nil
	}
	return frame
}

func (c *conn) injectNotice(v Action, seq uint64) {
	if v.Later != nil {
		c.inj.add(injection{seq: seq, deferred: v.Later})
	}
	for _, d := range v.Laters {
		c.inj.add(injection{seq: seq, deferred: d})
	}
	if v.Notice == nil {
		return
	}
	frame := encodeNotice(v.Notice)
	if frame == nil {
		c.logWarn("observer notice not encodable")
		return
	}
	c.inj.add(injection{seq: seq, frame: frame})
}

// injectAnswer queues the messages answering a simple Query in the
// upstream's place.
func (c *conn) injectAnswer(v Action, seq uint64) {
	var frame []byte
	for _, m := range v.Answer {
		var err error
		if frame, err = m.Encode(frame); err != nil {
			c.logWarn("observer answer not encodable", "err", err)
			return
		}
	}
	c.inj.add(injection{seq: seq, frame: frame})
}

func (c *conn) injectRefusal(v Action, seq uint64) {
	e := *v.Refuse
	if e.Severity == "" {
		e.Severity, e.SeverityUnlocalized = "ERROR", "ERROR"
	}
	if e.Code == "" {
		e.Code = "42501" // insufficient_privilege
	}
	frame, err := e.Encode(nil)
	if err != nil {
		c.logWarn("observer error not encodable", "err", err)
		frame, _ = (&pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR",
			Code: "42501", Message: "pgequiv: statement refused"}).Encode(nil)
	}
	c.inj.add(injection{seq: seq, frame: frame, refusal: true})
}
