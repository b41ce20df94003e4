package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

func TestPgxSimpleAndExtended(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 30*time.Second)
	conn := p.connect(t, ctx, pgtest.SuperUser, "")

	// Simple protocol.
	var n int
	if err := conn.QueryRow(ctx, "SELECT 40 + 2", pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 42 {
		t.Fatalf("simple: %d, %v", n, err)
	}
	// Extended protocol, unnamed statement, with parameters.
	var s string
	if err := conn.QueryRow(ctx, "SELECT $1::text || $2::text", pgx.QueryExecModeExec, "foo", "bar").Scan(&s); err != nil || s != "foobar" {
		t.Fatalf("extended unnamed: %q, %v", s, err)
	}
	// Named prepared statement, executed twice.
	if _, err := conn.Prepare(ctx, "add", "SELECT $1::int + $2::int"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := conn.QueryRow(ctx, "add", i, 10).Scan(&n); err != nil || n != i+10 {
			t.Fatalf("named: %d, %v", n, err)
		}
	}
	if err := conn.Deallocate(ctx, "add"); err != nil {
		t.Fatal(err)
	}
	// Statement cache (describe + bind of a cached named statement).
	rows, err := conn.Query(ctx, "SELECT g, g*g FROM generate_series(1, $1::int) g", 100)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for rows.Next() {
		var a, b int
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		sum += b
	}
	if rows.Err() != nil || sum != 338350 {
		t.Fatalf("sum of squares %d, %v", sum, rows.Err())
	}
}

func TestPgxBatchPipeline(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 30*time.Second)
	conn := p.connect(t, ctx, pgtest.SuperUser, "")

	b := &pgx.Batch{}
	for i := range 200 {
		b.Queue("SELECT $1::int * 2", i)
	}
	br := conn.SendBatch(ctx, b)
	for i := range 200 {
		var n int
		if err := br.QueryRow().Scan(&n); err != nil || n != 2*i {
			t.Fatalf("batch item %d: %d, %v", i, n, err)
		}
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}

	// An error inside a pipelined batch aborts the rest; the connection
	// stays usable.
	b = &pgx.Batch{}
	b.Queue("SELECT 1")
	b.Queue("SELECT 1/0")
	b.Queue("SELECT 3")
	br = conn.SendBatch(ctx, b)
	var n int
	if err := br.QueryRow().Scan(&n); err != nil || n != 1 {
		t.Fatalf("first: %d, %v", n, err)
	}
	var pgErr *pgconn.PgError
	if err := br.QueryRow().Scan(&n); !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Fatalf("second: want division_by_zero, got %v", err)
	}
	br.Close()
	if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
		t.Fatalf("after failed batch: %d, %v", n, err)
	}
}

func TestPgxCopyInOut(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 60*time.Second)
	conn := p.connect(t, ctx, pgtest.SuperUser, "")

	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE copy_t (id int, name text)"); err != nil {
		t.Fatal(err)
	}
	const rowsN = 20000
	src := make([][]any, rowsN)
	for i := range src {
		src[i] = []any{i, fmt.Sprintf("name-%d", i)}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"copy_t"}, []string{"id", "name"}, pgx.CopyFromRows(src))
	if err != nil || n != rowsN {
		t.Fatalf("CopyFrom: %d, %v", n, err)
	}
	// Text COPY FROM STDIN through the simple protocol.
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("-1\tminus one\n-2\tminus two\n"), "COPY copy_t FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tag, err := conn.PgConn().CopyTo(ctx, &buf, "COPY (SELECT * FROM copy_t ORDER BY id) TO STDOUT")
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() != rowsN+2 {
		t.Fatalf("COPY TO rows %d", tag.RowsAffected())
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != rowsN+2 || lines[0] != "-2\tminus two" || lines[len(lines)-1] != fmt.Sprintf("%d\tname-%d", rowsN-1, rowsN-1) {
		t.Fatalf("COPY TO output: %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	// A failing COPY IN (bad data) reports the error and the connection
	// continues.
	_, err = conn.PgConn().CopyFrom(ctx, strings.NewReader("x\ty\n"), "COPY copy_t FROM STDIN")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22P02" {
		t.Fatalf("bad COPY: %v", err)
	}
	var cnt int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM copy_t").Scan(&cnt); err != nil || cnt != rowsN+2 {
		t.Fatalf("count after bad copy: %d, %v", cnt, err)
	}
}

