package proxy

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestMaxClientConn: over max_client_conn a client gets FATAL 53300 after
// its startup message, as from PostgreSQL; the relayed connections keep
// working; a reload that raises the limit lets the next client in.
func TestMaxClientConn(t *testing.T) {
	opts := upstreamOpts()
	opts.MaxClientConn = 2
	p := startProxy(t, opts)
	ctx := testCtx(t, 30*time.Second)
	open := []*pgx.Conn{p.connect(t, ctx, pgtest.SuperUser, ""), p.connect(t, ctx, pgtest.SuperUser, "")}

	_, err := pgx.Connect(ctx, p.connString(pgtest.SuperUser, ""))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != pgCodeTooManyConnections || pe.Severity != "FATAL" || pe.Message != "sorry, too many clients already" {
		t.Fatalf("over the limit: %v", err)
	}
	if end := p.waitConnEnd(t, ctx); CodeOf(end) != CodeTooManyClients {
		t.Fatalf("refused connection ended with %v", end)
	}
	for i, c := range open {
		var n int
		if err := c.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
			t.Fatalf("connection %d after the refusal: %d, %v", i, n, err)
		}
	}

	opts.MaxClientConn = 3
	if err := p.Reload(opts); err != nil {
		t.Fatal(err)
	}
	third := p.connect(t, ctx, pgtest.SuperUser, "")
	var n int
	if err := third.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
		t.Fatalf("after raising the limit: %d, %v", n, err)
	}
}
