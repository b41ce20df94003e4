package proxy

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// QueryKind tells which message carried an observed statement.
type QueryKind uint8

const (
	// KindQuery is a simple-protocol Query message (may hold several
	// statements).
	KindQuery QueryKind = iota + 1
	// KindParse is an extended-protocol Parse message.
	KindParse
	// KindFunctionCall is the protocol's FunctionCall message, which runs
	// a function by its oid: SQL is nil, and the observer may refuse it
	// (Action.Refuse) or let it run; nothing else of the Action applies.
	KindFunctionCall
)

// Session describes the client connection a query arrives on. Its exported
// fields are fixed after startup.
type Session struct {
	ConnID          uint64
	User            string
	Database        string
	ApplicationName string

	// State is the observer's per-connection state: what its
	// SessionTracker returned at startup, or what the observer set on a
	// Session built without a relay (unit tests). The relay only tells
	// it of each ReadyForQuery; the observer alone reads it.
	State ConnState
}

// SessionTracker is an optional QueryObserver method set for observers
// whose per-connection state follows the server's transactions (the
// judging observer's pgequiv settings live and die with them).
type SessionTracker interface {
	// TrackSession is called once per connection, after the startup
	// message and before any statement, with its parameters. What it
	// returns is kept in Session.State and told of each ReadyForQuery.
	TrackSession(sess *Session, params map[string]string) ConnState
}

// ConnState is an observer's per-connection state that follows the
// server's transaction status.
type ConnState interface {
	// ReadyForQuery reports the ReadyForQuery that ends batch: status is
	// its transaction status ('I', 'T', 'E'; 0 if it could not be read)
	// and failed whether the batch had an error. It is called on the
	// upstream-reading goroutine (or the fast relay's event loop),
	// concurrently with ObserveQuery.
	ReadyForQuery(batch uint64, status byte, failed bool)
}

// QueryEvent is one statement text sent by a client.
type QueryEvent struct {
	Kind QueryKind
	// Statement is the prepared statement name for KindParse (empty for the
	// unnamed statement); nil for KindQuery. Valid only during the call.
	Statement []byte
	// SQL is the statement text. Valid only during the call.
	SQL     []byte
	Session *Session
	// Batch is the number of the ReadyForQuery that ends the statement's
	// batch on the connection.
	Batch uint64
	// BackslashStrings: the server last reported standard_conforming_strings
	// off, so its lexer reads '...' with backslash escapes.
	// StringsUncertain: a statement that may change the setting had not
	// finished when this one was sent.
	BackslashStrings bool
	StringsUncertain bool
	// ClientEncoding is the session's client_encoding as the server last
	// reported it ("" before any report: UTF8). The relay reads SQL as
	// UTF-8; under another encoding a byte over 0x7F means something
	// else to the server, and under SJIS, BIG5, GBK, GB18030, UHC or
	// JOHAB a multibyte character may take the next byte, a backslash,
	// into itself. A statement that may change it had not finished when
	// StringsUncertain is set.
	ClientEncoding string
}

// Action is a QueryObserver's answer: what the relay does with the
// statement. The zero Action forwards the statement unchanged.
type Action struct {
	// Notice, if set, is sent to the client just before the ReadyForQuery
	// that ends the statement's batch. Its Severity defaults to NOTICE.
	Notice *pgproto3.NoticeResponse
	// Later, if set, is a notice the observer is still working out while
	// the statement runs; the proxy waits for it, until its deadline, just
	// before the ReadyForQuery that ends the statement's batch.
	Later *Deferred
	// Laters are more such notices, in order (one per statement of a
	// multi-statement Query).
	Laters []*Deferred
	// Refuse, if set, keeps the statement from the upstream; the client
	// gets this ErrorResponse instead (Severity defaults to ERROR). For a
	// Parse, the rest of the batch up to Sync is discarded as PostgreSQL
	// does after an error. The upstream transaction is not aborted.
	Refuse *pgproto3.ErrorResponse
	// Answer, if set for a simple Query, answers it in the upstream's
	// place: the client gets these messages (CommandComplete, ...) and
	// then the ReadyForQuery, and nothing runs upstream. Ignored for Parse,
	// which is forwarded.
	Answer []pgproto3.BackendMessage
	// Bind, if set for a Parse that is forwarded, asks to see each Bind of
	// the statement with its values (see BindObserver); the observer gets
	// Bind back as BindEvent.State.
	Bind any
}

// QueryObserver sees the SQL text of every Query and Parse message before it
// is forwarded. It is called on the connection's client-reading goroutine,
// so it must be quick; it must not keep the slices in ev.
type QueryObserver interface {
	ObserveQuery(ctx context.Context, ev *QueryEvent) Action
}

// StatementFilter is an optional QueryObserver method set for observers
// that can tell cheaply, from a statement's text alone, that ObserveQuery
// would return the zero Action and change no state. The fast relay (Linux,
// no TLS on either side) forwards such statements without calling
// ObserveQuery; the first statement that needs observing moves the
// connection to the regular relay for good. An observer without it keeps
// its connections on the regular relay.
type StatementFilter interface {
	// NeedsObservation reports whether ObserveQuery must see the
	// statement. It runs on an event loop shared by many connections, so
	// it must be quick and must not block; it must not keep sql. Calls for
	// one session never run concurrently with each other or with
	// ObserveQuery.
	NeedsObservation(sess *Session, kind QueryKind, sql []byte) bool
}

