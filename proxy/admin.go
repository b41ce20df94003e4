package proxy

import (
	"bufio"
	"cmp"
	"context"
	"crypto/subtle"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/protocol"
)

// AdminOptions enable the admin console: a client connecting to the
// virtual database Database as one of Users is answered by the proxy
// itself, over the simple query protocol, and never reaches the upstream.
type AdminOptions struct {
	// Database is the virtual database's name; default "pgequiv".
	Database string
	// Users may connect; nobody else may.
	Users []string
	// Password, if set, is asked for in cleartext (use client TLS); empty
	// means trust.
	Password string
	// Console answers the statements.
	Console AdminConsole
}

// AdminConsole answers the admin console's statements.
type AdminConsole interface {
	// Exec runs one statement (without its trailing semicolon).
	Exec(ctx context.Context, srv *Server, s *Session, sql string) (*AdminResult, error)
}

// AdminResult is a statement's answer: rows of text, then a command tag.
type AdminResult struct {
	Columns []string
	Rows    [][]string
	Tag     string
}

// AdminError is an admin console error with a SQLSTATE.
type AdminError struct {
	Code    string
	Message string
}

func (e *AdminError) Error() string { return e.Message }

// SQLSTATEs of the admin console.
const (
	pgCodeInvalidAuthSpec   = "28000"
	pgCodeInvalidPassword   = "28P01"
	pgCodeFeatureNotSupport = "0A000"
	pgCodeSyntaxError       = "42601"
)

// serveAdmin runs an admin console session on the client connection.
func (c *conn) serveAdmin(startup *pgproto3.StartupMessage) error {
	a := c.opts.Admin
	n := c.bufSize()
	c.clW = bufio.NewWriterSize(sideWriter{c.client, CodeClientWrite}, n)
	c.clR = protocol.NewReader(flushingReader{c.client, c.clW}, n, c.opts.MaxMessageSize)
	c.state.Store(int32(stateAuth))
	if !slices.Contains(a.Users, c.session.User) {
		c.writeFatal(pgCodeInvalidAuthSpec, fmt.Sprintf("pgequiv: user %q may not use the admin console", c.session.User))
		return newErrorf(CodeAuthFailed, "admin console: user %q not allowed", c.session.User)
	}
	if a.Password != "" {
		if err := c.writeBackend(&pgproto3.AuthenticationCleartextPassword{}); err != nil {
			return err
		}
		if err := c.clW.Flush(); err != nil {
			return err
		}
		frame, err := c.clR.Next()
		if err != nil {
			return classify(err, CodeClientRead, CodeClientProtocol)
		}
		body := protocol.Body(frame)
		if frame[0] != 'p' || len(body) == 0 || body[len(body)-1] != 0 {
			c.writeFatal(pgCodeProtocolViolation, "expected a password message")
			return newErrorf(CodeClientProtocol, "admin console: expected a password message, got %q", frame[0])
		}
		if subtle.ConstantTimeCompare(body[:len(body)-1], []byte(a.Password)) != 1 {
			c.writeFatal(pgCodeInvalidPassword, fmt.Sprintf("password authentication failed for user %q", c.session.User))
			return newErrorf(CodeAuthFailed, "admin console: wrong password for %q", c.session.User)
		}
	}
	msgs := []pgproto3.BackendMessage{&pgproto3.AuthenticationOk{}}
	for _, p := range [][2]string{
		{"server_version", "16.0 (pgequiv admin console)"}, {"server_encoding", "UTF8"}, {"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"}, {"integer_datetimes", "on"}, {"standard_conforming_strings", "on"},
		{"application_name", c.session.ApplicationName}, {"is_superuser", "off"}, {"session_authorization", c.session.User},
	} {
		msgs = append(msgs, &pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
	}
	msgs = append(msgs, &pgproto3.ReadyForQuery{TxStatus: 'I'})
	for _, m := range msgs {
		if err := c.writeBackend(m); err != nil {
			return err
		}
	}
	_ = c.client.SetDeadline(timeZero)
	c.state.Store(int32(stateRelay))
	c.log.Debug("admin console session")
	skipping := false // after an unsupported extended-protocol message, until Sync
	for {
		frame, err := c.clR.Next()
		if err != nil {
			if c.ctx.Err() != nil {
				c.writeFatal(pgCodeAdminShutdown, "terminating connection because pgequiv is shutting down")
				return &Error{Code: CodeShutdown, Err: c.ctx.Err()}
			}
			return classify(err, CodeClientRead, CodeClientProtocol)
		}
		switch frame[0] {
		case protocol.TypeTerminate:
			_ = c.clW.Flush()
			return nil
		case protocol.TypeQuery:
			var q protocol.Query
			if err := q.Decode(protocol.Body(frame)); err != nil {
				c.writeFatal(pgCodeProtocolViolation, err.Error())
				return &Error{Code: CodeClientProtocol, Err: err}
			}
			if err := c.adminQuery(string(q.SQL)); err != nil {
				return err
			}
			if err := c.writeBackend(&pgproto3.ReadyForQuery{TxStatus: 'I'}); err != nil {
				return err
			}
		case protocol.TypeSync:
			skipping = false
			if err := c.writeBackend(&pgproto3.ReadyForQuery{TxStatus: 'I'}); err != nil {
				return err
			}
		default:
			if !skipping {
				skipping = true
				if err := c.writeBackend(adminError(pgCodeFeatureNotSupport, "pgequiv admin console: only the simple query protocol is supported")); err != nil {
					return err
				}
			}
		}
	}
}

func adminError(code, msg string) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: code, Message: msg}
}

