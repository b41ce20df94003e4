package dbfree

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
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
	size    int
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
			c.held+add, c.opts.MaxPreparedBytes),
		hint: "Close (DEALLOCATE) prepared statements that are no longer needed.",
	}
}

func (c *conn) parse(m *pgproto3.Parse) *pgError {
	if c.tx.Skipping() {
		return nil
	}
	if _, dup := c.stmts[m.Name]; dup && m.Name != "" {
		return errorf(codeDuplicatePStatement, "prepared statement %q already exists", m.Name)
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
	old, replacing := c.stmts[m.Name] // only the unnamed statement is replaced
	named := len(c.stmts)
	if _, ok := c.stmts[""]; ok {
		named--
	}
	if m.Name != "" && named >= c.opts.MaxPreparedStatements {
		return c.errPreparedLimit("prepared statements", c.opts.MaxPreparedStatements)
	}
	add := p.size()
	if replacing {
		add -= old.size()
	}
	if c.held+add > c.opts.MaxPreparedBytes {
		return c.errPreparedBytes(add)
	}
	c.held += add
	c.stmts[m.Name] = p
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
	p, ok := c.stmts[m.PreparedStatement]
	if !ok {
		return errorf(codeUndefinedPStatement, "prepared statement %q does not exist", m.PreparedStatement)
	}
	if n := p.numParams(); len(m.Parameters) != n {
		return errorf(codeProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d", len(m.Parameters), m.PreparedStatement, n)
	}
	if _, dup := c.portals[m.DestinationPortal]; dup && m.DestinationPortal != "" {
		return errorf("42P03", "cursor %q already exists", m.DestinationPortal)
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
	old, replacing := c.portals[m.DestinationPortal] // only the unnamed portal is replaced
	if !replacing && len(c.portals) >= c.opts.MaxPreparedStatements {
		return c.errPreparedLimit("open portals", c.opts.MaxPreparedStatements)
	}
	size := entryOverhead + 2*len(m.ResultFormatCodes)
	for _, v := range m.Parameters {
		size += len(v)
	}
	add := size
	if replacing {
		add -= old.size
	}
	if c.held+add > c.opts.MaxPreparedBytes {
		return c.errPreparedBytes(add)
	}
	// The message is valid only until the next Receive: copy.
	params := make([][]byte, len(m.Parameters))
	for i, v := range m.Parameters {
		if v != nil {
			params[i] = append([]byte{}, v...)
		}
	}
	c.held += add
	c.portals[m.DestinationPortal] = &portal{st: p.st, params: params, formats: append([]int16(nil), m.ResultFormatCodes...), size: size}
	c.be.Send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) closePortals() {
	for _, pt := range c.portals {
		c.held -= pt.size
	}
	clear(c.portals)
}

func (c *conn) describe(m *pgproto3.Describe) *pgError {
	if c.tx.Skipping() {
		return nil
	}
	switch m.ObjectType {
	case 'S':
		p, ok := c.stmts[m.Name]
		if !ok {
			return errorf(codeUndefinedPStatement, "prepared statement %q does not exist", m.Name)
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
		pt, ok := c.portals[m.Name]
		if !ok {
			return errorf(codeUndefinedCursor, "portal %q does not exist", m.Name)
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
	pt, ok := c.portals[m.Portal]
	if !ok {
		return errorf(codeUndefinedCursor, "portal %q does not exist", m.Portal)
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
	switch m.ObjectType {
	case 'S':
		if p, ok := c.stmts[m.Name]; ok {
			c.held -= p.size()
			delete(c.stmts, m.Name)
		}
	case 'P':
		if pt, ok := c.portals[m.Name]; ok {
			c.held -= pt.size
			delete(c.portals, m.Name)
		}
	default:
		return errorf(codeProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.be.Send(&pgproto3.CloseComplete{})
	return nil
}
