package dbfree

import (
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestMaxClientConn: a client over max_client_conn gets FATAL 53300 (pgx
// and lib/pq alike), the connections already open keep working, and a
// reload that raises the limit lets the next client in.
func TestMaxClientConn(t *testing.T) {
	s := startServer(t, Options{MaxClientConn: 2})
	ctx := testCtx(t)
	first := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
	second := s.connect(t, ctx, pgx.QueryExecModeSimpleProtocol)

	_, err := pgx.Connect(ctx, s.connString(""))
	if pe := pgErr(err); pe == nil || pe.Code != codeTooManyConnections || pe.Severity != "FATAL" || pe.Message != "sorry, too many clients already" {
		t.Fatalf("pgx over the limit: %v", err)
	}
	db, err := sql.Open("postgres", s.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err == nil || !strings.Contains(err.Error(), "too many clients") {
		t.Fatalf("lib/pq over the limit: %v", err)
	}
	for _, c := range []*pgx.Conn{first, second} {
		if _, err := scanVerdict(c.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner)); err != nil {
			t.Fatalf("open connection after refusals: %v", err)
		}
	}

	opts := s.cur.Load().opts
	opts.MaxClientConn = 3
	if err := s.Reload(opts); err != nil {
		t.Fatal(err)
	}
	third := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
	if _, err := scanVerdict(third.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner)); err != nil {
		t.Fatalf("after raising the limit: %v", err)
	}
}

// rawClient is a started connection driven message by message.
type rawClient struct {
	nc net.Conn
	fe *pgproto3.Frontend
}

func (s *testServer) raw(t *testing.T) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	rc := &rawClient{nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
	rc.fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "x"}})
	rc.flush(t)
	if _, ok := rc.until(t, &pgproto3.ReadyForQuery{}).(*pgproto3.ReadyForQuery); !ok {
		t.Fatal("no ReadyForQuery after startup")
	}
	return rc
}

func (rc *rawClient) flush(t *testing.T) {
	t.Helper()
	if err := rc.fe.Flush(); err != nil {
		t.Fatal(err)
	}
}

// until reads messages until one of want's type or an ErrorResponse, and
// returns it.
func (rc *rawClient) until(t *testing.T, want pgproto3.BackendMessage) pgproto3.BackendMessage {
	t.Helper()
	for {
		msg, err := rc.fe.Receive()
		if err != nil {
			t.Fatalf("waiting for %T: %v", want, err)
		}
		if e, ok := msg.(*pgproto3.ErrorResponse); ok {
			cp := *e
			return &cp
		}
		if fmt.Sprintf("%T", msg) == fmt.Sprintf("%T", want) {
			return msg
		}
	}
}

// fatal reads until an ErrorResponse, checks it is FATAL with code and a
// message containing msg, and that the server then closes.
func (rc *rawClient) fatal(t *testing.T, code, msg string) {
	t.Helper()
	e, ok := rc.until(t, &pgproto3.ErrorResponse{}).(*pgproto3.ErrorResponse)
	if !ok || e.Severity != "FATAL" || e.Code != code || !strings.Contains(e.Message, msg) {
		t.Fatalf("got %+v, want FATAL %s %q", e, code, msg)
	}
	if m, err := rc.fe.Receive(); err == nil {
		t.Fatalf("connection still open after FATAL: %T", m)
	}
}

// TestIdleAndReadTimeouts: a client that sends nothing is ended with FATAL
// 57P05 after client_idle_timeout; one that stalls inside a message with
// FATAL 08P01 after client_read_timeout; a busy one is left alone.
func TestIdleAndReadTimeouts(t *testing.T) {
	const timeout = 300 * time.Millisecond
	ctx := testCtx(t)
	t.Run("idle", func(t *testing.T) {
		s := startServer(t, Options{ClientIdleTimeout: timeout, ClientReadTimeout: -1})
		conn := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
		raw := conn.PgConn().Conn()
		raw.SetDeadline(time.Now().Add(20 * time.Second))
		rc := &rawClient{nc: raw, fe: pgproto3.NewFrontend(raw, raw)}
		// The server's idle clock starts once it has answered the last
		// message, so the client's clock must start before sending it: a
		// Sync, whose ReadyForQuery is the last thing the server sends.
		start := time.Now()
		rc.fe.Send(&pgproto3.Sync{})
		rc.flush(t)
		rc.until(t, &pgproto3.ReadyForQuery{})
		rc.fatal(t, codeIdleSessionTimeout, "idle-session timeout")
		if d := time.Since(start); d < timeout {
			t.Fatalf("ended after %v, before client_idle_timeout %v", d, timeout)
		}
	})
	t.Run("active", func(t *testing.T) {
		s := startServer(t, Options{ClientIdleTimeout: timeout})
		conn := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
		// Each message restarts the idle clock: queries spread over more
		// than the timeout all succeed.
		for start := time.Now(); time.Since(start) < 2*timeout; {
			if _, err := scanVerdict(conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner)); err != nil {
				t.Fatalf("after %v: %v", time.Since(start), err)
			}
		}
	})
	t.Run("stalled message", func(t *testing.T) {
		s := startServer(t, Options{ClientIdleTimeout: -1, ClientReadTimeout: timeout})
		rc := s.raw(t)
		if _, err := rc.nc.Write([]byte{'Q', 0, 0, 0, 100, 'S', 'E', 'L'}); err != nil {
			t.Fatal(err)
		}
		rc.fatal(t, codeProtocolViolation, "client_read_timeout")
	})
}