func (c *conn) writeBackend(m pgproto3.BackendMessage) error {
	b, err := m.Encode(nil)
	if err != nil {
		return &Error{Code: CodeClientWrite, Err: err}
	}
	_, err = c.clW.Write(b)
	return err
}

// adminQuery runs each statement of a Query message and writes its
// results; the first failing statement ends the batch with its error.
func (c *conn) adminQuery(sql string) error {
	var stmts []string
	for _, s := range strings.Split(sql, ";") {
		if s = strings.TrimSpace(s); s != "" {
			stmts = append(stmts, s)
		}
	}
	if len(stmts) == 0 {
		return c.writeBackend(&pgproto3.EmptyQueryResponse{})
	}
	for _, s := range stmts {
		res, err := c.opts.Admin.Console.Exec(c.ctx, c.s, &c.session, s)
		if err != nil {
			code := pgCodeSyntaxError
			if ae, ok := err.(*AdminError); ok {
				code = ae.Code
			}
			return c.writeBackend(adminError(code, err.Error()))
		}
		if len(res.Columns) > 0 {
			rd := &pgproto3.RowDescription{}
			for _, col := range res.Columns {
				rd.Fields = append(rd.Fields, pgproto3.FieldDescription{Name: []byte(col), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1})
			}
			if err := c.writeBackend(rd); err != nil {
				return err
			}
			for _, row := range res.Rows {
				dr := &pgproto3.DataRow{Values: make([][]byte, len(row))}
				for i, v := range row {
					dr.Values[i] = []byte(v)
				}
				if err := c.writeBackend(dr); err != nil {
					return err
				}
			}
		}
		if err := c.writeBackend(&pgproto3.CommandComplete{CommandTag: []byte(res.Tag)}); err != nil {
			return err
		}
	}
	return nil
}

// ClientInfo describes one connection being relayed.
type ClientInfo struct {
	ConnID          uint64
	User            string
	Database        string
	ApplicationName string
	Addr            string
	State           string
	Since           time.Time
}

