package dbfree

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/pgcatalog"
	"github.com/pgequiv/pgequiv/protocol"
	"github.com/pgequiv/pgequiv/proxy/connset"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
	"github.com/pgequiv/pgequiv/proxy/judging"
	"github.com/pgequiv/pgequiv/proxy/localsession"
	"github.com/pgequiv/pgequiv/proxy/scram"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// conn is one client connection. Its single goroutine reads a message,
// answers it and flushes when the client waits (ReadyForQuery, Flush).
type conn struct {
	s       *Server
	st      *settings
	opts    Options
	log     *slog.Logger
	ctx     context.Context
	cancel  context.CancelFunc
	aborted atomic.Bool
	// refused: the server was full when the connection came; it is told
	// so after its startup message and closed.
	refused bool

	mu  sync.Mutex // guards net while TLS replaces it
	net net.Conn
	be  *pgproto3.Backend

	session tag.Session
	// sess answers the simple and extended query protocols as the admin
	// console does, calling back into conn for what statements mean. Its
	// Tx is the transaction status ReadyForQuery reports (nothing is ever
	// written; drivers and tools track it); its Store holds the prepared
	// statements and portals.
	sess             *session
	savepoints       []string           // names defined in the transaction block (savepoint.go)
	commitRolledBack bool               // the last COMMIT ended a failed block: its tag is ROLLBACK
	sysCat           *pgcatalog.Catalog // introspection queries run over it, built on the first (catalog.go)
	user, database   string
	greeting         [][2]string // the ParameterStatus values sent

	// id is the BackendKeyData process id, also the connection's id in
	// SHOW VERDICTS and SHOW CLIENTS; ready is set once it has greeted.
	id          uint32
	ready       atomic.Bool
	remoteAddr  string
	since       time.Time
	application string
}

func newConn(s *Server, raw net.Conn) *conn {
	st := s.cur.Load()
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{
		s: s, st: st, opts: st.opts, ctx: ctx, cancel: cancel, net: raw,
		remoteAddr: raw.RemoteAddr().String(), since: time.Now(),
		log: st.opts.Logger.With("client", raw.RemoteAddr().String()),
	}
	c.sess = localsession.NewSession[*prepared, *portal](c, sessionRules)
	return c
}

// abort ends the connection from outside (server shutdown): blocked I/O
// returns at once and the goroutine reports admin_shutdown.
func (c *conn) abort() {
	c.aborted.Store(true)
	c.cancel()
	c.mu.Lock()
	_ = c.net.SetDeadline(time.Now())
	c.mu.Unlock()
}

func (c *conn) run() {
	defer func() {
		c.cancel()
		c.mu.Lock()
		c.net.Close()
		c.mu.Unlock()
	}()
	err := c.serve()
	var pe *pgError
	switch {
	case c.aborted.Load():
		c.writeFatal(errorf(codeAdminShutdown, "terminating connection because pgequiv is shutting down"))
	case err == nil:
	case errors.As(err, &pe):
		c.writeFatal(pe)
		c.log.Debug("connection ended with an error", "err", err)
	case isGone(err):
		c.log.Debug("connection closed", "err", err)
	default:
		// Malformed, oversized or unknown messages (protocol and pgproto3
		// errors alike): the stream cannot be trusted any more.
		c.writeFatal(errorf(codeProtocolViolation, "%v", err))
		c.log.Warn("protocol violation", "err", err)
	}
}

