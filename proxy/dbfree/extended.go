package dbfree

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/pgcatalog"
	"github.com/pgequiv/pgequiv/proxy/localsession"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// The extended query protocol: Parse, Bind, Describe, Execute and Close,
// with the per-connection bounds on what statements and portals hold.

// prepared is a parsed statement (Parse).
type prepared struct {
	st        *statement
	paramOIDs []uint32
	// inferred are the parameter types of a judged query as PostgreSQL
	// would infer them over the schema (pgcatalog.ParamOIDs), for the
	// parameters the client left unspecified (OID 0).
	inferred []uint32
}

// portal is a bound statement (Bind).
type portal struct {
	st      *statement
	params  [][]byte
	formats []int16
	done    bool
}

// session is the connection's protocol state, shared in shape with the
// admin console: the transaction status, the prepared statements and
// portals (and what they hold in bytes, bounded by MaxPreparedBytes).
type session = localsession.Session[*prepared, *portal]

// sessionRules are where database-free mode answers as PostgreSQL does
// and the admin console does not.
var sessionRules = localsession.Rules{StrictObjectTypes: true, ClosePortalsAtSync: true}

// storeError turns the store's error (an unknown or duplicate name) into
// the endpoint's.
func storeError(e *localsession.Error) *pgError {
	if e == nil {
		return nil
	}
	return &pgError{code: e.Code, msg: e.Message}
}

// asError returns e as an error, nil when e is nil (not a nil *pgError
// in a non-nil error).
func asError(e *pgError) error {
	if e == nil {
		return nil
	}
	return e
}

// The methods below implement localsession.Handler: what database-free
// mode's statements mean.

// Query answers the statements of a simple Query.
func (c *conn) Query(sql string) ([]pgproto3.BackendMessage, error) {
	msgs, err := c.simpleQuery(sql)
	return msgs, asError(err)
}

// Parse analyzes a statement to prepare, within the connection's bounds.
func (c *conn) Parse(m *pgproto3.Parse) (*prepared, int, error) {
	p, err := c.parse(m)
	if err != nil {
		return nil, 0, err
	}
	return p, p.size(), nil
}

// Bind binds a portal, within the connection's bounds.
func (c *conn) Bind(p *prepared, m *pgproto3.Bind) (*portal, int, error) {
	pt, size, err := c.bind(p, m)
	if err != nil {
		return nil, 0, err
	}
	return pt, size, nil
}

// DescribeStatement answers the statement's parameter and column types.
func (c *conn) DescribeStatement(p *prepared) ([]pgproto3.BackendMessage, error) {
	oids := make([]uint32, p.numParams())
	for i := range oids {
		oids[i] = pgtypes.Text
		if i < len(p.inferred) && p.inferred[i] != 0 {
			oids[i] = p.inferred[i]
		}
		if i < len(p.paramOIDs) && p.paramOIDs[i] != 0 {
			oids[i] = p.paramOIDs[i]
		}
	}
	return []pgproto3.BackendMessage{&pgproto3.ParameterDescription{ParameterOIDs: oids},
		rowDescriptionOf(p.st, p.cols(), nil)}, nil
}

// DescribePortal answers the portal's columns, in its result formats.
func (c *conn) DescribePortal(pt *portal) ([]pgproto3.BackendMessage, error) {
	return []pgproto3.BackendMessage{rowDescriptionOf(pt.st, (&prepared{st: pt.st}).cols(), pt.formats)}, nil
}

// Execute runs the portal.
func (c *conn) Execute(pt *portal, _ *pgproto3.Execute) ([]pgproto3.BackendMessage, error) {
	msgs, err := c.execute(pt)
	return msgs, asError(err)
}

// Send buffers m; the connection flushes when the client waits.
func (c *conn) Send(m pgproto3.BackendMessage) error {
	c.be.Send(m)
	return nil
}

// SendError answers err, a *pgError or the store's error.
func (c *conn) SendError(err error) error {
	pe, ok := err.(*pgError)
	if !ok {
		var le *localsession.Error
		if errors.As(err, &le) {
			pe = storeError(le)
		} else {
			pe = errorf(codeInternalError, "%v", err)
		}
	}
	c.be.Send(pe.response("ERROR"))
	return nil
}

// entryOverhead approximates the memory of a map entry and its structs
// beyond the texts, so that many empty statements count too.
const entryOverhead = 256

