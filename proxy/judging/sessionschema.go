package judging

import (
	"bytes"
	"errors"
	"sync/atomic"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// The proxy judges against the database's schema as it introspected it
// (or as DDL files give it), but names resolve in the client's session:
// a `CREATE TEMP TABLE customers` with nullable columns, a `SET
// search_path` to a schema holding a same-named view, DDL not yet
// committed in the session's own transaction, or DDL earlier in the same
// Query all make the judged schema another than the one the statement
// runs against (issue 34, item 4). The proxy does not model the
// session's own catalog; it notices, conservatively, what may make it
// differ, and enforce mode refuses judged statements meanwhile (PGQ02,
// whatever enforce_unknown says).

// ErrSessionSchema marks a judged statement refused because the session
// may resolve its names otherwise than the schema the proxy judges with.
var ErrSessionSchema = errors.New("this session may resolve names otherwise than the schema the proxy judges with")

// sessionSchema is what may make a session's name resolution differ.
// Set on the client goroutine; ddlInTx is cleared on the upstream one.
type sessionSchema struct {
	ddlInTx atomic.Bool // DDL may have run in a transaction still open
	path    atomic.Bool // search_path may have changed
	temp    atomic.Bool // temporary objects may exist
}

// why names what differs, or "".
func (s *sessionSchema) why() string {
	if s == nil {
		return ""
	}
	switch {
	case s.ddlInTx.Load():
		return "it changed the schema in its open transaction"
	case s.path.Load():
		return "it changed search_path (RESET search_path, RESET ALL or DISCARD ALL ends this)"
	case s.temp.Load():
		return "it created temporary objects (DISCARD TEMP or DISCARD ALL ends this)"
	}
	return ""
}

// mayChangeResolution reports whether a statement text may change what
// sessionSchema follows, for the fast relay's filter: a word of DDL, of
// search_path or of DISCARD anywhere in it.
func mayChangeResolution(sql []byte) bool {
	return hasDDLWord(sql) || sqltext.ContainsFold(sql, "search_path") || containsWordFold(sql, "discard")
}

func hasDDLWord(sql []byte) bool {
	return containsWordFold(sql, "create") || containsWordFold(sql, "alter") || containsWordFold(sql, "drop")
}

// containsWordFold reports whether sql holds w, ASCII case folded, as a
// whole word: not inside an identifier (created_at is no CREATE).
func containsWordFold(sql []byte, w string) bool {
	for i := 0; i+len(w) <= len(sql); i++ {
		if !bytes.EqualFold(sql[i:i+len(w)], []byte(w)) {
			continue
		}
		if (i == 0 || !identByte(sql[i-1])) && (i+len(w) == len(sql) || !identByte(sql[i+len(w)])) {
			return true
		}
	}
	return false
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// observe notes what sql may change, from its words alone: a false
// alarm costs refusals until the transaction ends or a RESET, a missed
// change a wrong verdict.
func (s *sessionSchema) observe(sql []byte) {
	if s == nil || !mayChangeResolution(sql) {
		return
	}
	trimmed := bytes.TrimSpace(sqltext.SkipBlanks(sql))
	discardAll := startsWithWord(trimmed, "discard") && sqltext.ContainsFold(trimmed, "all")
	if sqltext.ContainsFold(sql, "search_path") {
		s.path.Store(!startsWithWord(trimmed, "reset"))
	}
	if startsWithWord(trimmed, "reset") && sqltext.ContainsFold(trimmed, "all") || discardAll {
		s.path.Store(false)
	}
	if startsWithWord(trimmed, "discard") && (discardAll || sqltext.ContainsFold(trimmed, "temp")) {
		s.temp.Store(false)
	}
	if hasDDLWord(sql) {
		s.ddlInTx.Store(true) // cleared by the ReadyForQuery that finds no transaction open
		if containsWordFold(sql, "temp") || containsWordFold(sql, "temporary") {
			s.temp.Store(true)
		}
	}
}

// ready follows the transaction status of a ReadyForQuery: with none
// open, DDL has been committed or rolled back, and the schema is read
// again (judgeConnState.ddl).
func (s *sessionSchema) ready(status byte) {
	if s != nil && status == 'I' {
		s.ddlInTx.Store(false)
	}
}
