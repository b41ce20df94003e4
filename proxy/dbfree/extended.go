package dbfree

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/proxy/localsession"
)

// The extended query protocol: Parse, Bind, Describe, Execute and Close,
// with the per-connection bounds on what statements and portals hold.

// prepared is a parsed statement (Parse).
type prepared struct {
	st        *statement
	paramOIDs []uint32
}

// portal is a bound statement (Bind).
type portal struct {
	st      *statement
	params  [][]byte
	formats []int16
	done    bool
}

// store holds the connection's prepared statements and portals, and what
// they hold in bytes, bounded by MaxPreparedBytes.
type store = localsession.Store[*prepared, *portal]

// storeError turns the store's error (an unknown or duplicate name) into
// the endpoint's.
func storeError(e *localsession.Error) *pgError {
	if e == nil {
		return nil
	}
	return &pgError{code: e.Code, msg: e.Message}
}

// entryOverhead approximates the memory of a map entry and its structs
// beyond the texts, so that many empty statements count too.
const entryOverhead = 256

// size is what a prepared statement holds: its text, the literal
// arguments copied out of it, and its parameter types.
func (p *prepared) size() int {
	return entryOverhead + len(p.st.sql) + len(p.st.ref.literal) + len(p.st.cand.literal) + 4*len(p.paramOIDs)
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
			c.store.Held()+add, c.opts.MaxPreparedBytes),
		hint: "Close (DEALLOCATE) prepared statements that are no longer needed.",
	}
}

