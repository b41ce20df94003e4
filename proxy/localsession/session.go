package localsession

import "github.com/jackc/pgx/v5/pgproto3"

// Handler is what one local session answers itself: what its statements
// mean. Session does the protocol around them, alike for both.
//
// The methods that answer return the messages to send rather than send
// them, and the error to answer, if any, after them: Session writes
// both, so that an error in a statement (answered; the session goes on)
// and a failed write (the session ends) never mix.
type Handler[S, P any] interface {
	// Query answers the statements of a simple Query until the first
	// error.
	Query(sql string) ([]pgproto3.BackendMessage, error)
	// Parse builds the statement m prepares and what it holds in bytes,
	// or refuses it. Checks against the statements already there (a
	// duplicate name, a bound) are the handler's, through the Store.
	Parse(m *pgproto3.Parse) (S, int, error)
	// Bind builds the portal m binds to st and what it holds in bytes,
	// or refuses it.
	Bind(st S, m *pgproto3.Bind) (P, int, error)
	// DescribeStatement answers Describe of a statement: its
	// ParameterDescription and RowDescription (or NoData).
	DescribeStatement(st S) ([]pgproto3.BackendMessage, error)
	// DescribePortal answers Describe of a portal: its RowDescription
	// (or NoData).
	DescribePortal(p P) ([]pgproto3.BackendMessage, error)
	// Execute runs the portal: its rows and CommandComplete.
	Execute(p P, m *pgproto3.Execute) ([]pgproto3.BackendMessage, error)

	// Send writes a message to the client; an error ends the session.
	Send(pgproto3.BackendMessage) error
	// SendError answers err, an error in a statement or message, with an
	// ErrorResponse; an error returned ends the session.
	SendError(err error) error
}

// Rules are where the two local sessions answer differently; each
// difference is kept as it is rather than unified.
type Rules struct {
	// StrictObjectTypes refuses a Describe or Close whose object type is
	// neither 'S' nor 'P', as PostgreSQL does (database-free mode); the
	// admin console reads any type but 'S' as a portal.
	StrictObjectTypes bool
	// ClosePortalsAtSync closes every portal at Sync, where PostgreSQL's
	// implicit transaction ends (database-free mode); the admin
	// console's portals stay until closed.
	ClosePortalsAtSync bool
}

// Session is a local session's protocol state and its answers to the
// simple and extended query protocols: the transaction status, the
// prepared statements and portals, skip-until-Sync after an error, and
// the fixed answers (ParseComplete, BindComplete, CloseComplete,
// ReadyForQuery, errors for unknown names).
//
// Each method answers one message. It returns only an error that ends
// the session (a failed write); errors in statements are answered.
type Session[S, P any] struct {
	Tx    Tx
	Store *Store[S, P]
	rules Rules
	h     Handler[S, P]
}

// NewSession returns a session answering through h.
func NewSession[S, P any](h Handler[S, P], rules Rules) *Session[S, P] {
	return &Session[S, P]{Store: NewStore[S, P](), rules: rules, h: h}
}

// Fail answers err in an extended-protocol batch: the block, if any,
// fails, and the rest of the batch is skipped until Sync.
func (s *Session[S, P]) Fail(err error) error {
	s.Tx.FailBatch()
	return s.h.SendError(err)
}

// Query answers a simple Query and ReadyForQuery; it is skipped after an
// error in an extended-protocol batch, until Sync.
func (s *Session[S, P]) Query(sql string) error {
	if s.Tx.Skipping() {
		return nil
	}
	msgs, err := s.h.Query(sql)
	if werr := s.sendAll(msgs); werr != nil {
		return werr
	}
	if err != nil {
		s.Tx.Fail()
		if werr := s.h.SendError(err); werr != nil {
			return werr
		}
	}
	return s.h.Send(&pgproto3.ReadyForQuery{TxStatus: s.Tx.Status()})
}

// Sync ends an extended-protocol batch with ReadyForQuery.
func (s *Session[S, P]) Sync() error {
	s.Tx.Sync()
	if s.rules.ClosePortalsAtSync {
		s.Store.ClosePortals()
	}
	return s.h.Send(&pgproto3.ReadyForQuery{TxStatus: s.Tx.Status()})
}

// Parse prepares a statement and answers ParseComplete.
func (s *Session[S, P]) Parse(m *pgproto3.Parse) error {
	if s.Tx.Skipping() {
		return nil
	}
	st, size, err := s.h.Parse(m)
	if err != nil {
		return s.Fail(err)
	}
	s.Store.PutStatement(m.Name, st, size)
	return s.h.Send(&pgproto3.ParseComplete{})
}

// Bind binds a portal to a prepared statement and answers BindComplete.
func (s *Session[S, P]) Bind(m *pgproto3.Bind) error {
	if s.Tx.Skipping() {
		return nil
	}
	st, serr := s.Store.Statement(m.PreparedStatement)
	if serr != nil {
		return s.Fail(serr)
	}
	p, size, err := s.h.Bind(st, m)
	if err != nil {
		return s.Fail(err)
	}
	s.Store.PutPortal(m.DestinationPortal, p, size)
	return s.h.Send(&pgproto3.BindComplete{})
}

// Describe describes a prepared statement or a portal.
func (s *Session[S, P]) Describe(m *pgproto3.Describe) error {
	if s.Tx.Skipping() {
		return nil
	}
	var msgs []pgproto3.BackendMessage
	var err error
	switch {
	case m.ObjectType == 'S':
		st, serr := s.Store.Statement(m.Name)
		if serr != nil {
			return s.Fail(serr)
		}
		msgs, err = s.h.DescribeStatement(st)
	case m.ObjectType == 'P' || !s.rules.StrictObjectTypes:
		p, serr := s.Store.Portal(m.Name)
		if serr != nil {
			return s.Fail(serr)
		}
		msgs, err = s.h.DescribePortal(p)
	default:
		err = errorf(CodeProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	if err != nil {
		return s.Fail(err)
	}
	return s.sendAll(msgs)
}

// Execute runs a portal.
func (s *Session[S, P]) Execute(m *pgproto3.Execute) error {
	if s.Tx.Skipping() {
		return nil
	}
	p, serr := s.Store.Portal(m.Portal)
	if serr != nil {
		return s.Fail(serr)
	}
	msgs, err := s.h.Execute(p, m)
	if err != nil {
		return s.Fail(err)
	}
	return s.sendAll(msgs)
}

// Close closes a prepared statement or a portal and answers
// CloseComplete; closing one that does not exist is no error.
func (s *Session[S, P]) Close(m *pgproto3.Close) error {
	if s.Tx.Skipping() {
		return nil
	}
	objectType := m.ObjectType
	if !s.rules.StrictObjectTypes && objectType != 'S' {
		objectType = 'P'
	}
	if err := s.Store.Close(objectType, m.Name); err != nil {
		return s.Fail(err)
	}
	return s.h.Send(&pgproto3.CloseComplete{})
}

func (s *Session[S, P]) sendAll(msgs []pgproto3.BackendMessage) error {
	for _, m := range msgs {
		if err := s.h.Send(m); err != nil {
			return err
		}
	}
	return nil
}
