package judging

import (
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// preparedStmts are the SQL-level prepared statements (PREPARE) a
// connection made while the proxy observed it, so that an EXECUTE is
// judged as the query it runs (tag.Execution.Bind; issue 34, item 10).
// A PREPARE counts once the server has run it: it waits as pending for
// its batch's ReadyForQuery without an error. What may replace or drop
// a statement unseen (DEALLOCATE, DISCARD, a Parse of the same name)
// drops what is kept; an EXECUTE of a name not kept stays a statement
// that runs code the proxy cannot see (tag.ClassRun).
type preparedStmts struct {
	mu      sync.Mutex
	kept    map[string]*tag.Prepared
	pending []pendingPrepare
	some    atomic.Bool // kept or pending is not empty: read without mu by the filter
	// tagged: some statement was prepared with a tag, so an untagged
	// EXECUTE may run a tagged query and must be read (never cleared:
	// it only costs reading EXECUTEs).
	tagged atomic.Bool
}

// hasTagged reports whether a statement prepared with a tag may be
// kept; ps may be nil.
func (ps *preparedStmts) hasTagged() bool { return ps != nil && ps.tagged.Load() }

// has reports whether something is kept or pending; ps may be nil.
func (ps *preparedStmts) has() bool { return ps != nil && ps.some.Load() }

type pendingPrepare struct {
	batch uint64
	p     *tag.Prepared
}

// lookup returns the statement name runs, from earlier in the same Query
// (local) or kept.
func (ps *preparedStmts) lookup(local map[string]*tag.Prepared, name string) (*tag.Prepared, bool) {
	if p, ok := local[name]; ok {
		return p, ok
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.kept[name]
	return p, ok
}

// add records p, prepared in batch, as pending.
func (ps *preparedStmts) add(batch uint64, p *tag.Prepared) {
	if ps == nil {
		return // a session built without TrackSession or stateOf (tests)
	}
	ps.mu.Lock()
	ps.pending = append(ps.pending, pendingPrepare{batch: batch, p: p})
	ps.some.Store(true)
	if p.Comment != nil || p.CommentErr != nil {
		ps.tagged.Store(true)
	}
	ps.mu.Unlock()
}

// ready keeps the pending statements of batch where it ran without an
// error, and drops them otherwise (a PREPARE of a name in use fails: the
// statement kept is still the one that runs).
func (ps *preparedStmts) ready(batch uint64, failed bool) {
	if !ps.has() {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if len(ps.pending) == 0 {
		return
	}
	rest := ps.pending[:0]
	for _, pp := range ps.pending {
		switch {
		case pp.batch > batch:
			rest = append(rest, pp)
		case pp.batch == batch && !failed:
			if ps.kept == nil {
				ps.kept = map[string]*tag.Prepared{}
			}
			if _, exists := ps.kept[pp.p.Name]; !exists {
				ps.kept[pp.p.Name] = pp.p
			}
		}
	}
	ps.pending = rest
	ps.some.Store(len(ps.kept) > 0 || len(ps.pending) > 0)
}

// forget drops name, or everything when name is "".
func (ps *preparedStmts) forget(name string, all bool) {
	if !ps.has() {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if all {
		ps.kept, ps.pending = nil, nil
	} else {
		delete(ps.kept, name)
	}
	ps.some.Store(len(ps.kept) > 0 || len(ps.pending) > 0)
}

// mayChange reports whether a statement text may replace or drop a
// prepared statement unseen.
func mayChangePrepared(sql []byte) bool {
	return sqltext.ContainsFold(sql, "deallocate") || sqltext.ContainsFold(sql, "discard") || sqltext.ContainsFold(sql, "prepare")
}

// expandExecute makes s, an EXECUTE of a statement prepared earlier in
// the Query (local) or kept, the query it runs: its class, side effect,
// names and judged text are those of the bound body. An EXECUTE of a
// name not known stays as it is.
func (ps *preparedStmts) expandExecute(local map[string]*tag.Prepared, s *tag.Statement, strs sqltext.Strings) {
	if ps == nil {
		return
	}
	p, ok := ps.lookup(local, s.Execute.Name)
	if !ok {
		return
	}
	text, ok := s.Execute.Bind(p)
	if !ok {
		return
	}
	stmts, err := tag.Split(text, sqltext.StandardStrings)
	if err != nil || len(stmts) != 1 {
		return
	}
	b := stmts[0]
	s.Class, s.Why, s.Names, s.Judged = b.Class, b.Why, b.Names, b.Judged
	if s.Comment == nil && s.CommentErr == nil {
		// A tag on the PREPARE is the EXECUTE's: the PREPARE ran
		// nothing, and each EXECUTE runs the query it tags.
		s.Comment, s.CommentErr = p.Comment, p.CommentErr
	}
	if b.Class.HasSideEffects() {
		s.Why = "EXECUTE of " + b.Why
	}
}

// A statement a driver prepared (extended protocol) before the session's
// reference was set, and that it runs after, was never judged: its Parse
// was not seen, or seen without a reference (issue 34, item 7). While a
// session has pgequiv settings, every Parse it sends is marked seen
// (parseSeen, or a bindJudge), and the relay shows the observer each Bind
// of a statement not marked (proxy.BindGate): under a session reference
// in enforce mode such a Bind is refused.

// parseSeen marks a statement whose Parse was observed under pgequiv
// settings and needs no judging at Bind.
var parseSeen = &struct{ seen bool }{true}

// GateBinds implements proxy.BindGate.
func (c *judgeSession) GateBinds() bool { return c.guc.active.Load() }

// gateBind answers a Bind of a statement prepared unseen.
func (j *Judging) gateBind(ev *proxy.BindEvent, set *JudgeSettings) proxy.Action {
	tags := stateOf(ev.Session).guc.current()
	if tags == (tag.Session{}) {
		return proxy.Action{}
	}
	mode := set.Mode
	if tags.Reference == "" {
		if e, ok := set.Catalog.ByID(tags.ReferenceID); ok && e.Mode != "" {
			mode = JudgeMode(e.Mode)
		}
	}
	if mode != ModeEnforce {
		return proxy.Action{}
	}
	j.stats.refusals.Add(1)
	return proxy.Action{Refuse: &pgproto3.ErrorResponse{Code: SQLStateUnverified,
		Message: "pgequiv: query refused: cannot judge: the statement was prepared before the session's reference was set, and the proxy did not read it",
		Hint:    "The statement did not run. Prepare it again (DEALLOCATE it, or a new connection) with the reference in force."}}
}
