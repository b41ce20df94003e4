package proxy

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/protocol"
	"github.com/pgequiv/pgequiv/proxy/localsession"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// adminSession is one admin console connection's protocol state: what
// ordinary drivers need besides the statements themselves. psycopg2 wraps
// statements in BEGIN ... COMMIT by default; pgx and node-postgres (with
// parameters) use the extended protocol. Nothing here changes anything:
// transaction commands only move the transaction status drivers track.
type adminSession struct {
	c *conn
	// store holds the prepared statements (their text) and portals by
	// name, shared with database-free mode; the console bounds neither.
	store *localsession.Store[string, *adminPortal]
	// tx is the transaction status and the extended protocol's
	// skip-until-Sync, shared with database-free mode.
	tx localsession.Tx
}

type adminPortal struct {
	sql     string
	params  []string
	formats []int16 // result formats as Bind gave them
	res     *AdminResult
	sent    bool // described: the RowDescription is not repeated at Execute
}

const pgCodeInFailedTx = "25P02"

func (a *adminSession) handle(frame []byte) error {
	c := a.c
	body := protocol.Body(frame)
	if a.tx.Skipping() && frame[0] != protocol.TypeSync {
		return nil
	}
	switch frame[0] {
	case protocol.TypeQuery:
		var q protocol.Query
		if err := q.Decode(body); err != nil {
			c.writeFatal(pgCodeProtocolViolation, err.Error())
			return &Error{Code: CodeClientProtocol, Err: err}
		}
		if err := a.simpleQuery(string(q.SQL)); err != nil {
			return err
		}
		return c.writeBackend(&pgproto3.ReadyForQuery{TxStatus: a.tx.Status()})
	case protocol.TypeSync:
		a.tx.Sync()
		return c.writeBackend(&pgproto3.ReadyForQuery{TxStatus: a.tx.Status()})
	case 'H': // Flush: answers are flushed when the client's input would block
		return nil
	case 'P':
		var m pgproto3.Parse
		if err := m.Decode(body); err != nil {
			return a.fail(pgCodeProtocolViolation, err.Error())
		}
		// A named statement is replaced, not refused as a duplicate
		// (PostgreSQL and database-free mode refuse it).
		a.store.PutStatement(m.Name, strings.TrimRight(strings.TrimSpace(m.Query), "; \t\r\n"), 0)
		return c.writeBackend(&pgproto3.ParseComplete{})
	case 'B':
		var m pgproto3.Bind
		if err := m.Decode(body); err != nil {
			return a.fail(pgCodeProtocolViolation, err.Error())
		}
		sql, serr := a.store.Statement(m.PreparedStatement)
		if serr != nil {
			return a.fail(serr.Code, serr.Message)
		}
		params := make([]string, len(m.Parameters))
		for i, p := range m.Parameters {
			if f := formatAt(m.ParameterFormatCodes, i); f != 0 {
				return a.fail(pgCodeFeatureNotSupport, "pgequiv admin console: parameters must be sent as text")
			}
			params[i] = string(p)
		}
		a.store.PutPortal(m.DestinationPortal, &adminPortal{sql: sql, params: params, formats: m.ResultFormatCodes}, 0)
		return c.writeBackend(&pgproto3.BindComplete{})
	case 'D':
		var m pgproto3.Describe
		if err := m.Decode(body); err != nil {
			return a.fail(pgCodeProtocolViolation, err.Error())
		}
		if m.ObjectType == 'S' {
			sql, serr := a.store.Statement(m.Name)
			if serr != nil {
				return a.fail(serr.Code, serr.Message)
			}
			cols, err := a.describe(sql)
			if err != nil {
				return a.failErr(err)
			}
			pd := &pgproto3.ParameterDescription{}
			for range countParams(sql) {
				pd.ParameterOIDs = append(pd.ParameterOIDs, uint32(AdminText))
			}
			if err := c.writeBackend(pd); err != nil {
				return err
			}
			return c.writeBackend(rowDescription(cols, nil))
		}
		// Any object type other than 'S' reads as a portal (database-free
		// mode refuses one that is not 'P').
		p, serr := a.store.Portal(m.Name)
		if serr != nil {
			return a.fail(serr.Code, serr.Message)
		}
		if err := a.runPortal(p); err != nil {
			return a.failErr(err)
		}
		p.sent = true
		return c.writeBackend(rowDescription(p.res.Columns, p.formats))
	case 'E':
		var m pgproto3.Execute
		if err := m.Decode(body); err != nil {
			return a.fail(pgCodeProtocolViolation, err.Error())
		}
		p, serr := a.store.Portal(m.Portal)
		if serr != nil {
			return a.fail(serr.Code, serr.Message)
		}
		if err := a.runPortal(p); err != nil {
			return a.failErr(err)
		}
		// Execute returns all rows whatever its row limit: the results
		// are small, and no driver reading them sets one.
		return a.writeRows(p.res, p.formats)
	case 'C':
		var m pgproto3.Close
		if err := m.Decode(body); err != nil {
			return a.fail(pgCodeProtocolViolation, err.Error())
		}
		// Any object type other than 'S' closes a portal (database-free
		// mode refuses one that is not 'P').
		objectType := byte('P')
		if m.ObjectType == 'S' {
			objectType = 'S'
		}
		_ = a.store.Close(objectType, m.Name) // 'S' and 'P' never fail
		return c.writeBackend(&pgproto3.CloseComplete{})
	}
	return a.fail(pgCodeProtocolViolation, fmt.Sprintf("pgequiv admin console: unexpected message %q", frame[0]))
}

