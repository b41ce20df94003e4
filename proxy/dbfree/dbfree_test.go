package dbfree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

const (
	countStar  = "SELECT COUNT(*) FROM dogs"
	countOwner = "SELECT COUNT(owner_id) FROM dogs"
)

type testServer struct {
	*Server
	addr string
}

func exampleSchema(t testing.TB) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startServer serves opts (schema defaulting to the example) on a free
// loopback port; cleanup closes it and checks no goroutine is left.
func startServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	return startServerOn(t, opts, nil)
}

// startServerOn is startServer serving on wrap(the listener); wrap nil:
// the listener itself.
func startServerOn(t testing.TB, opts Options, wrap func(net.Listener) net.Listener) *testServer {
	t.Helper()
	if opts.Schema == nil {
		opts.Schema = exampleSchema(t)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if wrap != nil {
		ln = wrap(ln)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
		checkNoLeaks(t)
	})
	return &testServer{Server: s, addr: addr}
}

func (s *testServer) connString(password string) string {
	host, port, _ := net.SplitHostPort(s.addr)
	cs := fmt.Sprintf("host=%s port=%s user=tester dbname=pgequiv sslmode=disable connect_timeout=10", host, port)
	if password != "" {
		cs += " password=" + password
	}
	return cs
}

func (s *testServer) connect(t testing.TB, ctx context.Context, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(s.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// checkNoLeaks fails if a goroutine of this package's server is left.
func checkNoLeaks(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var leaks []string
		for _, g := range bytes.Split(buf, []byte("\n\n")) {
			s := string(g)
			if !strings.Contains(s, "runtime.goexit1(") &&
				(strings.Contains(s, "proxy/dbfree.(*conn)") || strings.Contains(s, "proxy/dbfree.(*Server)")) {
				leaks = append(leaks, s)
			}
		}
		if len(leaks) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, s := range leaks {
				t.Errorf("leaked goroutine:\n%s", s)
			}
			return
		}
		runtime.Gosched()
	}
}

type verdictRow struct {
	label, assumptions, rules, differences string
	score                                  float64
	counterexample                         *string // NULL when none was found
}

func scanVerdict(row pgx.Row) (verdictRow, error) {
	var v verdictRow
	err := row.Scan(&v.label, &v.score, &v.assumptions, &v.rules, &v.differences, &v.counterexample)
	return v, err
}

var execModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
}

// TestCheckEveryExecMode runs pgequiv.check through every pgx execution
// mode: extended protocol with and without prepared statements, binary
// and text results, and the simple protocol.
func TestCheckEveryExecMode(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := s.connect(t, ctx, mode)
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{"SELECT * FROM pgequiv.check($1, $2)", []any{countStar, countOwner}},
				{"SELECT * FROM pgequiv.check($1::text, $2::text)", []any{countStar, countOwner}},
				{"SELECT * FROM pgequiv.check('" + countStar + "', '" + countOwner + "')", nil},
			} {
				for range 2 { // the second run uses pgx's statement cache
					v, err := scanVerdict(conn.QueryRow(ctx, q.sql, q.args...))
					if err != nil {
						t.Fatalf("%s: %v", q.sql, err)
					}
					if v.label != "equivalent" || v.score < 0.5 || !strings.Contains(v.rules, "count-star-not-null") {
						t.Fatalf("%s: %+v", q.sql, v)
					}
				}
			}
			v, err := scanVerdict(conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", "SELECT name FROM dogs ORDER BY name", "SELECT name FROM dogs"))
			if err != nil || v.label != "not_equivalent" || v.differences == "" || v.score > 0.5 {
				t.Fatalf("ordered reference, unordered candidate: %+v, %v", v, err)
			}
		})
	}
}

func TestSelectedColumns(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	conn := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
	var label string
	var score float64
	if err := conn.QueryRow(ctx, "SELECT score, label FROM pgequiv.check($1, $2)", countStar, countOwner).Scan(&score, &label); err != nil || label != "equivalent" || score < 0.5 {
		t.Fatalf("score, label: %v %q %v", score, label, err)
	}
	_, err := conn.Exec(ctx, "SELECT nope FROM pgequiv.check('SELECT 1', 'SELECT 1')")
	if pe := pgErr(err); pe == nil || pe.Code != codeUndefinedColumn {
		t.Fatalf("unknown column: %v", err)
	}
	_, err = conn.Exec(ctx, "SELECT * FROM pgequiv.check('SELECT 1')")
	if pe := pgErr(err); pe == nil || pe.Code != codeUndefinedFunction {
		t.Fatalf("one argument: %v", err)
	}
}