// Clients lists the connections past startup, oldest first.
func (s *Server) Clients() []ClientInfo {
	var out []ClientInfo
	for _, c := range s.conns.Snapshot() {
		st := connState(c.state.Load())
		if st != stateRelay {
			continue // the session is filled in before the relay state is stored
		}
		out = append(out, ClientInfo{ConnID: c.id, User: c.session.User, Database: c.session.Database,
			ApplicationName: c.session.ApplicationName, Addr: c.remoteAddr, State: st.String(), Since: c.since})
	}
	slices.SortFunc(out, func(a, b ClientInfo) int { return cmp.Compare(a.ConnID, b.ConnID) })
	return out
}

// Console is the admin console: SHOW VERDICTS, SHOW STATS, SHOW CLIENTS,
// SHOW CONFIG, RELOAD.
type Console struct {
	// Judging supplies verdicts and counters; nil shows none.
	Judging *Judging
	// Config lists the settings in force as key/value pairs (secrets
	// hidden); nil shows none.
	Config func() [][2]string
	// Reload reloads the configuration as SIGHUP does.
	Reload func(ctx context.Context) error
}

// Exec implements AdminConsole.
func (k *Console) Exec(ctx context.Context, srv *Server, _ *Session, sql string) (*AdminResult, error) {
	switch strings.ToUpper(strings.Join(strings.Fields(sql), " ")) {
	case "SHOW VERDICTS":
		res := &AdminResult{Columns: []string{"time", "conn", "user", "database", "reference_id", "source", "mode",
			"label", "score", "action", "latency_ms", "summary", "query", "counterexample"}, Tag: "SHOW"}
		if k.Judging != nil {
			for _, v := range k.Judging.RecentVerdicts() {
				res.Rows = append(res.Rows, []string{v.Time.UTC().Format(time.RFC3339Nano), strconv.FormatUint(v.ConnID, 10), v.User, v.Database,
					v.ReferenceID, v.Source, v.Mode, v.Label, strconv.FormatFloat(v.Score, 'f', 3, 64), v.Action,
					strconv.FormatFloat(float64(v.Latency.Microseconds())/1000, 'f', 3, 64), v.Summary, v.Query, v.Counterexample})
			}
		}
		return res, nil
	case "SHOW STATS":
		res := &AdminResult{Columns: []string{"name", "value"}, Tag: "SHOW"}
		if k.Judging != nil {
			for _, s := range k.Judging.Stats() {
				res.Rows = append(res.Rows, []string{s.Name, strconv.FormatUint(s.Value, 10)})
			}
		}
		return res, nil
	case "SHOW CLIENTS":
		res := &AdminResult{Columns: []string{"conn", "user", "database", "application_name", "addr", "state", "since"}, Tag: "SHOW"}
		for _, c := range srv.Clients() {
			res.Rows = append(res.Rows, []string{strconv.FormatUint(c.ConnID, 10), c.User, c.Database, c.ApplicationName,
				c.Addr, c.State, c.Since.UTC().Format(time.RFC3339)})
		}
		return res, nil
	case "SHOW CONFIG":
		res := &AdminResult{Columns: []string{"key", "value"}, Tag: "SHOW"}
		if k.Config != nil {
			for _, kv := range k.Config() {
				res.Rows = append(res.Rows, []string{kv[0], kv[1]})
			}
		}
		return res, nil
	case "RELOAD":
		if k.Reload == nil {
			return nil, &AdminError{Code: pgCodeFeatureNotSupport, Message: "pgequiv: RELOAD is not available"}
		}
		if err := k.Reload(ctx); err != nil {
			return nil, &AdminError{Code: "F0000", Message: "pgequiv: reload failed; the running config is kept: " + err.Error()}
		}
		return &AdminResult{Tag: "RELOAD"}, nil
	}
	return nil, &AdminError{Code: pgCodeSyntaxError,
		Message: fmt.Sprintf("pgequiv admin console: unknown command %q (try SHOW VERDICTS, SHOW STATS, SHOW CLIENTS, SHOW CONFIG, RELOAD)", sql)}
}