// fail answers an error in the extended protocol; what follows is
// skipped until Sync.
func (a *adminSession) fail(code, msg string) error {
	a.tx.FailBatch()
	return a.c.writeBackend(adminError(code, msg))
}

func (a *adminSession) failErr(err error) error {
	code := pgCodeSyntaxError
	if ae, ok := err.(*AdminError); ok {
		code = ae.Code
	}
	return a.fail(code, err.Error())
}

// runPortal runs the portal's statement once; Describe and Execute share
// the result.
func (a *adminSession) runPortal(p *adminPortal) error {
	if p.res != nil {
		return nil
	}
	res, err := a.exec(p.sql, p.params)
	if err != nil {
		return err
	}
	p.res = res
	return nil
}

// simpleQuery runs each statement of a Query message; the first failing
// statement ends the batch with its error.
func (a *adminSession) simpleQuery(sql string) error {
	var stmts []string
	for _, s := range splitStatements(sql) {
		// A statement of comments only (pgx's ping is "-- ping") is empty.
		if s = strings.TrimSpace(string(tag.SkipBlanks([]byte(s)))); s != "" {
			stmts = append(stmts, s)
		}
	}
	if len(stmts) == 0 {
		return a.c.writeBackend(&pgproto3.EmptyQueryResponse{})
	}
	for _, s := range stmts {
		res, err := a.exec(s, nil)
		if err != nil {
			a.tx.Fail()
			code := pgCodeSyntaxError
			if ae, ok := err.(*AdminError); ok {
				code = ae.Code
			}
			return a.c.writeBackend(adminError(code, err.Error()))
		}
		if len(res.Columns) > 0 {
			if err := a.c.writeBackend(rowDescription(res.Columns, nil)); err != nil {
				return err
			}
		}
		if err := a.writeRows(res, nil); err != nil {
			return err
		}
	}
	return nil
}

// exec runs one statement: a transaction or session command here, the
// rest on the console.
func (a *adminSession) exec(sql string, params []string) (*AdminResult, error) {
	if tag, ok := a.sessionCommand(sql); ok {
		return &AdminResult{Tag: tag}, nil
	}
	if a.tx.Failed() {
		return nil, &AdminError{Code: pgCodeInFailedTx, Message: "current transaction is aborted, commands ignored until end of transaction block"}
	}
	return a.c.opts.Admin.Console.Exec(a.c.ctx, a.c.s, &a.c.session, sql, params)
}

func (a *adminSession) describe(sql string) ([]AdminColumn, error) {
	if _, ok := sessionCommandTag(sql); ok {
		return nil, nil
	}
	return a.c.opts.Admin.Console.Describe(sql)
}

// sessionCommand applies a transaction or session command (BEGIN,
// COMMIT, ROLLBACK, SET, RESET, DISCARD) and returns its command tag.
// There is nothing to commit: they only move the transaction status.
func (a *adminSession) sessionCommand(sql string) (string, bool) {
	tag, ok := sessionCommandTag(sql)
	if !ok {
		return "", false
	}
	switch tag {
	case "BEGIN":
		a.tx.Begin()
	case "COMMIT":
		if a.tx.End() {
			tag = "ROLLBACK"
		}
	case "ROLLBACK":
		a.tx.End()
	}
	return tag, true
}

// sessionCommandTag recognizes the commands drivers send around their
// statements, by first word, and returns PostgreSQL's command tag.
func sessionCommandTag(sql string) (string, bool) {
	f := strings.Fields(strings.ToUpper(sql))
	if len(f) == 0 {
		return "", false
	}
	switch f[0] {
	case "BEGIN", "START":
		return "BEGIN", true
	case "COMMIT", "END":
		return "COMMIT", true
	case "ROLLBACK", "ABORT":
		return "ROLLBACK", true
	case "SET":
		return "SET", true
	case "RESET":
		return "RESET", true
	case "DISCARD":
		return strings.Join(f, " "), true
	}
	return "", false
}

// writeRows writes the result's rows and its CommandComplete.
func (a *adminSession) writeRows(res *AdminResult, formats []int16) error {
	for _, row := range res.Rows {
		dr := &pgproto3.DataRow{Values: make([][]byte, len(row))}
		for i, v := range row {
			var typ AdminType = AdminText
			if i < len(res.Columns) {
				typ = res.Columns[i].Type
			}
			dr.Values[i] = encodeAdminValue(v, typ, formatAt(formats, i) == 1)
		}
		if err := a.c.writeBackend(dr); err != nil {
			return err
		}
	}
	return a.c.writeBackend(&pgproto3.CommandComplete{CommandTag: []byte(res.Tag)})
}

// formatAt is the format code of column i: one code applies to all.
func formatAt(codes []int16, i int) int16 {
	switch {
	case len(codes) == 1:
		return codes[0]
	case i < len(codes):
		return codes[i]
	}
	return 0
}

func rowDescription(cols []AdminColumn, formats []int16) pgproto3.BackendMessage {
	if len(cols) == 0 {
		return &pgproto3.NoData{}
	}
	rd := &pgproto3.RowDescription{}
	for i, col := range cols {
		rd.Fields = append(rd.Fields, pgproto3.FieldDescription{Name: []byte(col.Name), DataTypeOID: uint32(col.Type),
			DataTypeSize: col.Type.size(), TypeModifier: -1, Format: formatAt(formats, i)})
	}
	return rd
}

// splitStatements splits sql at semicolons outside quoted strings.
func splitStatements(sql string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(sql); i++ {
		switch sql[i] {
		case '\'':
			quoted = !quoted
		case ';':
			if !quoted {
				out = append(out, sql[start:i])
				start = i + 1
			}
		}
	}
	return append(out, sql[start:])
}
