package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/protocol"
)

// Stress tests through the relay against the real PostgreSQL. All run on
// loopback and are bounded in count and time.

// TestStress500Connections holds 500 client connections open through the
// proxy at once (the proxy and the server see all of them), then has each
// run a query that names it.
func TestStress500Connections(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 180*time.Second)
	const n = 500
	conns := make([]*pgconn.PgConn, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	// Connect in waves of 50 so that 2 cores are not asked for 500 TLS-less
	// startups in the same instant; every connection stays open.
	for wave := 0; wave < n; wave += 50 {
		for i := wave; i < wave+50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := pgconn.Connect(ctx, p.connString(pgtest.SuperUser, ""))
				if err != nil {
					errs <- fmt.Errorf("connection %d: %w", i, err)
					return
				}
				conns[i] = c
			}()
		}
		wg.Wait()
	}
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close(context.Background())
			}
		}
	}()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := p.ActiveConns(); got != n {
		t.Fatalf("proxy has %d active connections, want %d", got, n)
	}
	direct := connectDirect(t, ctx)
	var backends int
	if err := direct.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()").Scan(&backends); err != nil {
		t.Fatal(err)
	}
	if backends < n {
		t.Fatalf("server has %d client backends, want at least %d", backends, n)
	}
	qerrs := make(chan error, n)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Exec(ctx, fmt.Sprintf("SELECT %d", i)).ReadAll()
			if err != nil {
				qerrs <- fmt.Errorf("connection %d: %w", i, err)
				return
			}
			if got := string(res[0].Rows[0][0]); got != strconv.Itoa(i) {
				qerrs <- fmt.Errorf("connection %d got %q", i, got)
			}
		}()
	}
	wg.Wait()
	close(qerrs)
	for err := range qerrs {
		t.Error(err)
	}
}

// TestStress200MBResultBoundedHeap streams a 200 MB result through the
// proxy while sampling the heap (client and proxy share this process; the
// client reads through a fixed buffer): the heap must stay within a few
// MB of where it started, so the proxy never holds the result.
func TestStress200MBResultBoundedHeap(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 240*time.Second)
	c, _ := rawStartup(t, ctx, p)

	const rows, width = 210_000, 1000 // 202 MiB of DataRows
	q := (&protocol.Query{SQL: []byte(fmt.Sprintf("SELECT repeat('x', %d) FROM generate_series(1, %d)", width, rows))}).Encode(nil)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	totalBefore := ms.TotalAlloc
	if _, err := c.Write(q); err != nil {
		t.Fatal(err)
	}
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
			if dataRows%10_000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		if typ == protocol.TypeReadyForQuery {
			break
		}
	}
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapAlloc)
	if dataRows != rows || total < rows*width {
		t.Fatalf("got %d rows, %d bytes", dataRows, total)
	}
	grew := int64(peak) - int64(base)
	t.Logf("streamed %d MB; heap %d KB at start, peak %d KB (+%d KB); %d KB allocated meanwhile",
		total>>20, base>>10, peak>>10, grew>>10, (ms.TotalAlloc-totalBefore)>>10)
	const bound = 8 << 20
	if grew > bound {
		t.Fatalf("heap grew by %d bytes while streaming %d bytes (bound %d): the result is being held", grew, total, bound)
	}
}

// TestStressCancelSleepWithinOneSecond: pg_sleep(30) through the proxy,
// cancelled with the proxy's key, returns within 1 s of the cancel — both
// with an explicit CancelRequest and with pgx's context cancellation.
func TestStressCancelSleepWithinOneSecond(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 60*time.Second)
	direct := connectDirect(t, ctx)

	t.Run("CancelRequest", func(t *testing.T) {
		conn := p.connect(t, ctx, pgtest.SuperUser, "")
		var upPID int
		if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&upPID); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := conn.Exec(ctx, "SELECT pg_sleep(30)")
			done <- err
		}()
		waitActive(t, ctx, direct, upPID, "pg_sleep")
		bound, cancel := context.WithTimeout(ctx, time.Second)
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
			t.Fatal("pg_sleep(30) not cancelled within 1s")
		}
	})

	t.Run("context", func(t *testing.T) {
		conn := p.connect(t, ctx, pgtest.SuperUser, "")
		qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := conn.Exec(qctx, "SELECT pg_sleep(30)")
		if err == nil {
			t.Fatal("pg_sleep(30) finished under a 300ms context")
		}
		if d := time.Since(start); d > 300*time.Millisecond+time.Second {
			t.Fatalf("returned %v after start; want within 1s of the 300ms deadline", d)
		}
		// pgx closes a connection whose query it had to interrupt; a new
		// one through the proxy works, and the upstream is idle again.
		conn2 := p.connect(t, ctx, pgtest.SuperUser, "")
		var n int
		if err := conn2.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
			t.Fatalf("after cancel: %d, %v", n, err)
		}
	})
}