func pgErr(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// TestTaggedAndSession: a tagged query, and any query after SET
// pgequiv.reference, returns its verdict row instead of data.
func TestTaggedAndSession(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			conn := s.connect(t, ctx, mode)
			v, err := scanVerdict(conn.QueryRow(ctx, countOwner+" /*pgequiv_ref='"+strings.ReplaceAll(countStar, " ", "%20")+"'*/"))
			if err != nil || v.label != "equivalent" {
				t.Fatalf("tagged: %+v, %v", v, err)
			}
			if _, err := conn.Exec(ctx, "SET pgequiv.reference = 'SELECT name FROM dogs'"); err != nil {
				t.Fatal(err)
			}
			v, err = scanVerdict(conn.QueryRow(ctx, "SELECT name FROM dogs WHERE true"))
			if err != nil || !strings.HasPrefix(v.label, "equivalent") {
				t.Fatalf("after SET: %+v, %v", v, err)
			}
			if _, err := conn.Exec(ctx, "RESET pgequiv.reference"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, "SELECT name FROM dogs"); pgErr(err) == nil || pgErr(err).Code != codeFeatureNotSupported {
				t.Fatalf("after RESET: %v", err)
			}
		})
	}
}

// TestRefusedStatementsKeepServing: anything else is an ErrorResponse and
// the connection goes on, in the simple and extended protocols, also in a
// pipeline where the error comes between good statements.
func TestRefusedStatementsKeepServing(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) {
			conn := s.connect(t, ctx, mode)
			for _, sql := range []string{"SELECT name FROM dogs", "INSERT INTO dogs VALUES (1)", "CREATE TABLE x (a int)", "not sql at all"} {
				_, err := conn.Exec(ctx, sql)
				pe := pgErr(err)
				if pe == nil || pe.Code != codeFeatureNotSupported || !strings.Contains(pe.Message, "database-free mode answers only pgequiv.check(...) and tagged queries") {
					t.Fatalf("%q: %v", sql, err)
				}
				if _, err := scanVerdict(conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner)); err != nil {
					t.Fatalf("after %q: %v", sql, err)
				}
			}
			if err := conn.Ping(ctx); err != nil { // an empty query
				t.Fatalf("ping: %v", err)
			}
		})
	}

	// In exec mode the batch is one pipeline: Parse, Bind, Execute of each
	// statement, one Sync.
	conn := s.connect(t, ctx, pgx.QueryExecModeExec)
	b := &pgx.Batch{}
	b.Queue("SELECT label FROM pgequiv.check($1, $2)", countStar, countOwner)
	b.Queue("SELECT name FROM dogs")
	b.Queue("SELECT label FROM pgequiv.check($1, $2)", countStar, countOwner)
	res := conn.SendBatch(ctx, b)
	var label string
	if err := res.QueryRow().Scan(&label); err != nil || label != "equivalent" {
		t.Fatalf("batch 1: %q, %v", label, err)
	}
	if _, err := res.Exec(); pgErr(err) == nil {
		t.Fatalf("batch 2: %v, want an error", err)
	}
	res.Close()
	if err := conn.QueryRow(ctx, "SELECT label FROM pgequiv.check($1, $2)", countStar, countOwner).Scan(&label); err != nil {
		t.Fatalf("after the batch: %v", err)
	}
}

