package localsession

import "fmt"

// SQLSTATEs of the extended protocol's bookkeeping errors, as PostgreSQL
// reports them.
const (
	CodeUndefinedPStatement = "26000"
	CodeUndefinedCursor     = "34000"
	CodeDuplicatePStatement = "42P05"
	CodeDuplicateCursor     = "42P03"
	CodeProtocolViolation   = "08P01"
)

// Error is an ERROR a local session answers: each side turns it into its
// own ErrorResponse (the admin console and database-free mode add
// different fields).
type Error struct {
	Code    string // SQLSTATE
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Store holds a session's prepared statements (S, from Parse) and
// portals (P, from Bind) by name, "" being the unnamed one, with what
// each holds in bytes: database-free mode bounds that per connection,
// the admin console stores 0.
//
// Its lookups answer PostgreSQL's errors for an unknown or duplicate
// name, so that both sessions report them alike.
type Store[S, P any] struct {
	stmts   map[string]entry[S]
	portals map[string]entry[P]
	held    int
}

type entry[T any] struct {
	v    T
	size int
}

// NewStore returns an empty store.
func NewStore[S, P any]() *Store[S, P] {
	return &Store[S, P]{stmts: map[string]entry[S]{}, portals: map[string]entry[P]{}}
}

// Statement returns the prepared statement name, or PostgreSQL's error
// for an unknown one (26000).
func (s *Store[S, P]) Statement(name string) (S, *Error) {
	e, ok := s.stmts[name]
	if !ok {
		return e.v, errorf(CodeUndefinedPStatement, "prepared statement %q does not exist", name)
	}
	return e.v, nil
}

// Portal returns the portal name, or PostgreSQL's error for an unknown
// one (34000).
func (s *Store[S, P]) Portal(name string) (P, *Error) {
	e, ok := s.portals[name]
	if !ok {
		return e.v, errorf(CodeUndefinedCursor, "portal %q does not exist", name)
	}
	return e.v, nil
}

// CheckNewStatement refuses a Parse into a named statement that exists
// (42P05); the unnamed statement is replaced.
func (s *Store[S, P]) CheckNewStatement(name string) *Error {
	if _, dup := s.stmts[name]; dup && name != "" {
		return errorf(CodeDuplicatePStatement, "prepared statement %q already exists", name)
	}
	return nil
}

// CheckNewPortal refuses a Bind into a named portal that exists (42P03);
// the unnamed portal is replaced.
func (s *Store[S, P]) CheckNewPortal(name string) *Error {
	if _, dup := s.portals[name]; dup && name != "" {
		return errorf(CodeDuplicateCursor, "cursor %q already exists", name)
	}
	return nil
}

// NamedStatements is how many named statements there are: the unnamed
// one does not count against a bound.
func (s *Store[S, P]) NamedStatements() int {
	n := len(s.stmts)
	if _, ok := s.stmts[""]; ok {
		n--
	}
	return n
}

// Portals is how many portals are open, the unnamed one included.
func (s *Store[S, P]) Portals() int { return len(s.portals) }

// HasPortal reports whether the portal name is open: binding it replaces
// it.
func (s *Store[S, P]) HasPortal(name string) bool {
	_, ok := s.portals[name]
	return ok
}

// Held is what the statements and portals hold, in bytes.
func (s *Store[S, P]) Held() int { return s.held }

// StatementGrowth is how much Held would grow were statement name stored
// with size bytes, replacing the one there.
func (s *Store[S, P]) StatementGrowth(name string, size int) int {
	return size - s.stmts[name].size
}

// PortalGrowth is how much Held would grow were portal name stored with
// size bytes, replacing the one there.
func (s *Store[S, P]) PortalGrowth(name string, size int) int {
	return size - s.portals[name].size
}

// PutStatement stores (or replaces) the statement name.
func (s *Store[S, P]) PutStatement(name string, v S, size int) {
	s.held += s.StatementGrowth(name, size)
	s.stmts[name] = entry[S]{v, size}
}

// PutPortal stores (or replaces) the portal name.
func (s *Store[S, P]) PutPortal(name string, v P, size int) {
	s.held += s.PortalGrowth(name, size)
	s.portals[name] = entry[P]{v, size}
}

// Close closes a statement (objectType 'S') or a portal ('P') as a Close
// message asks; an unknown name is no error, as in PostgreSQL. Another
// object type is a protocol violation.
func (s *Store[S, P]) Close(objectType byte, name string) *Error {
	switch objectType {
	case 'S':
		s.held -= s.stmts[name].size
		delete(s.stmts, name)
	case 'P':
		s.held -= s.portals[name].size
		delete(s.portals, name)
	default:
		return errorf(CodeProtocolViolation, "invalid CLOSE message subtype %d", objectType)
	}
	return nil
}

// ClosePortals closes every portal (the implicit transaction ended).
func (s *Store[S, P]) ClosePortals() {
	for _, e := range s.portals {
		s.held -= e.size
	}
	clear(s.portals)
}
