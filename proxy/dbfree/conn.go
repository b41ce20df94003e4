package dbfree

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/protocol"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
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

	mu  sync.Mutex // guards net while TLS replaces it
	net net.Conn
	be  *pgproto3.Backend

	session  tag.Session
	stmts    map[string]*prepared
	portals  map[string]*portal
	skipping bool // an error in an extended-protocol batch: drop until Sync
}

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

func newConn(s *Server, raw net.Conn) *conn {
	st := s.cur.Load()
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{
		s: s, st: st, opts: st.opts, ctx: ctx, cancel: cancel, net: raw,
		log:   st.opts.Logger.With("client", raw.RemoteAddr().String()),
		stmts: map[string]*prepared{}, portals: map[string]*portal{},
	}
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
	_ = c.net.SetDeadline(time.Now().Add(c.opts.StartupTimeout))
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
	c.be = pgproto3.NewBackend(nc, nc)
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
	_ = nc.SetDeadline(time.Time{})
	return c.loop()
}

// negotiate answers a protocol minor version above 3.2 or _pq_ options
// with NegotiateProtocolVersion, as PostgreSQL does.
func (c *conn) negotiate(m *pgproto3.StartupMessage) error {
	minor := m.ProtocolVersion & 0xffff
	var unknown []string
	for k := range m.Parameters {
		if strings.HasPrefix(k, "_pq_.") {
			unknown = append(unknown, k)
		}
	}
	if minor <= 2 && len(unknown) == 0 {
		return nil
	}
	c.be.Send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: min(minor, 2), UnrecognizedOptions: unknown})
	return nil
}

func (c *conn) authenticate(user string) error {
	if c.st.secret == nil {
		c.be.Send(&pgproto3.AuthenticationOk{})
		return nil
	}
	fail := errorf(codeInvalidPassword, "password authentication failed for user %q", user)
	x := &scramExchange{secret: c.st.secret}
	c.be.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
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
	if !ok || init.AuthMechanism != scramMechanism {
		return errorf(codeProtocolViolation, "expected a SASL initial response for %s", scramMechanism)
	}
	serverFirst, err := x.first(string(init.Data))
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
	serverFinal, err := x.final(string(resp.Data))
	if errors.Is(err, errBadPassword) {
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
	for _, p := range params {
		c.be.Send(&pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
	}
	secret := make([]byte, 4)
	_, _ = rand.Read(secret)
	c.be.Send(&pgproto3.BackendKeyData{ProcessID: c.s.nextID.Add(1), SecretKey: secret})
	c.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
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
		case *pgproto3.Query:
			if c.skipping {
				continue
			}
			c.simpleQuery(m.String)
			c.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			err = c.be.Flush()
		case *pgproto3.Parse:
			c.extended(c.parse(m))
		case *pgproto3.Bind:
			c.extended(c.bind(m))
		case *pgproto3.Describe:
			c.extended(c.describe(m))
		case *pgproto3.Execute:
			c.extended(c.execute(m))
		case *pgproto3.Close:
			c.extended(c.close(m))
		case *pgproto3.Sync:
			c.skipping = false
			clear(c.portals) // the implicit transaction ends
			c.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			err = c.be.Flush()
		case *pgproto3.Flush:
			err = c.be.Flush()
		case *pgproto3.Terminate:
			return nil
		case *pgproto3.FunctionCall:
			c.sendError(errNotAnswerable())
			c.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
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
	c.be.Send(e.response("ERROR"))
}

// extended reports err from an extended-protocol message and starts
// skipping until Sync; messages are skipped while skipping.
func (c *conn) extended(err *pgError) {
	if err == nil {
		return
	}
	c.sendError(err)
	c.skipping = true
}

// simpleQuery answers each statement of a Query until the first error.
func (c *conn) simpleQuery(sql string) {
	for _, part := range splitStatements(sql) {
		st, err := analyze(part)
		if err == nil {
			err = c.runSimple(st)
		}
		if err != nil {
			c.sendError(err)
			return
		}
	}
}

func (c *conn) runSimple(st *statement) *pgError {
	switch st.kind {
	case kindEmpty:
		c.be.Send(&pgproto3.EmptyQueryResponse{})
		return nil
	case kindSession:
		c.session.Apply(st.session)
		c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(st.session.Tag)})
		return nil
	}
	v, cols, err := c.verdict(st, nil)
	if err != nil {
		return err
	}
	c.be.Send(rowDescription(cols, nil))
	c.be.Send(dataRow(v, cols, nil))
	c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
	return nil
}