// TestMultiStatementSimpleQuery: statements run in order until the first
// error, as PostgreSQL runs a simple Query.
func TestMultiStatementSimpleQuery(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	conn, err := pgconn.Connect(ctx, s.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	res, err := conn.Exec(ctx, "SELECT label FROM pgequiv.check('SELECT 1', 'SELECT 1'); SET pgequiv.reference = '"+countStar+"'; "+countOwner+"; RESET pgequiv.reference; SELECT name FROM dogs; SELECT label FROM pgequiv.check('SELECT 1', 'SELECT 1')").ReadAll()
	if pgErr(err) == nil || len(res) != 4 {
		t.Fatalf("got %d results, %v; want 4 results and an error", len(res), err)
	}
	if string(res[0].Rows[0][0]) != "equivalent" || res[1].CommandTag.String() != "SET" || string(res[2].Rows[0][0]) != "equivalent" {
		t.Fatalf("results: %q %q %q", res[0].Rows, res[1].CommandTag, res[2].Rows)
	}
}

func TestPassword(t *testing.T) {
	s := startServer(t, Options{Password: "s3cret"})
	ctx := testCtx(t)
	conn, err := pgx.Connect(ctx, s.connString("s3cret"))
	if err != nil {
		t.Fatalf("right password: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := scanVerdict(conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner)); err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{"wrong", ""} {
		_, err := pgx.Connect(ctx, s.connString(pw))
		if pw == "" {
			if err == nil {
				t.Fatal("connected without a password")
			}
			continue
		}
		if pe := pgErr(err); pe == nil || pe.Code != codeInvalidPassword {
			t.Fatalf("wrong password: %v", err)
		}
	}
}

// TestBadMessages: an oversized, unknown or badly framed message ends
// only that connection, with FATAL 08P01.
func TestBadMessages(t *testing.T) {
	s := startServer(t, Options{MaxMessageSize: 1024})
	ctx := testCtx(t)
	good := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"oversized", mustEncode(t, &pgproto3.Query{String: "SELECT '" + strings.Repeat("x", 4096) + "'"})},
		{"unknown type", []byte{'!', 0, 0, 0, 4}},
		{"length below 4", []byte{'Q', 0, 0, 0, 2}},
		{"bind without body", []byte{'B', 0, 0, 0, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc, err := net.Dial("tcp", s.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(10 * time.Second))
			fe := pgproto3.NewFrontend(nc, nc)
			fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "x"}})
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
			if _, err := nc.Write(tc.frame); err != nil {
				t.Fatal(err)
			}
			var fatal *pgproto3.ErrorResponse
			for fatal == nil {
				msg, err := fe.Receive()
				if err != nil {
					t.Fatalf("before the error: %v", err)
				}
				fatal, _ = msg.(*pgproto3.ErrorResponse)
			}
			if fatal.Severity != "FATAL" || fatal.Code != codeProtocolViolation {
				t.Fatalf("got %+v", fatal)
			}
			if _, err := fe.Receive(); err == nil {
				t.Fatal("connection open after the violation")
			}
			if _, err := scanVerdict(good.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner)); err != nil {
				t.Fatalf("other connection: %v", err)
			}
		})
	}
}

func mustEncode(t testing.TB, m pgproto3.FrontendMessage) []byte {
	t.Helper()
	b, err := m.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShutdownEndsIdleClients: Shutdown past its deadline ends idle
// clients with admin_shutdown.
func TestShutdownEndsIdleClients(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	conn := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
	sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	raw := conn.PgConn().Conn()
	msg, err := pgproto3.NewFrontend(raw, raw).Receive()
	if e, ok := msg.(*pgproto3.ErrorResponse); err != nil || !ok || e.Code != codeAdminShutdown {
		t.Fatalf("after shutdown: %#v, %v", msg, err)
	}
}

// TestCheckCounterexample: a pair the refuter tells apart comes back
// not_equivalent with its counterexample database in the counterexample
// column; a proved pair has NULL there.
func TestCheckCounterexample(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	conn := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
	v, err := scanVerdict(conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)",
		"SELECT COUNT(*) FROM dogs", "SELECT COUNT(*) FROM dogs WHERE age > 5"))
	if err != nil {
		t.Fatal(err)
	}
	if v.label != "not_equivalent" || v.counterexample == nil || !strings.Contains(*v.counterexample, "INSERT INTO dogs") ||
		!strings.Contains(*v.counterexample, "-- reference returns 1 row") {
		t.Fatalf("want not_equivalent with a counterexample, got %+v (counterexample %v)", v, v.counterexample)
	}
	v, err = scanVerdict(conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner))
	if err != nil || v.label != "equivalent" || v.counterexample != nil {
		t.Fatalf("proved pair: %+v, %v", v, err)
	}
}
