package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

func TestCancelThroughProxy(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 60*time.Second)
	direct := connectDirect(t, ctx)
	conn := p.connect(t, ctx, pgtest.SuperUser, "")

	var upPID int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&upPID); err != nil {
		t.Fatal(err)
	}
	if uint32(upPID) == conn.PgConn().PID() {
		t.Fatalf("client got the upstream PID %d; want the proxy's own key", upPID)
	}

	done := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, "SELECT pg_sleep(30)")
		done <- err
	}()
	waitActive(t, ctx, direct, upPID, "pg_sleep")

	// A cancel with the wrong secret is ignored.
	if err := sendCancel(ctx, p, conn.PgConn().PID(), []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("query ended after a cancel with a wrong secret: %v", err)
	default:
	}

	// The real key cancels the upstream query well before pg_sleep ends.
	bound, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.PgConn().CancelRequest(bound); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
			t.Fatalf("want query_canceled, got %v", err)
		}
	case <-bound.Done():
		t.Fatal("query not cancelled within 10s")
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after cancel: %d, %v", n, err)
	}
}

// sendCancel sends a raw CancelRequest to the proxy and waits until the
// proxy closes the connection (after forwarding, if it forwards).
func sendCancel(ctx context.Context, p *testProxy, pid uint32, secret []byte) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(p.Host, strconv.Itoa(p.Port)))
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	msg, err := (&pgproto3.CancelRequest{ProcessID: pid, SecretKey: secret}).Encode(nil)
	if err != nil {
		return err
	}
	if _, err := c.Write(msg); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, c)
	return err
}