// QuickObserver is an optional StatementFilter companion for observers
// that can answer some statements needing observation at once, from what
// they already know (a verdict kept from an earlier execution). The fast
// relay asks it about a Query its filter flags, and keeps the connection
// when it answers, instead of handing the connection to the goroutine
// relay for good: for a tagged statement sent again and again, that
// hand-over cost more than the verdict.
type QuickObserver interface {
	// ObserveQuick is ObserveQuery for a simple Query whose answer needs
	// no waiting. With ok true it has done what ObserveQuery would have
	// done, and its answer is what ObserveQuery's would be with every
	// notice ready now. With ok false it has done nothing (no state
	// changed, nothing counted) and the statement goes to ObserveQuery. It
	// runs on an event loop shared by many connections: it must not block.
	// It must not keep the slices in ev.
	ObserveQuick(ctx context.Context, ev *QueryEvent) (a QuickAction, ok bool)
}

// QuickAction is a QuickObserver's answer: the part of Action a statement
// answered at once can need. The zero QuickAction forwards the statement
// unchanged.
type QuickAction struct {
	// Notice is as Action.Notice.
	Notice *pgproto3.NoticeResponse
	// Refuse is as Action.Refuse, for a simple Query.
	Refuse *pgproto3.ErrorResponse
	// After, if set, is work the answer leaves to do (recording the
	// verdict) that the statement need not wait for. The fast relay runs
	// it exactly once, on its loop, as soon as nothing is ready there:
	// typically while the upstream executes the statement, so possibly
	// before the answer reaches the client. It must not block.
	After func()
	// Finish, if set, completes an answer that forwards the statement
	// (Refuse nil): it returns the notice (nil for none) and the After
	// work, in place of Notice and After. The relay may call it once the
	// statement is on its way upstream, always before that statement's
	// ReadyForQuery reaches the client, so that working out a notice
	// overlaps the upstream's execution rather than delaying it. It runs
	// once, on the relay that asked, and must not block.
	Finish func() (notice *pgproto3.NoticeResponse, after func())
}

// NopObserver forwards everything unchanged.
type NopObserver struct{}

// ObserveQuery implements QueryObserver.
func (NopObserver) ObserveQuery(context.Context, *QueryEvent) Action { return Action{} }

// NeedsObservation implements StatementFilter: no statement needs it.
func (NopObserver) NeedsObservation(*Session, QueryKind, []byte) bool { return false }

// Deferred is a notice an observer delivers after ObserveQuery returned
// (see Action.Later). Exactly one of Deliver succeeding or the proxy
// giving up happens: if Deliver reports false, the client never sees the
// notice and the observer must account for it (log it).
type Deferred struct {
	deadline time.Time
	ch       chan *pgproto3.NoticeResponse // size 1
	state    atomic.Int32                  // deferredPending, ...Delivered, ...Abandoned
	// fallback, if set, makes the notice sent in its place when the
	// deadline passes first: under load the observer's own timeout answer
	// can miss the deadline it was meant for, and the client would see
	// nothing. A function, because it is rarely needed and a Deferred is
	// made per annotated statement.
	fallback func() *pgproto3.NoticeResponse
}

const (
	deferredPending int32 = iota
	deferredDelivered
	deferredAbandoned
)

// NewDeferred returns a Deferred the proxy waits for until deadline.
func NewDeferred(deadline time.Time) *Deferred {
	return &Deferred{deadline: deadline, ch: make(chan *pgproto3.NoticeResponse, 1)}
}

// WithFallback sets what makes the notice sent instead when the deadline
// passes before Deliver; it returns d.
func (d *Deferred) WithFallback(f func() *pgproto3.NoticeResponse) *Deferred {
	d.fallback = f
	return d
}

// Deliver hands over the notice (nil: nothing to add). It never blocks. It
// reports false if the proxy has already sent the ReadyForQuery without it
// or the connection ended.
func (d *Deferred) Deliver(n *pgproto3.NoticeResponse) bool {
	if !d.state.CompareAndSwap(deferredPending, deferredDelivered) {
		return false
	}
	d.ch <- n
	return true
}

// abandon gives up on the notice; a later Deliver reports false.
func (d *Deferred) abandon() { d.state.CompareAndSwap(deferredPending, deferredAbandoned) }

// wait returns the delivered notice, or once the deadline passes the
// fallback (nil if none), or nil once either stop channel closes (a nil
// one never does).
func (d *Deferred) wait(stop, stop2 <-chan struct{}) *pgproto3.NoticeResponse {
	timedOut := true
	if wait := time.Until(d.deadline); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case n := <-d.ch:
			return n
		case <-t.C:
		case <-stop:
			timedOut = false
		case <-stop2:
			timedOut = false
		}
	}
	if d.state.CompareAndSwap(deferredPending, deferredAbandoned) {
		if timedOut {
			if d.fallback != nil {
				return d.fallback()
			}
			return nil
		}
		return nil
	}
	if d.state.Load() == deferredDelivered {
		return <-d.ch // delivered just now; the send has happened or is about to
	}
	return nil
}
