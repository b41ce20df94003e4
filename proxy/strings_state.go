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
	// encoding is the session's client_encoding as last reported by the
	// server (ParameterStatus, sent at startup and after every change),
	// or asked for in the startup message before that; nil: not known
	// (read as UTF8). Written by the upstream side, read by the client
	// side.
	encoding atomic.Pointer[string]
}

var (
	scsName      = []byte("standard_conforming_strings")
	encodingName = []byte("client_encoding")
)

// startupEncoding notes the client_encoding a startup message asks for;
// the server's ParameterStatus, before the first statement, has the last
// word.
func (s *stringsState) startupEncoding(params map[string]string) {
	if v, ok := params["client_encoding"]; ok {
		s.encoding.Store(&v)
	}
}

// noteParameterStatus reads a ParameterStatus frame (header included).
func (s *stringsState) noteParameterStatus(frame []byte) {
	if len(frame) < protocol.HeaderLen || frame[0] != protocol.TypeParameterStatus {
		return
	}
	body := protocol.Body(frame)
	name, rest, ok := bytes.Cut(body, []byte{0})
	if !ok {
		return
	}
	value, _, _ := bytes.Cut(rest, []byte{0})
	switch {
	case bytes.Equal(name, scsName):
		s.backslash.Store(bytes.EqualFold(value, []byte("off")))
	case bytes.Equal(name, encodingName):
		v := string(value)
		s.encoding.Store(&v)
	}
}

// fill sets ev's lexing fields before the observer sees a statement;
// called on the client side.
func (s *stringsState) fill(ev *QueryEvent, zSent uint64) {
	ev.BackslashStrings = s.backslash.Load()
	ev.ClientEncoding = ""
	if v := s.encoding.Load(); v != nil {
		ev.ClientEncoding = *v
	}
	before := zSent // statements before a Parse end with ReadyForQuery at zSent
	if ev.Kind == KindQuery {
		before = zSent - 1 // zSent already counts this Query
	}
	ev.StringsUncertain = before > s.done.Load() || ev.Kind == KindParse && s.execSinceSync
}

// fillBind sets ev's encoding fields as fill sets a Parse's: the
// statements sent before this Bind end with the ReadyForQuery at zSent.
func (s *stringsState) fillBind(ev *BindEvent, zSent uint64) {
	if v := s.encoding.Load(); v != nil {
		ev.ClientEncoding = *v
	}
	ev.EncodingUncertain = zSent > s.done.Load() || s.execSinceSync
}