// TestPreparedStatementBounds: Parse and Bind over max_prepared_statements
// or max_prepared_bytes get ErrorResponse 53400 naming the limit, and the
// connection keeps working; closing a statement makes room again.
func TestPreparedStatementBounds(t *testing.T) {
	s := startServer(t, Options{MaxPreparedStatements: 3, MaxPreparedBytes: 64 << 10})
	ctx := testCtx(t)
	conn := s.connect(t, ctx, pgx.QueryExecModeExec)
	pc := conn.PgConn()
	check := "SELECT * FROM pgequiv.check($1, $2)"
	for _, name := range []string{"s1", "s2", "s3"} {
		if _, err := pc.Prepare(ctx, name, check, nil); err != nil {
			t.Fatalf("prepare %s: %v", name, err)
		}
	}
	_, err := pc.Prepare(ctx, "s4", check, nil)
	if pe := pgErr(err); pe == nil || pe.Code != codeConfigLimitExceeded || !strings.Contains(pe.Message, "max_prepared_statements = 3") {
		t.Fatalf("fourth statement: %v", err)
	}
	// The unnamed statement does not count.
	if _, err := scanVerdict(conn.QueryRow(ctx, check, countStar, countOwner)); err != nil {
		t.Fatalf("unnamed statement at the limit: %v", err)
	}
	if err := pc.Deallocate(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Prepare(ctx, "s4", check, nil); err != nil {
		t.Fatalf("after closing one: %v", err)
	}

	big := "SELECT * FROM pgequiv.check('" + strings.Repeat("x", 70<<10) + "', $1)"
	_, err = pc.Prepare(ctx, "", big, nil)
	if pe := pgErr(err); pe == nil || pe.Code != codeConfigLimitExceeded || !strings.Contains(pe.Message, "max_prepared_bytes = 65536") {
		t.Fatalf("oversized statement: %v", err)
	}
	if _, err := scanVerdict(conn.QueryRow(ctx, check, countStar, countOwner)); err != nil {
		t.Fatalf("after the oversized statement: %v", err)
	}

	// Portals: named ones pile up until Sync; the fourth is refused.
	rc := s.raw(t)
	rc.fe.Send(&pgproto3.Parse{Query: check})
	for _, p := range []string{"p1", "p2", "p3", "p4"} {
		rc.fe.Send(&pgproto3.Bind{DestinationPortal: p, Parameters: [][]byte{[]byte(countStar), []byte(countOwner)}})
	}
	rc.fe.Send(&pgproto3.Sync{})
	rc.flush(t)
	binds := 0
	for {
		msg, err := rc.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.BindComplete:
			binds++
		case *pgproto3.ErrorResponse:
			if m.Code != codeConfigLimitExceeded || !strings.Contains(m.Message, "open portals") || binds != 3 {
				t.Fatalf("after %d binds: %+v", binds, m)
			}
		case *pgproto3.ReadyForQuery:
			if binds != 3 {
				t.Fatalf("%d binds before ReadyForQuery, want 3 then an error", binds)
			}
			return
		}
	}
}

// TestManyPreparedStatementsBounded: a client preparing statements in a
// loop stops growing at the bound (it used to take 730 MB for 1,000,000).
func TestManyPreparedStatementsBounded(t *testing.T) {
	s := startServer(t, Options{MaxPreparedStatements: 1000})
	rc := s.raw(t)
	const n = 5000
	for i := range n {
		rc.fe.Send(&pgproto3.Parse{Name: "s" + strconv.Itoa(i), Query: "SELECT * FROM pgequiv.check($1, $2)"})
		rc.fe.Send(&pgproto3.Sync{})
	}
	rc.flush(t)
	ok, refused := 0, 0
	for ok+refused < n {
		msg, err := rc.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.ParseComplete:
			ok++
		case *pgproto3.ErrorResponse:
			if m.Code != codeConfigLimitExceeded {
				t.Fatalf("%+v", m)
			}
			refused++
		}
	}
	if ok != 1000 || refused != n-1000 {
		t.Fatalf("%d prepared, %d refused; want 1000 and %d", ok, refused, n-1000)
	}
}