// TestStressPgbenchSameBalances runs the same pgbench TPC-B workload
// (one client, fixed random seed: a deterministic sequence of
// transactions) directly and through the proxy in each protocol mode and
// compares the final state of every account, teller and branch. A
// concurrent run through the proxy is then checked for TPC-B's
// invariants.
func TestStressPgbenchSameBalances(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 300*time.Second)
	pgbench := clientBin(t, "pgbench")
	env := []string{"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10"}
	direct := connectDirect(t, ctx)
	if _, err := direct.Exec(ctx, "CREATE DATABASE pgbench_balances"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), pg.ConnString(pgtest.SuperUser, ""))
		if err == nil {
			c.Exec(context.Background(), "DROP DATABASE pgbench_balances WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	cfg, err := pgx.ParseConfig(pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = "pgbench_balances"

	// state digests every balance, so equal digests mean equal databases.
	state := func() string {
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var s string
		err = c.QueryRow(ctx, `SELECT
			(SELECT md5(string_agg(aid || ':' || abalance, ',' ORDER BY aid)) FROM pgbench_accounts) || '/' ||
			(SELECT md5(string_agg(tid || ':' || tbalance, ',' ORDER BY tid)) FROM pgbench_tellers) || '/' ||
			(SELECT md5(string_agg(bid || ':' || bbalance, ',' ORDER BY bid)) FROM pgbench_branches) || '/' ||
			(SELECT count(*) || ':' || coalesce(sum(delta), 0) FROM pgbench_history)`).Scan(&s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	run := func(port int, args ...string) string {
		conn := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", pgtest.SuperUser}
		return runTool(t, ctx, env, pgbench, append(append(args, conn...), "pgbench_balances")...)
	}
	workload := func(port int, mode string) string {
		run(pg.Port, "-i", "-s", "1", "-q", "-I", "dtgvp")
		out := run(port, "-M", mode, "-c", "1", "-t", "300", "-n", "--random-seed=7")
		if !strings.Contains(out, "number of transactions actually processed: 300/300") {
			t.Fatalf("pgbench -M %s:\n%s", mode, out)
		}
		return state()
	}
	for _, mode := range []string{"simple", "extended", "prepared"} {
		t.Run(mode, func(t *testing.T) {
			want := workload(pg.Port, mode)
			got := workload(p.Port, mode)
			if got != want {
				t.Fatalf("final balances through the proxy %s, direct %s", got, want)
			}
			if strings.HasSuffix(want, "/300:0") {
				t.Fatalf("workload changed nothing: %s", want)
			}
		})
	}

	t.Run("concurrent invariants", func(t *testing.T) {
		run(pg.Port, "-i", "-s", "1", "-q", "-I", "dtgvp")
		for _, mode := range []string{"simple", "extended", "prepared"} {
			out := run(p.Port, "-M", mode, "-c", "8", "-j", "2", "-t", "100", "-n")
			if !strings.Contains(out, "number of transactions actually processed: 800/800") ||
				!strings.Contains(out, "number of failed transactions: 0") {
				t.Fatalf("pgbench -M %s -c 8:\n%s", mode, out)
			}
		}
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var a, tl, b, h, n int64
		if err := c.QueryRow(ctx, `SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(tbalance) FROM pgbench_tellers),
			(SELECT sum(bbalance) FROM pgbench_branches), (SELECT coalesce(sum(delta), 0) FROM pgbench_history),
			(SELECT count(*) FROM pgbench_history)`).Scan(&a, &tl, &b, &h, &n); err != nil {
			t.Fatal(err)
		}
		if n != 2400 || a != h || tl != h || b != h {
			t.Fatalf("TPC-B invariants: %d history rows (want 2400); sums accounts %d tellers %d branches %d history %d", n, a, tl, b, h)
		}
	})
}

// TestStressBadClientsAmongGood: while good clients run queries and a
// large result streams, many clients send malformed or oversized messages.
// Each bad one gets FATAL 08P01 (from the proxy, or from the server for a
// message type only the server knows to be invalid); no good one sees an
// error.
func TestStressBadClientsAmongGood(t *testing.T) {
	opts := upstreamOpts()
	opts.MaxMessageSize = 1 << 20
	p := startProxy(t, opts)
	ctx := testCtx(t, 120*time.Second)

	bad := []struct {
		name     string
		frame    []byte
		severity string
	}{
		{"oversized query", (&protocol.Query{SQL: make([]byte, 2<<20)}).Encode(nil), "FATAL"},
		{"length below 4", []byte{'Q', 0, 0, 0, 2}, "FATAL"},
		{"huge declared length", []byte{'Q', 0x7f, 0xff, 0xff, 0xff}, "FATAL"},
		{"unknown message type", []byte{'!', 0, 0, 0, 4}, "FATAL"},
		// Well framed but with a bad body: the proxy forwards it and the
		// server reports it as an ERROR, keeping the session.
		{"parse without terminators", []byte{'P', 0, 0, 0, 8, 'a', 'b', 'c', 'd'}, "ERROR"},
	}

	stop := make(chan struct{})
	var good sync.WaitGroup
	goodErrs := make(chan error, 64)
	var goodQueries sync.Map
	for i := range 8 {
		good.Add(1)
		go func() {
			defer good.Done()
			conn, err := pgx.Connect(ctx, p.connString(pgtest.SuperUser, ""))
			if err != nil {
				goodErrs <- err
				return
			}
			defer conn.Close(context.Background())
			n := 0
			for {
				select {
				case <-stop:
					goodQueries.Store(i, n)
					return
				default:
				}
				sql := fmt.Sprintf("SELECT %d, count(*) FROM generate_series(1, 2000)", i)
				if i == 0 {
					sql = "SELECT 0, count(x) FROM (SELECT repeat('y', 1000) AS x FROM generate_series(1, 20000)) s"
				}
				var id, cnt int
				if err := conn.QueryRow(ctx, sql).Scan(&id, &cnt); err != nil || id != i {
					goodErrs <- fmt.Errorf("good client %d: %d, %v", i, id, err)
					return
				}
				n++
			}
		}()
	}

	const rounds = 10
	var badWG sync.WaitGroup
	badErrs := make(chan error, rounds*len(bad))
	for r := range rounds {
		for _, b := range bad {
			badWG.Add(1)
			go func() {
				defer badWG.Done()
				if err := sendBad(ctx, p, b.frame, b.severity); err != nil {
					badErrs <- fmt.Errorf("round %d, %s: %w", r, b.name, err)
				}
			}()
		}
		badWG.Wait()
	}
	close(stop)
	good.Wait()
	close(goodErrs)
	close(badErrs)
	for err := range badErrs {
		t.Error(err)
	}
	for err := range goodErrs {
		t.Error(err)
	}
	goodQueries.Range(func(k, v any) bool {
		if v.(int) == 0 {
			t.Errorf("good client %d ran no query", k)
		}
		return true
	})
}

// sendBad starts a session, sends frame, and checks that an 08P01 error
// of the given severity comes back; after FATAL the connection must close,
// after ERROR it must still answer a query.
func sendBad(ctx context.Context, p *testProxy, frame []byte, severity string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(p.Host, strconv.Itoa(p.Port)))
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": pgtest.SuperUser, "database": pgtest.Database}})
	if err := fe.Flush(); err != nil {
		return err
	}
	for {
		msg, err := fe.Receive()
		if err != nil {
			return fmt.Errorf("startup: %w", err)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	if _, err := c.Write(frame); err != nil {
		return err
	}
	for {
		msg, err := fe.Receive()
		if err != nil {
			return fmt.Errorf("no error response before the connection ended: %w", err)
		}
		if e, ok := msg.(*pgproto3.ErrorResponse); ok {
			if e.Severity != severity || e.Code != pgCodeProtocolViolation {
				return fmt.Errorf("got %s %s %q, want %s 08P01", e.Severity, e.Code, e.Message, severity)
			}
			break
		}
	}
	if severity == "FATAL" {
		if _, err := fe.Receive(); err == nil {
			return errors.New("connection still open after FATAL")
		}
		return nil
	}
	fe.Send(&pgproto3.Sync{})
	fe.Send(&pgproto3.Query{String: "SELECT 42"})
	if err := fe.Flush(); err != nil {
		return err
	}
	for rfq := 0; rfq < 2; {
		msg, err := fe.Receive()
		if err != nil {
			return fmt.Errorf("after ERROR: %w", err)
		}
		switch m := msg.(type) {
		case *pgproto3.ReadyForQuery:
			rfq++
		case *pgproto3.DataRow:
			if string(m.Values[0]) != "42" {
				return fmt.Errorf("after ERROR: got %q", m.Values[0])
			}
		case *pgproto3.ErrorResponse:
			return fmt.Errorf("after ERROR: %s %s", m.Code, m.Message)
		}
	}
	return nil
}