func TestListenNotify(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 30*time.Second)
	listener := p.connect(t, ctx, pgtest.SuperUser, "")
	notifier := p.connect(t, ctx, pgtest.SuperUser, "")
	if _, err := listener.Exec(ctx, "LISTEN pgequiv_chan"); err != nil {
		t.Fatal(err)
	}
	if _, err := notifier.Exec(ctx, "SELECT pg_notify('pgequiv_chan', 'hello')"); err != nil {
		t.Fatal(err)
	}
	n, err := listener.WaitForNotification(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n.Channel != "pgequiv_chan" || n.Payload != "hello" {
		t.Fatalf("notification %+v", n)
	}
}

func TestNoticeAndErrorMidTransaction(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 30*time.Second)
	cfg, err := pgx.ParseConfig(p.connString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Severity+": "+n.Message) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	if _, err := conn.Exec(ctx, `DO $$ BEGIN RAISE NOTICE 'hello %', 42; END $$`); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 1 || notices[0] != "NOTICE: hello 42" {
		t.Fatalf("notices %q", notices)
	}

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "CREATE TEMP TABLE tx_t (a int)"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "SELECT * FROM no_such_table")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42P01" {
		t.Fatalf("want undefined_table, got %v", err)
	}
	// In a failed transaction everything is refused until rollback.
	_, err = tx.Exec(ctx, "SELECT 1")
	if !errors.As(err, &pgErr) || pgErr.Code != "25P02" {
		t.Fatalf("want in_failed_sql_transaction, got %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'tx_t'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("after rollback: %d, %v", n, err)
	}
}

func TestClientDisconnectMidQuery(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 60*time.Second)
	direct := connectDirect(t, ctx)

	conn := p.connect(t, ctx, pgtest.SuperUser, "")
	var upPID int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&upPID); err != nil {
		t.Fatal(err)
	}
	// Start a long query and drop the client connection under it.
	fe := conn.PgConn().Frontend()
	fe.SendQuery(&pgproto3.Query{String: "SELECT pg_sleep(60)"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	waitActive(t, ctx, direct, upPID, "pg_sleep")
	conn.PgConn().Conn().Close()

	// The proxy ends that connection (closing its upstream side) ...
	if err := p.waitConnEnd(t, ctx); err != nil && !IsClientGone(err) {
		t.Fatalf("connection end: %v", err)
	}
	// ... and keeps serving others.
	other := p.connect(t, ctx, pgtest.SuperUser, "")
	var n int
	if err := other.QueryRow(ctx, "SELECT 5").Scan(&n); err != nil || n != 5 {
		t.Fatalf("other connection: %d, %v", n, err)
	}
	// Clean up the orphaned backend, which runs until pg_sleep ends.
	if _, err := direct.Exec(ctx, "SELECT pg_terminate_backend($1)", upPID); err != nil {
		t.Fatal(err)
	}
}

// waitActive polls pg_stat_activity until backend pid runs a query
// containing substr.
func waitActive(t testing.TB, ctx context.Context, direct *pgx.Conn, pid int, substr string) {
	t.Helper()
	for {
		var active bool
		err := direct.QueryRow(ctx, `SELECT coalesce(bool_or(state = 'active' AND query LIKE '%' || $2 || '%'), false)
			FROM pg_stat_activity WHERE pid = $1`, pid, substr).Scan(&active)
		if err != nil {
			t.Fatalf("polling pg_stat_activity: %v", err)
		}
		if active {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("backend %d never ran %q", pid, substr)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
