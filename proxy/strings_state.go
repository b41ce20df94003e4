package proxy

import (
	"bytes"
	"sync/atomic"

	"github.com/pgequiv/pgequiv/protocol"
)

// stringsState follows the session's standard_conforming_strings, which
// decides how PostgreSQL's lexer reads '...' (and so where comments and
// statements begin and end), as the server reports it in ParameterStatus
// messages: at startup and after every change, before the ReadyForQuery
// of the statement that made it.
type stringsState struct {
	// backslash: the server last reported standard_conforming_strings =
	// off. Written by the upstream side, read by the client side.
	backslash atomic.Bool
	// done mirrors zRecv (ReadyForQuery messages seen) for the client
	// side, which compares it with zSent: a statement still running may
	// change the setting before the server reads the next one.
	done atomic.Uint64
	// execSinceSync: the client sent an Execute since its last Sync (a
	// statement of the current batch may run before the next Parse is
	// read). Owned by the client side.
	execSinceSync bool
}

var scsName = []byte("standard_conforming_strings")

// noteParameterStatus reads a ParameterStatus frame (header included).
func (s *stringsState) noteParameterStatus(frame []byte) {
	if len(frame) < protocol.HeaderLen || frame[0] != protocol.TypeParameterStatus {
		return
	}
	body := protocol.Body(frame)
	name, rest, ok := bytes.Cut(body, []byte{0})
	if !ok || !bytes.Equal(name, scsName) {
		return
	}
	value, _, _ := bytes.Cut(rest, []byte{0})
	s.backslash.Store(bytes.EqualFold(value, []byte("off")))
}

// fill sets ev's lexing fields before the observer sees a statement;
// called on the client side.
func (s *stringsState) fill(ev *QueryEvent, zSent uint64) {
	ev.BackslashStrings = s.backslash.Load()
	before := zSent // statements before a Parse end with ReadyForQuery at zSent
	if ev.Kind == KindQuery {
		before = zSent - 1 // zSent already counts this Query
	}
	ev.StringsUncertain = before > s.done.Load() || ev.Kind == KindParse && s.execSinceSync
}
