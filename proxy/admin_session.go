package proxy

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/protocol"
	"github.com/pgequiv/pgequiv/proxy/localsession"
)

// adminSession is one admin console connection's protocol state: what
// ordinary drivers need besides the statements themselves. psycopg2 wraps
// statements in BEGIN ... COMMIT by default; pgx and node-postgres (with
// parameters) use the extended protocol. Nothing here changes anything:
// transaction commands only move the transaction status drivers track.
//
// sess answers the simple and extended query protocols as database-free
// mode does, calling back into adminSession (a localsession.Handler) for
// what statements mean.
type adminSession struct {
	c    *conn
	sess *localsession.Session[string, *adminPortal]
}

// adminRules: the console keeps its portals across Sync and reads any
// Describe or Close object type but 'S' as a portal.
var adminRules = localsession.Rules{}

func newAdminSession(c *conn) *adminSession {
	a := &adminSession{c: c}
	a.sess = localsession.NewSession[string, *adminPortal](a, adminRules)
	return a
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
	// Everything but Sync is skipped after an error in a batch, Flush
	// and unknown messages included.
	if a.sess.Tx.Skipping() && frame[0] != protocol.TypeSync {
		return nil
	}
	switch frame[0] {
	case protocol.TypeQuery:
		var q protocol.Query
		if err := q.Decode(body); err != nil {
			c.writeFatal(pgCodeProtocolViolation, err.Error())
			return &Error{Code: CodeClientProtocol, Err: err}
		}
		return a.sess.Query(string(q.SQL))
	case protocol.TypeSync:
		return a.sess.Sync()
	case 'H': // Flush: answers are flushed when the client's input would block
		return nil
	case 'P':
		var m pgproto3.Parse
		if err := m.Decode(body); err != nil {
			return a.sess.Fail(protocolViolation(err))
		}
		return a.sess.Parse(&m)
	case 'B':
		var m pgproto3.Bind
		if err := m.Decode(body); err != nil {
			return a.sess.Fail(protocolViolation(err))
		}
		return a.sess.Bind(&m)
	case 'D':
		var m pgproto3.Describe
		if err := m.Decode(body); err != nil {
			return a.sess.Fail(protocolViolation(err))
		}
		return a.sess.Describe(&m)
	case 'E':
		var m pgproto3.Execute
		if err := m.Decode(body); err != nil {
			return a.sess.Fail(protocolViolation(err))
		}
		return a.sess.Execute(&m)
	case 'C':
		var m pgproto3.Close
		if err := m.Decode(body); err != nil {
			return a.sess.Fail(protocolViolation(err))
		}
		return a.sess.Close(&m)
	}
	return a.sess.Fail(&AdminError{Code: pgCodeProtocolViolation, Message: fmt.Sprintf("pgequiv admin console: unexpected message %q", frame[0])})
}

// protocolViolation answers a message that does not decode; the session
// goes on after Sync.
func protocolViolation(err error) error {
	return &AdminError{Code: pgCodeProtocolViolation, Message: err.Error()}
}

// The methods below implement localsession.Handler: what the console's
// statements mean.

// Query runs each statement of a Query message; the first failing
// statement ends the batch with its error.
func (a *adminSession) Query(sql string) ([]pgproto3.BackendMessage, error) {
	var stmts []string
	for _, s := range splitStatements(sql) {
		// A statement of comments only (pgx's ping is "-- ping") is empty.
		if s = strings.TrimSpace(string(sqltext.SkipBlanks([]byte(s)))); s != "" {
			stmts = append(stmts, s)
		}
	}
	if len(stmts) == 0 {
		return []pgproto3.BackendMessage{&pgproto3.EmptyQueryResponse{}}, nil
	}
	var msgs []pgproto3.BackendMessage
	for _, s := range stmts {
		res, err := a.exec(s, nil)
		if err != nil {
			return msgs, err
		}
		if len(res.Columns) > 0 {
			msgs = append(msgs, rowDescription(res.Columns, nil))
		}
		msgs = appendRows(msgs, res, nil)
	}
	return msgs, nil
}