// isGone reports whether err means the client went away or the socket
// failed, rather than a bad message.
func isGone(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// writeFatal sends a FATAL ErrorResponse straight to the socket.
func (c *conn) writeFatal(e *pgError) {
	b, err := e.response("FATAL").Encode(nil)
	if err != nil {
		return
	}
	c.mu.Lock()
	nc := c.net
	c.mu.Unlock()
	_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = nc.Write(b)
}

// serve runs startup, authentication and the message loop. It returns nil
// when the client terminates or hangs up.
func (c *conn) serve() error {
	_ = c.net.SetDeadline(time.Now().Add(connset.StartupTimeout(c.opts.StartupTimeout, c.refused)))
	nc, msg, err := protocol.Accept(c.ctx, c.net, protocol.AcceptConfig{TLS: c.opts.ClientTLS})
	c.mu.Lock()
	c.net = nc
	c.mu.Unlock()
	if err != nil {
		return err
	}
	startup, ok := msg.(*pgproto3.StartupMessage)
	if !ok {
		return nil // a CancelRequest: judgements are bounded by verdict_timeout; nothing to cancel
	}
	if c.refused {
		c.log.Warn("connection refused: max_client_conn reached", "max_client_conn", c.opts.MaxClientConn)
		return &pgError{code: codeTooManyConnections, msg: connset.TooManyClientsMessage,
			detail: fmt.Sprintf("pgequiv serves at most max_client_conn = %d connections at once.", c.opts.MaxClientConn)}
	}
	if c.isAdmin(startup) {
		// The admin console (SHOW VERDICTS, SHOW STATS, ...) answers it.
		if err := c.opts.AdminServe(nc, startup); err != nil {
			c.log.Debug("admin console session ended", "err", err)
		}
		return nil
	}
	fr := newFramer(c, nc, c.opts.MaxMessageSize)
	c.be = pgproto3.NewBackend(fr, nc)
	c.be.SetMaxBodyLen(c.opts.MaxMessageSize)
	user := startup.Parameters["user"]
	if user == "" {
		return errorf("28000", "no PostgreSQL user name specified in startup packet")
	}
	c.log = c.log.With("user", user)
	if err := c.negotiate(startup); err != nil {
		return err
	}
	if err := c.authenticate(user); err != nil {
		return err
	}
	c.sendGreeting(startup)
	if err := c.be.Flush(); err != nil {
		return err
	}
	c.ready.Store(true)
	_ = nc.SetDeadline(time.Time{})
	fr.arm(c.opts.ClientIdleTimeout, c.opts.ClientReadTimeout)
	return c.loop()
}

// negotiate answers a protocol minor version other than 3.0 and 3.2, or
// _pq_ options, with NegotiateProtocolVersion, as PostgreSQL does.
func (c *conn) negotiate(m *pgproto3.StartupMessage) error {
	if neg := protocol.Negotiate(m); neg.NeedsAnswer() {
		c.be.Send(neg.Answer())
	}
	return nil
}

func (c *conn) authenticate(user string) error {
	if c.st.secret == nil {
		c.be.Send(&pgproto3.AuthenticationOk{})
		return nil
	}
	fail := errorf(codeInvalidPassword, "password authentication failed for user %q", user)
	x := &scram.Exchange{Secret: c.st.secret}
	c.be.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scram.Mechanism}})
	if err := c.be.Flush(); err != nil {
		return err
	}
	if err := c.be.SetAuthType(pgproto3.AuthTypeSASL); err != nil {
		return err
	}
	msg, err := c.be.Receive()
	if err != nil {
		return err
	}
	init, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok || init.AuthMechanism != scram.Mechanism {
		return errorf(codeProtocolViolation, "expected a SASL initial response for %s", scram.Mechanism)
	}
	serverFirst, err := x.First(string(init.Data))
	if err != nil {
		return errorf(codeProtocolViolation, "%v", err)
	}
	c.be.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	if err := c.be.Flush(); err != nil {
		return err
	}
	if err := c.be.SetAuthType(pgproto3.AuthTypeSASLContinue); err != nil {
		return err
	}
	if msg, err = c.be.Receive(); err != nil {
		return err
	}
	resp, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return errorf(codeProtocolViolation, "expected a SASL response")
	}
	serverFinal, err := x.Final(string(resp.Data))
	if errors.Is(err, scram.ErrBadPassword) {
		c.log.Info("password authentication failed")
		return fail
	}
	if err != nil {
		return errorf(codeProtocolViolation, "%v", err)
	}
	c.be.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte(serverFinal)})
	c.be.Send(&pgproto3.AuthenticationOk{})
	return nil
}

// sendGreeting sends the ParameterStatus values clients read (psql, pgx,
// libpq, JDBC, node-postgres), BackendKeyData and ReadyForQuery.
func (c *conn) sendGreeting(m *pgproto3.StartupMessage) {
	params := [][2]string{
		{"server_version", ServerVersion},
		{"server_encoding", "UTF8"},
		{"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"},
		{"IntervalStyle", "postgres"},
		{"TimeZone", "UTC"},
		{"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"},
		{"is_superuser", "off"},
		{"session_authorization", m.Parameters["user"]},
		{"application_name", m.Parameters["application_name"]},
		{"default_transaction_read_only", "on"},
		{"in_hot_standby", "off"},
	}
	c.greeting, c.user, c.database = params, m.Parameters["user"], m.Parameters["database"]
	if c.database == "" {
		c.database = c.user
	}
	for _, p := range params {
		c.be.Send(&pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
	}
	secret := make([]byte, 4)
	_, _ = rand.Read(secret)
	c.id = c.s.nextID.Add(1)
	c.application = m.Parameters["application_name"]
	c.be.Send(&pgproto3.BackendKeyData{ProcessID: c.id, SecretKey: secret})
	c.be.Send(&pgproto3.ReadyForQuery{TxStatus: c.sess.Tx.Status()})
}

// loop answers messages until Terminate, EOF or a fatal error.
func (c *conn) loop() error {
	for {
		msg, err := c.be.Receive()
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return nil // the client hung up
			}
			return err
		}
		switch m := msg.(type) {
		// The session's answers are buffered (Send never fails): they
		// are flushed when the client waits.
		case *pgproto3.Query:
			if c.sess.Tx.Skipping() {
				continue // skipped until Sync, unflushed
			}
			_ = c.sess.Query(m.String)
			err = c.be.Flush()
		case *pgproto3.Parse:
			_ = c.sess.Parse(m)
		case *pgproto3.Bind:
			_ = c.sess.Bind(m)
		case *pgproto3.Describe:
			_ = c.sess.Describe(m)
		case *pgproto3.Execute:
			_ = c.sess.Execute(m)
		case *pgproto3.Close:
			_ = c.sess.Close(m)
		case *pgproto3.Sync:
			_ = c.sess.Sync() // the implicit transaction ends: portals close
			err = c.be.Flush()
		case *pgproto3.Flush:
			err = c.be.Flush()
		case *pgproto3.Terminate:
			return nil
		case *pgproto3.FunctionCall:
			c.sendError(errNotAnswerable())
			c.be.Send(&pgproto3.ReadyForQuery{TxStatus: c.sess.Tx.Status()})
			err = c.be.Flush()
		case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
			// Ignored outside COPY, as PostgreSQL does.
		default:
			return errorf(codeProtocolViolation, "unexpected message %T", msg)
		}
		if err != nil {
			return err
		}
	}
}