func (c *conn) parse(m *pgproto3.Parse) *pgError {
	if c.tx.Skipping() {
		return nil
	}
	if err := c.store.CheckNewStatement(m.Name); err != nil {
		return storeError(err)
	}
	st, err := c.analyze(m.Query)
	if err != nil {
		return err
	}
	if st.multi {
		return errorf(codeSyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	if st.kind == kindOther {
		// Refuse untagged statements at once, as a server refuses a
		// statement that does not plan.
		if _, err := c.reference(st); err != nil {
			return err
		}
	}
	p := &prepared{st: st, paramOIDs: append([]uint32(nil), m.ParameterOIDs...)}
	if m.Name != "" && c.store.NamedStatements() >= c.opts.MaxPreparedStatements {
		return c.errPreparedLimit("prepared statements", c.opts.MaxPreparedStatements)
	}
	// Only the unnamed statement is replaced: its size is given back.
	if add := c.store.StatementGrowth(m.Name, p.size()); c.store.Held()+add > c.opts.MaxPreparedBytes {
		return c.errPreparedBytes(add)
	}
	c.store.PutStatement(m.Name, p, p.size())
	c.be.Send(&pgproto3.ParseComplete{})
	return nil
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

func (c *conn) bind(m *pgproto3.Bind) *pgError {
	if c.tx.Skipping() {
		return nil
	}
	p, serr := c.store.Statement(m.PreparedStatement)
	if serr != nil {
		return storeError(serr)
	}
	if n := p.numParams(); len(m.Parameters) != n {
		return errorf(codeProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d", len(m.Parameters), m.PreparedStatement, n)
	}
	if err := c.store.CheckNewPortal(m.DestinationPortal); err != nil {
		return storeError(err)
	}
	ncols := len(p.cols())
	switch p.st.kind {
	case kindShow:
		ncols = 1
	case kindLocal:
		ncols = len(p.st.local.cols)
	}
	if n := len(m.ResultFormatCodes); n > 1 && n != ncols {
		return errorf(codeProtocolViolation, "bind message has %d result formats but query has %d columns", n, ncols)
	}
	if p.st.kind == kindLocal && p.st.local.bound != nil {
		for _, f := range m.ParameterFormatCodes {
			if f != 0 {
				return errorf(codeFeatureNotSupported, "pgequiv: catalog query parameters in binary format are not supported")
			}
		}
	}
	for _, f := range m.ResultFormatCodes {
		if f != 0 && f != 1 {
			return errorf(codeProtocolViolation, "unsupported format code: %d", f)
		}
	}
	// Only the unnamed portal is replaced: its size is given back.
	if !c.store.HasPortal(m.DestinationPortal) && c.store.Portals() >= c.opts.MaxPreparedStatements {
		return c.errPreparedLimit("open portals", c.opts.MaxPreparedStatements)
	}
	size := entryOverhead + 2*len(m.ResultFormatCodes)
	for _, v := range m.Parameters {
		size += len(v)
	}
	if add := c.store.PortalGrowth(m.DestinationPortal, size); c.store.Held()+add > c.opts.MaxPreparedBytes {
		return c.errPreparedBytes(add)
	}
	// The message is valid only until the next Receive: copy.
	params := make([][]byte, len(m.Parameters))
	for i, v := range m.Parameters {
		if v != nil {
			params[i] = append([]byte{}, v...)
		}
	}
	c.store.PutPortal(m.DestinationPortal, &portal{st: p.st, params: params, formats: append([]int16(nil), m.ResultFormatCodes...)}, size)
	c.be.Send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) describe(m *pgproto3.Describe) *pgError {
	if c.tx.Skipping() {
		return nil
	}
	switch m.ObjectType {
	case 'S':
		p, err := c.store.Statement(m.Name)
		if err != nil {
			return storeError(err)
		}
		oids := make([]uint32, p.numParams())
		for i := range oids {
			oids[i] = oidText
			if i < len(p.paramOIDs) && p.paramOIDs[i] != 0 {
				oids[i] = p.paramOIDs[i]
			}
		}
		c.be.Send(&pgproto3.ParameterDescription{ParameterOIDs: oids})
		c.sendRowDescription(p.st, p.cols(), nil)
	case 'P':
		pt, err := c.store.Portal(m.Name)
		if err != nil {
			return storeError(err)
		}
		c.sendRowDescription(pt.st, (&prepared{st: pt.st}).cols(), pt.formats)
	default:
		return errorf(codeProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

func (c *conn) sendRowDescription(st *statement, cols []int, formats []int16) {
	if st.kind == kindShow {
		c.be.Send(showRowDescription(st.show, formats))
		return
	}
	if st.kind == kindLocal && st.local.cols != nil {
		c.be.Send(st.local.rowDescription(formats))
		return
	}
	if cols == nil {
		c.be.Send(&pgproto3.NoData{})
		return
	}
	c.be.Send(rowDescription(cols, formats))
}

func (c *conn) execute(m *pgproto3.Execute) *pgError {
	if c.tx.Skipping() {
		return nil
	}
	pt, serr := c.store.Portal(m.Portal)
	if serr != nil {
		return storeError(serr)
	}
	if err := c.inFailedTx(pt.st); err != nil {
		return err
	}
	switch pt.st.kind {
	case kindLocal:
		var rows [][]*string
		if !pt.done { // a completed portal has no more rows
			var err *pgError
			if rows, err = pt.st.local.run(c); err != nil {
				return err
			}
			if pt.st.local.bound != nil {
				if rows, err = pt.st.local.bound(c, pt.params); err != nil {
					return err
				}
			}
		}
		pt.done = true
		for _, r := range rows {
			c.be.Send(pt.st.local.dataRow(r, pt.formats))
		}
		c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(pt.st.local.commandTag(c, len(rows)))})
		return nil
	case kindEmpty:
		c.be.Send(&pgproto3.EmptyQueryResponse{})
		return nil
	case kindSession:
		if !pt.done {
			c.session.Apply(pt.st.session)
		}
		pt.done = true
		c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(pt.st.session.Tag)})
		return nil
	case kindShow:
		if !pt.done { // a completed portal has no more rows
			c.be.Send(c.showRow(pt.st.show))
		}
		pt.done = true
		c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SHOW")})
		return nil
	}
	if pt.done { // the row was already returned
		c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 0")})
		return nil
	}
	v, cols, err := c.verdict(pt.st, pt.params)
	if err != nil {
		return err
	}
	pt.done = true
	c.be.Send(dataRow(v, cols, pt.formats))
	c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
	return nil
}

func (c *conn) close(m *pgproto3.Close) *pgError {
	if c.tx.Skipping() {
		return nil
	}
	if err := c.store.Close(m.ObjectType, m.Name); err != nil {
		return storeError(err)
	}
	c.be.Send(&pgproto3.CloseComplete{})
	return nil
}
