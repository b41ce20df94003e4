package proxy

import (
	"github.com/pgequiv/pgequiv/protocol"
)

// syncFrame stands in upstream for a refused or answered simple Query: it
// yields the ReadyForQuery the client expects (with the right transaction
// status), without running anything.
var syncFrame = (&protocol.Sync{}).Encode(nil)

// clientDecode holds the client messages the goroutine relay decodes and
// the event it shows the observer. A connection gets one when it starts on
// the goroutine relay, so that one idling on the fast relay, which decodes
// into its loop's (fastLoop), does not carry it.
type clientDecode struct {
	event   QueryEvent
	query   protocol.Query
	parse   protocol.Parse
	bind    protocol.Bind
	execute protocol.Execute
	close   protocol.Close
}

func newClientDecode(sess *Session) *clientDecode {
	return &clientDecode{event: QueryEvent{Session: sess}}
}

// decodeState returns c's decoding state, made on first use: a connection
// that stays on the fast relay with nothing to observe never needs one.
func (c *conn) decodeState() *clientDecode {
	if c.clientDecode == nil {
		c.clientDecode = newClientDecode(&c.session)
	}
	return c.clientDecode
}

// handleFrontend inspects one of the decoded frontend messages and forwards
// it (or not). frame is valid only during the call.
//
// A message that fails to decode is forwarded unchanged: the upstream
// reports the error exactly as it would without the proxy. Only Query and
// Parse are shown to the observer.
func (c *conn) handleFrontend(typ byte, frame []byte) error {
	body := protocol.Body(frame)
	switch typ {
	case protocol.TypeQuery:
		if c.discarding {
			return nil // PostgreSQL ignores everything up to Sync after an error
		}
		c.zSent++ // a Query always ends with one ReadyForQuery
		if c.query.Decode(body) != nil {
			break
		}
		c.noteQuery(c.query.SQL)
		c.event.Batch = c.zSent
		v := c.observe(KindQuery, nil, c.query.SQL)
		c.injectNotice(v, c.zSent)
		if v.Refuse != nil || v.Answer != nil {
			if v.Refuse != nil {
				c.injectRefusal(v, c.zSent)
			} else {
				c.injectAnswer(v, c.zSent)
			}
			_, err := c.upW.Write(syncFrame)
			return err
		}
	case protocol.TypeParse:
		if c.discarding {
			return nil
		}
		if c.parse.Decode(body) != nil {
			break
		}
		c.noteQuery(c.parse.SQL)
		// The batch's ReadyForQuery comes after the next Sync.
		c.event.Batch = c.zSent + 1
		v := c.observe(KindParse, c.parse.Name, c.parse.SQL)
		c.injectNotice(v, c.zSent+1)
		if v.Refuse != nil {
			c.injectRefusal(v, c.zSent+1)
			c.discarding = true
			return nil
		}
		c.noteParse(v)
	case protocol.TypeFunctionCall:
		// Reached only with an observer (clientStep): a function call
		// under a reference is not judged, and enforce mode may refuse
		// it. Refused, a Sync in its place brings its ReadyForQuery.
		c.zSent++
		if v := c.observe(KindFunctionCall, nil, nil); v.Refuse != nil {
			c.injectRefusal(v, c.zSent)
			_, err := c.upW.Write(syncFrame)
			return err
		}
	case protocol.TypeSync:
		c.strs.execSinceSync = false
		c.discarding = false
		c.zSent++
	case protocol.TypeBind:
		if c.discarding {
			return nil
		}
		if (len(c.bt.stmts) > 0 || c.gateBinds()) && c.observeBind(body) {
			return nil
		}
		if c.debug() && c.bind.Decode(body) == nil {
			c.logDebug("bind", "portal", string(c.bind.Portal), "statement", string(c.bind.Statement), "params", c.bind.NumParams)
		}
	case protocol.TypeExecute:
		if c.discarding {
			return nil
		}
		if c.debug() && c.execute.Decode(body) == nil {
			c.logDebug("execute", "portal", string(c.execute.Portal), "max_rows", c.execute.MaxRows)
		}
	case protocol.TypeClose:
		if c.discarding {
			return nil
		}
		if c.debug() && c.close.Decode(body) == nil {
			c.logDebug("close", "type", string(c.close.ObjectType), "name", string(c.close.Name))
		}
		c.noteClose(body)
	case protocol.TypeDescribe:
		if c.discarding {
			return nil
		}
		if c.bt.tracking.Load() {
			c.noteDescribe(body)
		}
	}
	_, err := c.upW.Write(frame)
	return err
}

// observe shows a statement to the observer. A panicking observer does not
// take the proxy down: the panic is logged and the statement is forwarded
// (fail open), since the observer only judges and never relays.
func (c *conn) observe(kind QueryKind, stmt, sql []byte) (v Action) {
	return c.observeAt(kind, stmt, sql, c.zSent)
}

// observeAt is observe where zSent messages ending with a ReadyForQuery
// count as sent (the fast relay observes before it counts the Query).
func (c *conn) observeAt(kind QueryKind, stmt, sql []byte, zSent uint64) (v Action) {
	c.event.Kind, c.event.Statement, c.event.SQL = kind, stmt, sql
	c.strs.fill(&c.event, zSent)
	defer func() {
		c.event.Statement, c.event.SQL = nil, nil // do not keep the frame alive
		if r := recover(); r != nil {
			c.logError("query observer panicked; statement forwarded", "panic", r)
			v = Action{}
		}
	}()
	return c.opts.Observer.ObserveQuery(c.ctx, &c.event)
}

// observeQuick asks q about a simple Query on the fast relay, as
// handleFrontend asks the observer: the Query is the next message to
// end with a ReadyForQuery (zSent+1). A panicking observer forwards the
// statement, as observe does, rather than take down the event loop and
// every connection on it.
func (c *conn) observeQuick(q QuickObserver, sql []byte) (a QuickAction, ok bool) {
	c.event.Kind, c.event.Statement, c.event.SQL = KindQuery, nil, sql
	c.event.Batch = c.zSent + 1
	c.strs.fill(&c.event, c.zSent+1)
	defer func() {
		c.event.SQL = nil // do not keep the frame alive
		if r := recover(); r != nil {
			c.logError("query observer panicked; statement forwarded", "panic", r)
			a, ok = QuickAction{}, true
		}
	}()
	return q.ObserveQuick(c.ctx, &c.event)
}

// queueQuick queues what a QuickAction adds before the ReadyForQuery of
// batch seq, in the order handleFrontend queues an Action's.
func (c *conn) queueQuick(a QuickAction, seq uint64) {
	c.injectNotice(Action{Notice: a.Notice}, seq)
	if a.Refuse != nil {
		c.injectRefusal(Action{Refuse: a.Refuse}, seq)
	}
}