// verdict judges st (a check call or a tagged statement) with params.
func (c *conn) verdict(st *statement, params [][]byte) (equivalence.Verdict, []int, *pgError) {
	var ref, cand string
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
		ref, cand, cols = r.SQL, st.sql, allColumns()
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.VerdictTimeout)
	defer cancel()
	v, err := c.judge(ctx, ref, cand)
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

// judge runs the judge with a panic guard: the connection's goroutine
// must not end the process (the judger has its own guard; this covers
// any Judger).
func (c *conn) judge(ctx context.Context, ref, cand string) (v equivalence.Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.s.panics.Add(1)
			c.opts.Logger.Error("pgequiv: judge panicked", "panic", r, "stack", string(debug.Stack()))
			v, err = equivalence.Verdict{}, fmt.Errorf("%w: %v", judgepool.ErrPanicked, r)
		}
	}()
	return c.s.judger.Judge(ctx, c.opts.Schema, ref, cand, c.opts.Judge)
}

// reference resolves the reference of a statement that is not a check
// call; an untagged statement is refused.
func (c *conn) reference(st *statement) (tag.Reference, *pgError) {
	r, ok, err := tag.Resolve(st.sql, &c.session, c.opts.Catalog)
	if err != nil {
		return r, &pgError{code: codeInvalidParameter, msg: "pgequiv: " + err.Error()}
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
		return a.literal, nil
	}
	if a.param > len(params) || params[a.param-1] == nil {
		if a.param <= len(params) {
			return "", errorf(codeInvalidParameter, "pgequiv.check: argument $%d is NULL", a.param)
		}
		return "", errorf(codeUndefinedParameter, "there is no parameter $%d", a.param)
	}
	return string(params[a.param-1]), nil
}

func (c *conn) parse(m *pgproto3.Parse) *pgError {
	if c.skipping {
		return nil
	}
	if _, dup := c.stmts[m.Name]; dup && m.Name != "" {
		return errorf(codeDuplicatePStatement, "prepared statement %q already exists", m.Name)
	}
	st, err := analyze(m.Query)
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
	c.stmts[m.Name] = &prepared{st: st, paramOIDs: append([]uint32(nil), m.ParameterOIDs...)}
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
	if c.skipping {
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
	cols := p.cols()
	if n := len(m.ResultFormatCodes); n > 1 && n != len(cols) {
		return errorf(codeProtocolViolation, "bind message has %d result formats but query has %d columns", n, len(cols))
	}
	for _, f := range m.ResultFormatCodes {
		if f != 0 && f != 1 {
			return errorf(codeProtocolViolation, "unsupported format code: %d", f)
		}
	}
	// The message is valid only until the next Receive: copy.
	params := make([][]byte, len(m.Parameters))
	for i, v := range m.Parameters {
		if v != nil {
			params[i] = append([]byte{}, v...)
		}
	}
	c.portals[m.DestinationPortal] = &portal{st: p.st, params: params, formats: append([]int16(nil), m.ResultFormatCodes...)}
	c.be.Send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) describe(m *pgproto3.Describe) *pgError {
	if c.skipping {
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
		c.sendRowDescription(p.cols(), nil)
	case 'P':
		pt, ok := c.portals[m.Name]
		if !ok {
			return errorf(codeUndefinedCursor, "portal %q does not exist", m.Name)
		}
		c.sendRowDescription((&prepared{st: pt.st}).cols(), pt.formats)
	default:
		return errorf(codeProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

func (c *conn) sendRowDescription(cols []int, formats []int16) {
	if cols == nil {
		c.be.Send(&pgproto3.NoData{})
		return
	}
	c.be.Send(rowDescription(cols, formats))
}

func (c *conn) execute(m *pgproto3.Execute) *pgError {
	if c.skipping {
		return nil
	}
	pt, ok := c.portals[m.Portal]
	if !ok {
		return errorf(codeUndefinedCursor, "portal %q does not exist", m.Portal)
	}
	switch pt.st.kind {
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
	if c.skipping {
		return nil
	}
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		delete(c.portals, m.Name)
	default:
		return errorf(codeProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.be.Send(&pgproto3.CloseComplete{})
	return nil
}
