package proxy

import (
	"context"
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgproto3"
	pgquery "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/protocol"
)

// A statement with parameters is judged twice: at Parse, for every value
// of its parameters, and, where that verdict does not settle it, again at
// each Bind with the values bound (see Action.Bind). The connection keeps
// which prepared statements want that, and the parameter types the
// server described for them: the observer needs a type to read a binary
// value, and most drivers (pgx, lib/pq) send no types in their Parse but
// take them from the server's ParameterDescription.

// BindObserver is an optional QueryObserver method set: the connection
// hands it each Bind of a statement whose Parse verdict carried Bind.
type BindObserver interface {
	// ObserveBind returns what to do with the Bind: Refuse keeps it (and
	// the rest of the batch up to Sync) from the upstream; Notice and
	// Later are shown before the batch's ReadyForQuery. It runs on the
	// client-reading goroutine, as ObserveQuery; it must not keep the
	// slices in ev.
	ObserveBind(ctx context.Context, ev *BindEvent) Action
}

// BindEvent is one Bind of a statement the observer asked to see.
type BindEvent struct {
	Session *Session
	// State is the Action.Bind the statement's Parse returned.
	State any
	// ParamOIDs are the parameter types: the Parse's, with unspecified
	// ones (0) filled in from the server's ParameterDescription where the
	// client asked for one. 0 where unknown; may be shorter than Values.
	ParamOIDs []uint32
	// Formats are the Bind's parameter format codes (0 text, 1 binary):
	// none (all text), one for all, or one per value.
	Formats []int16
	// Values are the bound values; nil is NULL.
	Values [][]byte
	// ClientEncoding and EncodingUncertain are QueryEvent's
	// ClientEncoding and StringsUncertain at this Bind: a value's bytes
	// over 0x7F are read by the server in the client's encoding.
	ClientEncoding    string
	EncodingUncertain bool
}

// BindGate is an optional ConnState method set: while GateBinds reports
// true, the relay also hands the BindObserver each Bind of a statement
// whose Parse carried no Action.Bind (prepared before the observer cared,
// or unseen), with BindEvent.State nil, so that it may refuse it.
type BindGate interface {
	GateBinds() bool
}

// gateBinds reports whether the observer's state asks for every Bind.
func (c *conn) gateBinds() bool {
	g, ok := c.session.State.(BindGate)
	return ok && g.GateBinds()
}

// boundStmt is a prepared statement judged again at each Bind.
type boundStmt struct {
	state     any
	parseOIDs []uint32
	// described are the types the server gave in ParameterDescription;
	// stored by the upstream goroutine before it forwards the message,
	// so before the client can build a Bind from it.
	described atomic.Pointer[[]uint32]
}

// oids merges the declared and described parameter types.
func (s *boundStmt) oids() []uint32 {
	d := s.described.Load()
	if d == nil {
		return s.parseOIDs
	}
	out := append([]uint32(nil), *d...)
	for i, o := range s.parseOIDs {
		if i < len(out) && o != 0 {
			out[i] = o
		}
	}
	return out
}

// describeWatch is a Describe of a statement in flight: the n-th
// ParameterDescription of batch seq answers the n-th such Describe.
type describeWatch struct {
	seq  uint64
	stmt *boundStmt // nil: a statement not judged at Bind
}

// bindTracker is a connection's statements judged at Bind.
type bindTracker struct {
	stmts map[string]*boundStmt // owned by the client goroutine
	// tracking: Describes are watched (the observer is a BindObserver and
	// the connection is on the goroutine relay).
	tracking atomic.Bool

	mu        sync.Mutex
	describes []describeWatch
	// uncertain is a batch whose earlier Describes went by on the fast
	// relay unwatched: its ParameterDescriptions cannot be matched.
	uncertain uint64
}

// bindObserver returns the connection's observer as a BindObserver.
func (c *conn) bindObserver() (BindObserver, bool) {
	o, ok := c.opts.Observer.(BindObserver)
	return o, ok
}

// startBindTracking runs when the goroutine relay starts: from here on,
// every Describe is watched.
func (c *conn) startBindTracking() {
	if _, ok := c.bindObserver(); ok {
		c.bt.tracking.Store(true)
	}
}

// noteParse records the statement a forwarded Parse creates.
func (c *conn) noteParse(v Action) {
	if v.Bind == nil && len(c.bt.stmts) == 0 {
		return // the common case: nothing to forget, no allocation
	}
	name := string(c.parse.Name)
	if _, exists := c.bt.stmts[name]; exists && name != "" {
		// PostgreSQL refuses a second Parse of a named statement that
		// exists: the one judged at Bind is still the one that runs.
		return
	}
	if v.Bind != nil {
		if c.bt.stmts == nil {
			c.bt.stmts = make(map[string]*boundStmt)
		}
		st := &boundStmt{state: v.Bind}
		for i := range c.parse.NumParams() {
			st.parseOIDs = append(st.parseOIDs, c.parse.ParamOID(i))
		}
		c.bt.stmts[name] = st
		return
	}
	// The unnamed statement is replaced by every Parse.
	delete(c.bt.stmts, name)
}