func (c *conn) sendError(e *pgError) {
	c.sess.Tx.Fail()
	c.be.Send(e.response("ERROR"))
}

// inFailedTx refuses st after an error in a transaction block, until it
// ends, as PostgreSQL does.
func (c *conn) inFailedTx(st *statement) *pgError {
	if !c.sess.Tx.Failed() || st.kind == kindLocal && (st.local.tx == 'C' || st.local.tx == 'R' || st.local.savepoint == spRollback) {
		return nil
	}
	return errorf("25P02", "current transaction is aborted, commands ignored until end of transaction block")
}

// simpleQuery answers each statement of a Query until the first error:
// the answers, then the error.
func (c *conn) simpleQuery(sql string) ([]pgproto3.BackendMessage, *pgError) {
	var msgs []pgproto3.BackendMessage
	for _, part := range splitStatements(sql) {
		st, err := c.analyze(part)
		if err == nil {
			msgs, err = c.runSimple(msgs, st)
		}
		if err != nil {
			return msgs, err
		}
	}
	return msgs, nil
}

// runSimple appends st's answers to msgs.
func (c *conn) runSimple(msgs []pgproto3.BackendMessage, st *statement) ([]pgproto3.BackendMessage, *pgError) {
	if err := c.inFailedTx(st); err != nil {
		return msgs, err
	}
	switch st.kind {
	case kindLocal:
		rows, err := st.local.run(c)
		if err != nil {
			return msgs, err
		}
		if st.local.cols != nil {
			msgs = append(msgs, st.local.rowDescription(nil))
		}
		for _, r := range rows {
			msgs = append(msgs, st.local.dataRow(r, nil))
		}
		return append(msgs, &pgproto3.CommandComplete{CommandTag: []byte(st.local.commandTag(c, len(rows)))}), nil
	case kindEmpty:
		return append(msgs, &pgproto3.EmptyQueryResponse{}), nil
	case kindSession:
		c.session.Apply(st.session)
		return append(msgs, &pgproto3.CommandComplete{CommandTag: []byte(st.session.Tag)}), nil
	case kindShow:
		return append(msgs, showRowDescription(st.show, nil), c.showRow(st.show),
			&pgproto3.CommandComplete{CommandTag: []byte("SHOW")}), nil
	}
	v, cols, err := c.verdict(st, nil)
	if err != nil {
		return msgs, err
	}
	return append(msgs, rowDescription(cols, nil), dataRow(v, cols, nil),
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}), nil
}

// verdict judges st (a check call or a tagged statement) with params.
func (c *conn) verdict(st *statement, params [][]byte) (equivalence.Verdict, []int, *pgError) {
	var ref, cand string
	var rec tag.Reference // what the verdict is recorded under
	cols := st.cols
	switch st.kind {
	case kindCheck:
		var err *pgError
		if ref, err = argValue(st.ref, params); err != nil {
			return equivalence.Verdict{}, nil, err
		}
		if cand, err = argValue(st.cand, params); err != nil {
			return equivalence.Verdict{}, nil, err
		}
	default:
		r, err := c.reference(st)
		if err != nil {
			return equivalence.Verdict{}, nil, err
		}
		ref, cand, cols = r.SQL, tag.StripComment(st.sql), allColumns()
		rec = r
	}
	if rec.SQL == "" {
		rec.SQL = ref
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.VerdictTimeout)
	defer cancel()
	v, err := c.recordedJudge(ctx, st, rec, cand)
	if err != nil {
		switch {
		case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
			return v, nil, errorf(codeQueryCanceled, "pgequiv: no verdict within verdict_timeout (%v)", c.opts.VerdictTimeout)
		case errors.Is(err, judgepool.ErrWorkerDied) || errors.Is(err, judgepool.ErrMemoryLimit) || errors.Is(err, judgepool.ErrPanicked):
			// The judge failed, not the query: the connection goes on.
			return v, nil, &pgError{code: codeInternalError, msg: "pgequiv: the judge failed on this query", detail: err.Error()}
		}
		return v, nil, &pgError{code: codeInvalidParameter, msg: "pgequiv: the reference cannot be judged", detail: err.Error()}
	}
	return v, cols, nil
}

