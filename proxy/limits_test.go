package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/protocol"
)

// rawStartup opens a raw connection to p's address (the proxy, or the
// cluster in a testProxy holding its port) and completes trust
// authentication as the superuser, returning a pgproto3 Frontend on it.
func rawStartup(t testing.TB, ctx context.Context, p *testProxy) (net.Conn, *pgproto3.Frontend) {
	t.Helper()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(p.Host, strconv.Itoa(p.Port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": pgtest.SuperUser, "database": pgtest.Database}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("startup: %v", err)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			return c, fe
		}
	}
}

// TestLargeResultStreams sends a ~50 MB result through the proxy and
// checks that the process allocates far less than that meanwhile: rows are
// forwarded through fixed buffers, never collected.
func TestLargeResultStreams(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 120*time.Second)
	c, _ := rawStartup(t, ctx, p)

	const rows, width = 50_000, 1000
	q := (&protocol.Query{SQL: []byte(fmt.Sprintf("SELECT repeat('x', %d) FROM generate_series(1, %d)", width, rows))}).Encode(nil)

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := c.Write(q); err != nil {
		t.Fatal(err)
	}
	// Read raw frames with a fixed buffer; the client allocates nothing per
	// row, so allocations measured are the proxy's.
	r := protocol.NewReader(c, 64*1024, 0)
	var dataRows, total int
	for {
		typ, n, err := r.PeekHeader()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Forward(io.Discard); err != nil {
			t.Fatal(err)
		}
		total += n
		if typ == 'D' {
			dataRows++
		}
		if typ == protocol.TypeReadyForQuery {
			break
		}
	}
	runtime.ReadMemStats(&after)
	if dataRows != rows || total < rows*width {
		t.Fatalf("got %d rows, %d bytes", dataRows, total)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("streamed %d MB; process allocated %d KB meanwhile", total>>20, allocated>>10)
	if allocated > 4<<20 {
		t.Fatalf("allocated %d bytes while streaming %d bytes; the result is being buffered", allocated, total)
	}
}

func TestOversizedAndMalformedMessages(t *testing.T) {
	opts := upstreamOpts()
	opts.MaxMessageSize = 1 << 20
	p := startProxy(t, opts)
	ctx := testCtx(t, 60*time.Second)

	// A healthy connection that must keep working throughout.
	good := p.connect(t, ctx, pgtest.SuperUser, "")

	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"oversized query", (&protocol.Query{SQL: make([]byte, 2<<20)}).Encode(nil)},
		{"length below 4", []byte{'Q', 0, 0, 0, 2}},
		{"huge declared length", []byte{'Q', 0x7f, 0xff, 0xff, 0xff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, fe := rawStartup(t, ctx, p)
			if _, err := c.Write(tc.frame); err != nil {
				t.Fatal(err)
			}
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			e, ok := msg.(*pgproto3.ErrorResponse)
			if !ok || e.Code != pgCodeProtocolViolation || e.Severity != "FATAL" {
				t.Fatalf("got %#v, want FATAL protocol_violation", msg)
			}
			if _, err := fe.Receive(); err == nil {
				t.Fatal("connection still open after a protocol violation")
			}
			c.Close() // as a client does on EOF; ends the proxy's linger
			if err := p.waitConnEnd(t, ctx); CodeOf(err) != CodeClientProtocol {
				t.Fatalf("connection end %v, want client_protocol", err)
			}
			var n int
			if err := good.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
				t.Fatalf("other connection after %s: %d, %v", tc.name, n, err)
			}
		})
	}

	// A bad startup packet is answered with an error too.
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(p.Host, strconv.Itoa(p.Port)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte{0, 0, 0, 8, 0, 2, 0, 0}) // protocol 2.0
	msg, err := pgproto3.NewFrontend(bufio.NewReader(c), c).Receive()
	if e, ok := msg.(*pgproto3.ErrorResponse); err != nil || !ok || e.Code != pgCodeProtocolViolation {
		t.Fatalf("protocol 2.0 startup: %#v, %v", msg, err)
	}
}

func TestManyConcurrentConnections(t *testing.T) {
	// 250 backends start at once beside the proxy: on a loaded 2-core
	// machine that outlasts the usual 10 s connect timeouts, the
	// client's and the proxy's upstream one alike. This test is about
	// serving them all, not speed.
	opts := upstreamOpts()
	opts.Upstream.ConnectTimeout = 60 * time.Second
	p := startProxy(t, opts)
	ctx := testCtx(t, 120*time.Second)
	const n = 250
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgconn.Connect(ctx, p.connString(pgtest.SuperUser, "")+" connect_timeout=60")
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(ctx)
			res, err := conn.Exec(ctx, fmt.Sprintf("SELECT %d, pg_sleep(0.05)", i)).ReadAll()
			if err != nil {
				errs <- err
				return
			}
			if got := string(res[0].Rows[0][0]); got != strconv.Itoa(i) {
				errs <- fmt.Errorf("connection %d got %q", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestShutdownDrains: Shutdown waits for connections until its context
// ends, then ends them with admin_shutdown; Serve returns ErrServerClosed.
func TestShutdownDrains(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 30*time.Second)
	conn := p.connect(t, ctx, pgtest.SuperUser, "")

	sctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := p.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown with idle clients = %v, want DeadlineExceeded", err)
	}
	if p.ActiveConns() != 0 {
		t.Fatalf("%d connections left after Shutdown", p.ActiveConns())
	}
	// Read what the proxy sent the idle client from the socket itself: a
	// query written now could fail on the closed socket before the client
	// reads the ErrorResponse waiting in its receive buffer.
	raw := conn.PgConn().Conn()
	msg, err := pgproto3.NewFrontend(raw, raw).Receive()
	if e, ok := msg.(*pgproto3.ErrorResponse); err != nil || !ok || e.Code != pgCodeAdminShutdown {
		t.Fatalf("message after shutdown: %#v, %v; want admin_shutdown", msg, err)
	}
	// New connections are refused.
	if _, err := pgconn.Connect(ctx, p.connString(pgtest.SuperUser, "")); err == nil {
		t.Fatal("connected after Shutdown")
	}
}

func TestShutdownWithoutConnections(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 10*time.Second)
	conn := p.connect(t, ctx, pgtest.SuperUser, "")
	conn.Close(ctx)
	if err := p.waitConnEnd(t, ctx); err != nil {
		t.Fatalf("clean close reported %v", err)
	}
	if err := p.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown = %v, want nil", err)
	}
}