// noteClose forgets a statement the client closes.
func (c *conn) noteClose(body []byte) {
	if len(c.bt.stmts) == 0 || c.close.Decode(body) != nil || c.close.ObjectType != 'S' {
		return
	}
	delete(c.bt.stmts, string(c.close.Name))
}

// noteQuery forgets statements a simple Query (or a Parse) deallocates
// (DEALLOCATE, DISCARD ALL). Deallocating is not transactional, so the
// statement is gone whatever becomes of the transaction.
func (c *conn) noteQuery(sql []byte) {
	if len(c.bt.stmts) == 0 || !sqltext.ContainsFold(sql, "deallocate") && !sqltext.ContainsFold(sql, "discard") {
		return
	}
	tree, err := pgquery.Parse(string(sql))
	if err != nil {
		return
	}
	for _, s := range tree.Stmts {
		if d := s.Stmt.GetDeallocateStmt(); d != nil {
			if d.Name == "" {
				clear(c.bt.stmts) // DEALLOCATE ALL
			} else {
				delete(c.bt.stmts, d.Name)
			}
		}
		if d := s.Stmt.GetDiscardStmt(); d != nil && d.Target == pgquery.DiscardMode_DISCARD_ALL {
			clear(c.bt.stmts)
		}
	}
}

// noteDescribe watches a Describe of a statement.
func (c *conn) noteDescribe(body []byte) {
	if len(body) < 2 || body[0] != 'S' {
		return
	}
	name, _, ok := cutCString(body[1:])
	if !ok {
		return
	}
	c.bt.mu.Lock()
	c.bt.describes = append(c.bt.describes, describeWatch{seq: c.zSent + 1, stmt: c.bt.stmts[string(name)]})
	c.bt.mu.Unlock()
}

func cutCString(b []byte) (s, rest []byte, ok bool) {
	for i, x := range b {
		if x == 0 {
			return b[:i], b[i+1:], true
		}
	}
	return nil, nil, false
}

// noteParameterDescription, on the upstream goroutine, gives the types
// of a ParameterDescription to the statement it describes.
func (c *conn) noteParameterDescription(body []byte) {
	batch := c.zRecv + 1
	c.bt.mu.Lock()
	d := c.bt.describes
	i := 0
	for i < len(d) && d[i].seq < batch {
		i++ // a batch that ended early (an error skips to Sync)
	}
	var st *boundStmt
	if c.bt.uncertain != batch && i < len(d) && d[i].seq == batch {
		st = d[i].stmt
		i++
	}
	c.bt.describes = append(d[:0], d[i:]...)
	c.bt.mu.Unlock()
	if st == nil || len(body) < 2 {
		return
	}
	n := int(binary.BigEndian.Uint16(body))
	if len(body) != 2+4*n {
		return
	}
	oids := make([]uint32, n)
	for k := range oids {
		oids[k] = binary.BigEndian.Uint32(body[2+4*k:])
	}
	st.described.Store(&oids)
}

// observeBind shows a Bind of a statement judged at Bind to the
// observer. refused reports that the Bind (and the batch's rest) must
// not reach the upstream.
func (c *conn) observeBind(body []byte) (refused bool) {
	var b pgproto3.Bind
	if b.Decode(body) != nil {
		return false // the upstream reports it
	}
	st, ok := c.bt.stmts[b.PreparedStatement]
	if !ok && !c.gateBinds() {
		return false
	}
	o, isBO := c.bindObserver()
	if !isBO {
		return false
	}
	ev := BindEvent{Session: &c.session, Formats: b.ParameterFormatCodes, Values: b.Parameters}
	c.strs.fillBind(&ev, c.zSent)
	if ok {
		ev.State, ev.ParamOIDs = st.state, st.oids()
	}
	v := func() (v Action) {
		defer func() {
			if r := recover(); r != nil {
				c.logError("bind observer panicked; statement forwarded", "panic", r)
				v = Action{}
			}
		}()
		return o.ObserveBind(c.ctx, &ev)
	}()
	c.injectNotice(v, c.zSent+1)
	if v.Refuse != nil {
		c.injectRefusal(v, c.zSent+1)
		c.discarding = true
		return true
	}
	return false
}

// needsBindFrame reports whether the client goroutine must read a
// message of type typ whole to track statements judged at Bind.
func (c *conn) needsBindFrame(typ byte) bool {
	if !c.bt.tracking.Load() || c.discarding {
		return false
	}
	switch typ {
	case protocol.TypeDescribe:
		return true
	case protocol.TypeBind:
		return len(c.bt.stmts) > 0 || c.gateBinds()
	case protocol.TypeClose:
		return len(c.bt.stmts) > 0
	}
	return false
}