// recordedJudge judges, through the Judging when there is one: it
// records the judgement (metrics, span, admin console) as relay mode
// records a tagged query's.
func (c *conn) recordedJudge(ctx context.Context, st *statement, r tag.Reference, cand string) (equivalence.Verdict, error) {
	rec := c.opts.Recorder
	if rec == nil {
		return c.judge(ctx, r.SQL, cand)
	}
	j := Judgement{ConnID: uint64(c.id), User: c.user, Database: c.database, Ref: r,
		Candidate: cand, SQL: st.sql, Options: c.opts.Judge}
	return rec.JudgeRecorded(ctx, j, func(ctx context.Context) (equivalence.Verdict, error) { return c.judge(ctx, r.SQL, cand) })
}

// isAdmin reports whether the startup is for the admin console's
// database.
func (c *conn) isAdmin(m *pgproto3.StartupMessage) bool {
	if c.opts.AdminServe == nil || c.opts.AdminDatabase == "" {
		return false
	}
	db := m.Parameters["database"]
	if db == "" {
		db = m.Parameters["user"]
	}
	return db == c.opts.AdminDatabase
}

// judge runs the judge. The judge pool (judgepool.Local or Pool) is its
// panic guard: a panic costs this statement (ErrPanicked), never the
// connection's goroutine or the process.
func (c *conn) judge(ctx context.Context, ref, cand string) (equivalence.Verdict, error) {
	return judging.JudgeBound(ctx, ref, cand, func(ctx context.Context, ref, cand string) (equivalence.Verdict, error) {
		return c.s.judger.Judge(ctx, c.opts.Schema, ref, cand, c.opts.Judge)
	})
}

// reference resolves the reference of a statement that is not a check
// call; an untagged statement is refused.
func (c *conn) reference(st *statement) (tag.Reference, *pgError) {
	r, ok, err := tag.Resolve(st.sql, &c.session, c.opts.Catalog)
	if err != nil {
		return r, &pgError{code: codeInvalidParameter, msg: "pgequiv: " + err.Error()}
	}
	if ok && r.Source == tag.FromSession && !st.query {
		ok = false // a session's reference applies to queries, not to CREATE, SAVEPOINT, ...
	}
	if ok {
		// A tag value is URL-decoded, so %00 can put a NUL in it.
		if err := sqltext.CheckNUL("the reference", r.SQL); err != nil {
			return r, nulError(err)
		}
	}
	if !ok {
		e := errNotAnswerable()
		if st.parseErr != nil {
			e.detail = st.parseErr.Error()
		} else if st.multi {
			e.detail = "cannot insert multiple commands into a prepared statement"
		}
		return r, e
	}
	return r, nil
}

func allColumns() []int {
	cols := make([]int, len(columns))
	for i := range cols {
		cols[i] = i
	}
	return cols
}

func argValue(a arg, params [][]byte) (string, *pgError) {
	if a.param == 0 {
		// pg_query refuses escaped NULs in literals; checked all the same.
		if err := sqltext.CheckNUL("a string literal", a.literal); err != nil {
			return "", nulError(err)
		}
		return a.literal, nil
	}
	if a.param > len(params) || params[a.param-1] == nil {
		if a.param <= len(params) {
			return "", errorf(codeInvalidParameter, "pgequiv.check: argument $%d is NULL", a.param)
		}
		return "", errorf(codeUndefinedParameter, "there is no parameter $%d", a.param)
	}
	v := string(params[a.param-1])
	if err := sqltext.CheckNUL(fmt.Sprintf("parameter $%d", a.param), v); err != nil {
		return "", nulError(err)
	}
	return v, nil
}

// nulError refuses a text with a NUL byte: the judge's parser would read
// it only up to the NUL and judge the prefix.
func nulError(err error) *pgError {
	return &pgError{code: sqltext.SQLState, msg: "pgequiv: " + err.Error(), hint: "A query text cannot contain NUL bytes; PostgreSQL refuses them too."}
}
