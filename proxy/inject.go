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
}

func (q *injector) add(in injection) {
	q.mu.Lock()
	q.items = append(q.items, in)
	q.pending.Add(1)
	q.mu.Unlock()
}

// flush writes, in order, the injections due before ReadyForQuery number
// zRecv.
func (q *injector) flush(w *bufio.Writer, zRecv uint64, sawError bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	keep := q.items[:0]
	var err error
	for _, in := range q.items {
		if in.seq > zRecv {
			keep = append(keep, in)
			continue
		}
		q.pending.Add(-1)
		if err != nil || in.refusal && sawError {
			continue
		}
		_, err = w.Write(in.frame)
	}
	clear(q.items[len(keep):])
	q.items = keep
	return err
}

func (c *conn) injectNotice(v Verdict, seq uint64) {
	if v.Notice == nil {
		return
	}
	n := *v.Notice
	if n.Severity == "" {
		n.Severity, n.SeverityUnlocalized = "NOTICE", "NOTICE"
	}
	if n.Code == "" {
		n.Code = "00000"
	}
	frame, err := n.Encode(nil)
	if err != nil {
		c.log.Warn("observer notice not encodable", "err", err)
		return
	}
	c.inj.add(injection{seq: seq, frame: frame})
}

func (c *conn) injectRefusal(v Verdict, seq uint64) {
	e := *v.Refuse
	if e.Severity == "" {
		e.Severity, e.SeverityUnlocalized = "ERROR", "ERROR"
	}
	if e.Code == "" {
		e.Code = "42501" // insufficient_privilege
	}
	frame, err := e.Encode(nil)
	if err != nil {
		c.log.Warn("observer error not encodable", "err", err)
		frame, _ = (&pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR",
			Code: "42501", Message: "pgequiv: statement refused"}).Encode(nil)
	}
	c.inj.add(injection{seq: seq, frame: frame, refusal: true})
}