// Parse keeps the statement's text; a named statement is replaced, not
// refused as a duplicate (PostgreSQL and database-free mode refuse it).
func (a *adminSession) Parse(m *pgproto3.Parse) (string, int, error) {
	return strings.TrimRight(strings.TrimSpace(m.Query), "; \t\r\n"), 0, nil
}

// Bind binds text parameters; the console bounds no portal's size.
func (a *adminSession) Bind(sql string, m *pgproto3.Bind) (*adminPortal, int, error) {
	params := make([]string, len(m.Parameters))
	for i, p := range m.Parameters {
		if f := formatAt(m.ParameterFormatCodes, i); f != 0 {
			return nil, 0, &AdminError{Code: pgCodeFeatureNotSupport, Message: "pgequiv admin console: parameters must be sent as text"}
		}
		params[i] = string(p)
	}
	return &adminPortal{sql: sql, params: params, formats: m.ResultFormatCodes}, 0, nil
}

// DescribeStatement answers text parameters and the statement's columns.
func (a *adminSession) DescribeStatement(sql string) ([]pgproto3.BackendMessage, error) {
	cols, err := a.describe(sql)
	if err != nil {
		return nil, err
	}
	pd := &pgproto3.ParameterDescription{}
	for range countParams(sql) {
		pd.ParameterOIDs = append(pd.ParameterOIDs, uint32(AdminText))
	}
	return []pgproto3.BackendMessage{pd, rowDescription(cols, nil)}, nil
}

// DescribePortal runs the portal, whose columns depend on its result.
func (a *adminSession) DescribePortal(p *adminPortal) ([]pgproto3.BackendMessage, error) {
	if err := a.runPortal(p); err != nil {
		return nil, err
	}
	p.sent = true
	return []pgproto3.BackendMessage{rowDescription(p.res.Columns, p.formats)}, nil
}

// Execute returns all rows whatever its row limit: the results are
// small, and no driver reading them sets one.
func (a *adminSession) Execute(p *adminPortal, _ *pgproto3.Execute) ([]pgproto3.BackendMessage, error) {
	if err := a.runPortal(p); err != nil {
		return nil, err
	}
	return appendRows(nil, p.res, p.formats), nil
}

// Send writes m to the client.
func (a *adminSession) Send(m pgproto3.BackendMessage) error { return a.c.writeBackend(m) }

// SendError answers err with its SQLSTATE; an error the console does
// not classify is a syntax error.
func (a *adminSession) SendError(err error) error {
	code := pgCodeSyntaxError
	switch e := err.(type) {
	case *AdminError:
		code = e.Code
	case *localsession.Error:
		code = e.Code
	}
	return a.c.writeBackend(adminError(code, err.Error()))
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

// exec runs one statement: a transaction or session command here, the
// rest on the console.
func (a *adminSession) exec(sql string, params []string) (*AdminResult, error) {
	if tag, ok := a.sessionCommand(sql); ok {
		return &AdminResult{Tag: tag}, nil
	}
	if a.sess.Tx.Failed() {
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
		a.sess.Tx.Begin()
	case "COMMIT":
		if a.sess.Tx.End() {
			tag = "ROLLBACK"
		}
	case "ROLLBACK":
		a.sess.Tx.End()
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

// appendRows appends the result's rows and its CommandComplete to msgs.
func appendRows(msgs []pgproto3.BackendMessage, res *AdminResult, formats []int16) []pgproto3.BackendMessage {
	for _, row := range res.Rows {
		dr := &pgproto3.DataRow{Values: make([][]byte, len(row))}
		for i, v := range row {
			var typ AdminType = AdminText
			if i < len(res.Columns) {
				typ = res.Columns[i].Type
			}
			dr.Values[i] = encodeAdminValue(v, typ, formatAt(formats, i) == 1)
		}
		msgs = append(msgs, dr)
	}
	return append(msgs, &pgproto3.CommandComplete{CommandTag: []byte(res.Tag)})
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