// size is what a prepared statement holds: its text, the literal
// arguments copied out of it, and its parameter types.
func (p *prepared) size() int {
	return entryOverhead + len(p.st.sql) + len(p.st.ref.literal) + len(p.st.cand.literal) + 4*len(p.paramOIDs) + 4*len(p.inferred)
}

// errPreparedLimit refuses a Parse or Bind over the per-connection
// bounds; the connection keeps working.
func (c *conn) errPreparedLimit(what string, n int) *pgError {
	return &pgError{
		code: codeConfigLimitExceeded,
		msg:  fmt.Sprintf("pgequiv: too many %s on this connection (max_prepared_statements = %d)", what, n),
		hint: "Close (DEALLOCATE) prepared statements that are no longer needed.",
	}
}

func (c *conn) errPreparedBytes(add int) *pgError {
	return &pgError{
		code: codeConfigLimitExceeded,
		msg: fmt.Sprintf("pgequiv: prepared statements and portals on this connection would hold %d bytes, over max_prepared_bytes = %d",
			c.sess.Store.Held()+add, c.opts.MaxPreparedBytes),
		hint: "Close (DEALLOCATE) prepared statements that are no longer needed.",
	}
}

// parse builds the statement m prepares; the session stores it.
func (c *conn) parse(m *pgproto3.Parse) (*prepared, *pgError) {
	store := c.sess.Store
	if err := store.CheckNewStatement(m.Name); err != nil {
		return nil, storeError(err)
	}
	st, err := c.analyze(m.Query)
	if err != nil {
		return nil, err
	}
	if st.multi {
		return nil, errorf(codeSyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	if st.kind == kindOther {
		// Refuse untagged statements at once, as a server refuses a
		// statement that does not plan.
		if _, err := c.reference(st); err != nil {
			return nil, err
		}
	}
	p := &prepared{st: st, paramOIDs: append([]uint32(nil), m.ParameterOIDs...)}
	if st.kind == kindOther && st.nParams > 0 {
		// A tagged query's $n are the query's own: described with the
		// types the schema gives them, so that drivers encode values as
		// they would for PostgreSQL (pgx refuses an int as text).
		p.inferred = pgcatalog.ParamOIDs(c.ctx, c.opts.Schema, tag.StripComment(st.sql), st.nParams)
	}
	if st.kind == kindLocal && st.local.bound != nil && c.sysCat != nil {
		// A catalog query's $n: the system columns' types (oid = $1).
		p.inferred = c.sysCat.ParamOIDs(c.ctx, st.sql, st.nParams)
	}
	if m.Name != "" && store.NamedStatements() >= c.opts.MaxPreparedStatements {
		return nil, c.errPreparedLimit("prepared statements", c.opts.MaxPreparedStatements)
	}
	// Only the unnamed statement is replaced: its size is given back.
	if add := store.StatementGrowth(m.Name, p.size()); store.Held()+add > c.opts.MaxPreparedBytes {
		return nil, c.errPreparedBytes(add)
	}
	return p, nil
}

// paramOID is the type parameter i has: the client's, else the one
// described (0 when neither).
func (p *prepared) paramOID(i int) uint32 {
	if i < len(p.paramOIDs) && p.paramOIDs[i] != 0 {
		return p.paramOIDs[i]
	}
	if i < len(p.inferred) {
		return p.inferred[i]
	}
	return 0
}

// numParams is how many parameters a Bind must supply.
func (p *prepared) numParams() int { return max(p.st.nParams, len(p.paramOIDs)) }

func (p *prepared) cols() []int {
	switch p.st.kind {
	case kindCheck:
		return p.st.cols
	case kindOther:
		return allColumns()
	}
	return nil
}

// bind builds the portal m binds to p; the session stores it.
func (c *conn) bind(p *prepared, m *pgproto3.Bind) (*portal, int, *pgError) {
	store := c.sess.Store
	if n := p.numParams(); len(m.Parameters) != n {
		return nil, 0, errorf(codeProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d", len(m.Parameters), m.PreparedStatement, n)
	}
	if err := store.CheckNewPortal(m.DestinationPortal); err != nil {
		return nil, 0, storeError(err)
	}
	ncols := len(p.cols())
	switch p.st.kind {
	case kindShow:
		ncols = 1
	case kindLocal:
		ncols = len(p.st.local.cols)
	}
	if n := len(m.ResultFormatCodes); n > 1 && n != ncols {
		return nil, 0, errorf(codeProtocolViolation, "bind message has %d result formats but query has %d columns", n, ncols)
	}
	catalogParams := p.st.kind == kindLocal && p.st.local.bound != nil
	if catalogParams {
		for i, v := range m.Parameters {
			if formatOf(m.ParameterFormatCodes, i) == 0 || v == nil {
				continue
			}
			oid := p.paramOID(i)
			if _, ok := binaryParamText(oid, v); !ok {
				return nil, 0, errorf(codeFeatureNotSupported, "pgequiv: catalog query parameter $%d in binary format of type OID %d is not supported", i+1, oid)
			}
		}
	}
	for _, f := range m.ResultFormatCodes {
		if f != 0 && f != 1 {
			return nil, 0, errorf(codeProtocolViolation, "unsupported format code: %d", f)
		}
	}
	// Only the unnamed portal is replaced: its size is given back.
	if !store.HasPortal(m.DestinationPortal) && store.Portals() >= c.opts.MaxPreparedStatements {
		return nil, 0, c.errPreparedLimit("open portals", c.opts.MaxPreparedStatements)
	}
	size := entryOverhead + 2*len(m.ResultFormatCodes)
	for _, v := range m.Parameters {
		size += len(v)
	}
	if add := store.PortalGrowth(m.DestinationPortal, size); store.Held()+add > c.opts.MaxPreparedBytes {
		return nil, 0, c.errPreparedBytes(add)
	}
	// The message is valid only until the next Receive: copy.
	params := make([][]byte, len(m.Parameters))
	for i, v := range m.Parameters {
		if v != nil {
			params[i] = append([]byte{}, v...)
			if catalogParams && formatOf(m.ParameterFormatCodes, i) == 1 {
				// A catalog query reads its parameters as text (checked above).
				t, _ := binaryParamText(p.paramOID(i), v)
				params[i] = []byte(t)
			}
		}
	}
	return &portal{st: p.st, params: params, formats: append([]int16(nil), m.ResultFormatCodes...)}, size, nil
}

// rowDescriptionOf describes st's columns (cols of the endpoint's), or
// NoData.
func rowDescriptionOf(st *statement, cols []int, formats []int16) pgproto3.BackendMessage {
	if st.kind == kindShow {
		return showRowDescription(st.show, formats)
	}
	if st.kind == kindLocal && st.local.cols != nil {
		return st.local.rowDescription(formats)
	}
	if cols == nil {
		return &pgproto3.NoData{}
	}
	return rowDescription(cols, formats)
}

// execute runs the portal: its rows and CommandComplete.
func (c *conn) execute(pt *portal) ([]pgproto3.BackendMessage, *pgError) {
	if err := c.inFailedTx(pt.st); err != nil {
		return nil, err
	}
	switch pt.st.kind {
	case kindLocal:
		var rows [][]*string
		if !pt.done { // a completed portal has no more rows
			var err *pgError
			if rows, err = pt.st.local.run(c); err != nil {
				return nil, err
			}
			if pt.st.local.bound != nil {
				if rows, err = pt.st.local.bound(c, pt.params); err != nil {
					return nil, err
				}
			}
		}
		pt.done = true
		msgs := make([]pgproto3.BackendMessage, 0, len(rows)+1)
		for _, r := range rows {
			msgs = append(msgs, pt.st.local.dataRow(r, pt.formats))
		}
		return append(msgs, &pgproto3.CommandComplete{CommandTag: []byte(pt.st.local.commandTag(c, len(rows)))}), nil
	case kindEmpty:
		return []pgproto3.BackendMessage{&pgproto3.EmptyQueryResponse{}}, nil
	case kindSession:
		if !pt.done {
			c.session.Apply(pt.st.session)
		}
		pt.done = true
		return []pgproto3.BackendMessage{&pgproto3.CommandComplete{CommandTag: []byte(pt.st.session.Tag)}}, nil
	case kindShow:
		var msgs []pgproto3.BackendMessage
		if !pt.done { // a completed portal has no more rows
			msgs = append(msgs, c.showRow(pt.st.show))
		}
		pt.done = true
		return append(msgs, &pgproto3.CommandComplete{CommandTag: []byte("SHOW")}), nil
	}
	if pt.done { // the row was already returned
		return []pgproto3.BackendMessage{&pgproto3.CommandComplete{CommandTag: []byte("SELECT 0")}}, nil
	}
	v, cols, err := c.verdict(pt.st, pt.params)
	if err != nil {
		return nil, err
	}
	pt.done = true
	return []pgproto3.BackendMessage{dataRow(v, cols, pt.formats), &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}}, nil
}
