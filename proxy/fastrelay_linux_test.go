//go:build linux

package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// fastEnds records how connections left the fast relay.
type fastEnds chan bool

func (f fastEnds) knobs() testingKnobs {
	return testingKnobs{onFastRelayEnd: func(_ uint64, demoted bool) { f <- demoted }}
}

// next returns whether the next connection to leave the fast relay was
// demoted.
func (f fastEnds) next(t *testing.T, ctx context.Context) bool {
	t.Helper()
	select {
	case d := <-f:
		return d
	case <-ctx.Done():
		t.Fatal("no connection left the fast relay")
		return false
	}
}

// markObserver wants to see statements containing "observe me" and
// answers them with a notice.
type markObserver struct {
	mu   sync.Mutex
	seen []string
}

func (o *markObserver) NeedsObservation(_ *Session, _ QueryKind, sql []byte) bool {
	return bytes.Contains(sql, []byte("observe me"))
}

func (o *markObserver) ObserveQuery(_ context.Context, ev *QueryEvent) Action {
	o.mu.Lock()
	o.seen = append(o.seen, string(ev.SQL))
	o.mu.Unlock()
	if bytes.Contains(ev.SQL, []byte("observe me")) {
		return Action{Notice: &pgproto3.NoticeResponse{Message: "seen " + string(ev.SQL)}}
	}
	return Action{}
}

func (o *markObserver) statements() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.seen...)
}

// fakeStartup answers a fake backend's startup: no password, a key, ready.
func fakeStartup(be *pgproto3.Backend) error {
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.BackendKeyData{ProcessID: 7, SecretKey: []byte{0, 0, 0, 7}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	return be.Flush()
}

// rawFakeClient connects to the proxy and reads through the startup
// exchange byte by byte, so that nothing after ReadyForQuery is consumed.
func rawFakeClient(t *testing.T, ctx context.Context, p *testProxy) net.Conn {
	t.Helper()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(p.Host, strconv.Itoa(p.Port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	startup, err := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "u", "database": "d"}}).Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(startup); err != nil {
		t.Fatal(err)
	}
	for {
		var hdr [5]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			t.Fatalf("startup: %v", err)
		}
		body := make([]byte, int(hdr[1])<<24|int(hdr[2])<<16|int(hdr[3])<<8|int(hdr[4])-4)
		if _, err := io.ReadFull(c, body); err != nil {
			t.Fatalf("startup: %v", err)
		}
		if hdr[0] == 'Z' {
			return c
		}
	}
}

// TestFastRelayObservedMidStream: a statement for the observer arrives,
// between two others, while the upstream is halfway through a large row.
// Where it fits the buffer, the fast relay keeps the connection: the
// client's bytes wait while ObserveQuery runs on a goroutine and the
// row goes on. Where it does not, the goroutine relay takes over with the
// rest of the row, the statement framed but not yet written, the
// statements not yet framed and the counters. Either way the row
// arrives whole, every statement reaches the upstream once, the observer
// sees the flagged statement (and, after a handover, every later one),
// and its notice comes before the right ReadyForQuery.
func TestFastRelayObservedMidStream(t *testing.T) {
	for _, tc := range []struct {
		name     string
		third    string // the statement for the observer
		demoted  bool
		observed int // statements the observer sees, from the third on
	}{
		{name: "kept", third: "select 3 -- observe me", observed: 1},
		{name: "demoted", third: "select 3 -- observe me " + strings.Repeat("x", 5000), demoted: true, observed: 2},
	} {
		t.Run(tc.name, func(t *testing.T) { testObservedMidStream(t, tc.third, tc.demoted, tc.observed) })
	}
}

func testObservedMidStream(t *testing.T, third string, demoted bool, observed int) {
	ctx := testCtx(t, 30*time.Second)
	ends := make(fastEnds, 4)
	row := encodeAll(t, &pgproto3.DataRow{Values: [][]byte{bytes.Repeat([]byte("r"), 100_000)}})
	const sent = 1000 // of row, before the statement for the observer
	resume := make(chan struct{})
	upstreamGot := make(chan []string, 1)
	addr := fakeBackend(t, func(be *pgproto3.Backend, conn net.Conn) {
		if err := fakeStartup(be); err != nil {
			t.Error(err)
			return
		}
		var got []string
		defer func() { upstreamGot <- got }()
		for i := range 4 {
			msg, err := be.Receive()
			if err != nil {
				t.Errorf("fake backend: %v", err)
				return
			}
			q, ok := msg.(*pgproto3.Query)
			if !ok {
				t.Errorf("fake backend got %T, want Query", msg)
				return
			}
			got = append(got, q.String)
			if i == 0 {
				conn.Write(row[:sent])
				select {
				case <-resume:
				case <-ctx.Done():
					return
				}
				conn.Write(row[sent:])
			}
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if err := be.Flush(); err != nil {
				t.Error(err)
				return
			}
		}
	})
	obs := &markObserver{}
	opts := fakeOpts(addr)
	opts.Observer = obs
	k := ends.knobs()
	k.bufferSize = 4096 // the row takes many reads
	p := startProxy(t, opts, k)
	c := rawFakeClient(t, ctx, p)

	if _, err := c.Write(encodeAll(t, &pgproto3.Query{String: "select big"})); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, sent)
	if _, err := io.ReadFull(c, first); err != nil {
		t.Fatal(err)
	}
	// In one write, so one read: the first is framed, the second stops
	// the fast relay, the third waits in its buffer.
	if _, err := c.Write(encodeAll(t, &pgproto3.Query{String: "select 2"},
		&pgproto3.Query{String: third}, &pgproto3.Query{String: "select 4"})); err != nil {
		t.Fatal(err)
	}
	if demoted && !ends.next(t, ctx) {
		t.Fatal("connection ended instead of moving to the goroutine relay")
	}
	close(resume)

	fe := pgproto3.NewFrontend(io.MultiReader(bytes.NewReader(first), c), io.Discard)
	var got []string
	for rfq := 0; rfq < 4; {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if len(m.Values) != 1 || !bytes.Equal(m.Values[0], bytes.Repeat([]byte("r"), 100_000)) {
				t.Fatal("the row was damaged by the handover")
			}
			got = append(got, "row")
		case *pgproto3.CommandComplete:
			got = append(got, "complete")
		case *pgproto3.NoticeResponse:
			got = append(got, "notice: "+m.Message)
		case *pgproto3.ReadyForQuery:
			got = append(got, "ready")
			rfq++
		default:
			t.Fatalf("unexpected %T", msg)
		}
	}
	want := []string{"row", "complete", "ready", "complete", "ready",
		"complete", "notice: seen " + third, "ready", "complete", "ready"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("client got\n%q\nwant\n%q", got, want)
	}
	if s := obs.statements(); fmt.Sprint(s) != fmt.Sprint([]string{third, "select 4"}[:observed]) {
		t.Fatalf("observer saw %q; want %d statements from the third on", s, observed)
	}
	c.Close()
	if !demoted && ends.next(t, ctx) {
		t.Fatal("connection moved to the goroutine relay")
	}
	select {
	case up := <-upstreamGot:
		if fmt.Sprint(up) != fmt.Sprint([]string{"select big", "select 2", third, "select 4"}) {
			t.Fatalf("upstream got %q", up)
		}
	case <-ctx.Done():
		t.Fatal("fake backend did not finish")
	}
}

// pump writes total bytes of CopyData frames to w. The first write that
// makes no progress for a second closes blocked: the path to the reader
// is full, so nothing on it holds more than its buffers. It returns how
// much was written by then (total if it never blocked).
func pump(w net.Conn, total int, blocked chan struct{}) (blockedAt int, err error) {
	frame, err := (&pgproto3.CopyData{Data: bytes.Repeat([]byte("c"), 64<<10-5)}).Encode(nil)
	if err != nil {
		return 0, err
	}
	chunk := bytes.Repeat(frame, 16)
	blockedAt = total
	for written := 0; written < total; {
		if blocked != nil {
			w.SetWriteDeadline(time.Now().Add(time.Second))
		}
		off := written % len(chunk)
		n, err := w.Write(chunk[off:min(len(chunk), off+total-written)])
		written += n
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			blockedAt = written
			close(blocked)
			blocked = nil
			w.SetWriteDeadline(time.Time{})
			continue
		}
		if err != nil {
			return blockedAt, err
		}
	}
	if blocked != nil {
		close(blocked)
	}
	return blockedAt, nil
}

// drain reads CopyData frames until want bytes have arrived.
func drain(r io.Reader, want int) error {
	fe := pgproto3.NewFrontend(r, io.Discard)
	for got := 0; got < want; {
		msg, err := fe.Receive()
		if err != nil {
			return fmt.Errorf("after %d bytes: %w", got, err)
		}
		d, ok := msg.(*pgproto3.CopyData)
		if !ok {
			return fmt.Errorf("after %d bytes: got %T", got, msg)
		}
		got += 5 + len(d.Data)
	}
	return nil
}

// TestFastRelayBackpressure: a reader that does not read stops the fast
// relay from reading its writer, in both directions, and the stream then
// arrives whole.
func TestFastRelayBackpressure(t *testing.T) {
	const total = 64 << 20 // far beyond what socket buffers hold
	for _, toClient := range []bool{true, false} {
		name := map[bool]string{true: "upstream to client", false: "client to upstream"}[toClient]
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t, 60*time.Second)
			ends := make(fastEnds, 4)
			blocked := make(chan struct{})
			done := make(chan error, 1)
			var blockedAt int
			addr := fakeBackend(t, func(be *pgproto3.Backend, conn net.Conn) {
				if err := fakeStartup(be); err != nil {
					done <- err
					return
				}
				var hdr [5]byte
				if _, err := io.ReadFull(conn, hdr[:]); err != nil { // the client is relayed now
					done <- err
					return
				}
				var err error
				if toClient {
					blockedAt, err = pump(conn, total, blocked)
				} else {
					select {
					case <-blocked:
					case <-ctx.Done():
					}
					err = drain(conn, total)
				}
				done <- err
			})
			p := startProxy(t, fakeOpts(addr), ends.knobs())
			c := rawFakeClient(t, ctx, p)
			if _, err := c.Write(encodeAll(t, &pgproto3.Flush{})); err != nil {
				t.Fatal(err)
			}
			var err error
			if toClient {
				select {
				case <-blocked:
				case <-ctx.Done():
					t.Fatal("the upstream never wrote")
				}
				err = drain(c, total)
			} else {
				blockedAt, err = pump(c, total, blocked)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if blockedAt == total {
				t.Fatalf("the writer never blocked: %d bytes went in while the reader read nothing", total)
			}
			t.Logf("the writer blocked after %d MiB", blockedAt>>20)
			c.Close()
			if ends.next(t, ctx) {
				t.Fatal("connection was demoted")
			}
		})
	}
}

// TestFastRelayEndsWhileIdle: an idle connection on the fast relay ends
// as on the goroutine relay when the proxy shuts down, the client hangs
// up, or the upstream ends the session.
func TestFastRelayEndsWhileIdle(t *testing.T) {
	for _, tc := range []struct {
		name    string
		end     func(t *testing.T, ctx context.Context, p *testProxy)
		msgCode string // SQLSTATE of the FATAL the client then reads; "" for none
		endOK   func(error) bool
	}{
		{
			name: "proxy shuts down",
			end: func(t *testing.T, ctx context.Context, p *testProxy) {
				sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				defer cancel()
				if err := p.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Shutdown = %v, want DeadlineExceeded", err)
				}
			},
			msgCode: pgCodeAdminShutdown,
			endOK:   func(err error) bool { return CodeOf(err) == CodeShutdown },
		},
		{
			name: "upstream ends the session",
			end: func(t *testing.T, ctx context.Context, p *testProxy) {
				direct := connectDirect(t, ctx)
				var n int
				if err := direct.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'fast idle'").Scan(&n); err != nil || n != 1 {
					t.Errorf("terminated %d backends, %v", n, err)
				}
			},
			msgCode: pgCodeAdminShutdown,
			endOK:   func(err error) bool { return CodeOf(err) == CodeBackendRead && errors.Is(err, io.EOF) },
		},
		{
			name:  "client hangs up",
			endOK: func(err error) bool { return err == nil },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t, 30*time.Second)
			ends := make(fastEnds, 4)
			p := startProxy(t, upstreamOpts(), ends.knobs())
			cfg, err := pgx.ParseConfig(p.connString(pgtest.SuperUser, ""))
			if err != nil {
				t.Fatal(err)
			}
			cfg.RuntimeParams["application_name"] = "fast idle"
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			if _, err := conn.Exec(ctx, "SELECT 1"); err != nil {
				t.Fatal(err)
			}
			if tc.end != nil {
				tc.end(t, ctx, p)
			} else {
				conn.PgConn().Conn().Close()
			}
			if ends.next(t, ctx) {
				t.Fatal("connection was demoted")
			}
			if err := p.waitConnEnd(t, ctx); !tc.endOK(err) {
				t.Fatalf("connection ended with %v", err)
			}
			if tc.msgCode == "" {
				return
			}
			raw := conn.PgConn().Conn()
			msg, err := pgproto3.NewFrontend(raw, raw).Receive()
			if e, ok := msg.(*pgproto3.ErrorResponse); err != nil || !ok || e.Code != tc.msgCode {
				t.Fatalf("client got %#v, %v; want a FATAL %s", msg, err, tc.msgCode)
			}
		})
	}
}

// opaqueObserver cannot say which statements it needs.
type opaqueObserver struct{}

func (opaqueObserver) ObserveQuery(context.Context, *QueryEvent) Action { return Action{} }

// TestFastRelayEligibility: which connections start on the fast relay.
func TestFastRelayEligibility(t *testing.T) {
	judgingOff, err := NewJudgingOff()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		opts      func(o *Options)
		clientTLS bool
		want      bool
	}{
		{name: "no observer", opts: func(*Options) {}, want: true},
		{name: "judging off", opts: func(o *Options) { o.Observer = judgingOff }, want: true},
		{name: "observer without filter", opts: func(o *Options) { o.Observer = opaqueObserver{} }},
		{name: "disabled", opts: func(o *Options) { o.DisableFastRelay = true }},
		{name: "upstream TLS", opts: func(o *Options) { o.Upstream.TLSMode = TLSRequire }},
		// The default, prefer, against a server with TLS on (as the test
		// cluster is) means TLS, so no connection is on the fast relay
		// (docs/bench-proxy.md says so).
		{name: "upstream TLS by prefer", opts: func(o *Options) { o.Upstream.TLSMode = TLSPrefer }},
		{name: "client TLS", opts: func(o *Options) { o.ClientTLS = proxyTLSConfig(t) }, clientTLS: true},
		{name: "debug logging", opts: func(o *Options) {
			o.Logger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t, 30*time.Second)
			opts := upstreamOpts()
			tc.opts(&opts)
			var used bool // written before the connection ends, read after
			p := startProxy(t, opts, testingKnobs{onFastRelayEnd: func(uint64, bool) { used = true }})
			cfg, err := pgx.ParseConfig(p.connString(pgtest.SuperUser, ""))
			if err != nil {
				t.Fatal(err)
			}
			if tc.clientTLS {
				cfg.TLSConfig = &tls.Config{InsecureSkipVerify: true}
			}
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := conn.QueryRow(ctx, "SELECT 41 + 1").Scan(&n); err != nil || n != 42 {
				t.Fatalf("query = %d, %v", n, err)
			}
			conn.Close(ctx)
			if err := p.waitConnEnd(t, ctx); err != nil {
				t.Fatalf("connection ended with %v", err)
			}
			if used != tc.want {
				t.Fatalf("fast relay used: %v, want %v", used, tc.want)
			}
		})
	}
}

// afterObserver answers flagged Queries on the event loop (ObserveQuick)
// with After work that reports the statement on ran: a statement
// mentioning "panic" has After work that panics instead.
type afterObserver struct {
	markObserver
	ran chan string
}

func (o *afterObserver) ObserveQuick(_ context.Context, ev *QueryEvent) (QuickAction, bool) {
	sql := string(ev.SQL)
	after := func() { o.ran <- sql }
	if strings.Contains(sql, "panic") {
		after = func() { panic("after work of " + sql) }
	}
	return QuickAction{Notice: &pgproto3.NoticeResponse{Message: "quick"}, After: after}, true
}

// answerEachBackend is a fake upstream that answers every message after
// a trusting startup with a CommandComplete and a ReadyForQuery.
func answerEachBackend(t *testing.T) string {
	t.Helper()
	return fakeBackend(t, func(be *pgproto3.Backend, conn net.Conn) {
		if err := fakeStartup(be); err != nil {
			t.Error(err)
			return
		}
		for {
			if _, err := be.Receive(); err != nil {
				return
			}
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if err := be.Flush(); err != nil {
				return
			}
		}
	})
}

// TestFastRelayAfterWork: a QuickAction's After work runs on the loop,
// without another statement or event to prompt it, exactly once per
// statement; a panic in it ends neither the loop nor the connection.
func TestFastRelayAfterWork(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	addr := answerEachBackend(t)
	obs := &afterObserver{ran: make(chan string, 8)}
	opts := fakeOpts(addr)
	opts.Observer = obs
	p := startProxy(t, opts)
	c := rawFakeClient(t, ctx, p)
	fe := pgproto3.NewFrontend(c, c)
	for _, sql := range []string{"select 1 -- observe me", "select 2 -- observe me, panic", "select 3 -- observe me"} {
		fe.Send(&pgproto3.Query{String: sql})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		var notices int
		for done := false; !done; {
			msg, err := fe.Receive()
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			switch msg.(type) {
			case *pgproto3.NoticeResponse:
				notices++
			case *pgproto3.ReadyForQuery:
				done = true
			}
		}
		if notices != 1 {
			t.Errorf("%s: %d notices, want 1", sql, notices)
		}
		if strings.Contains(sql, "panic") {
			continue
		}
		awaitAfterWork(t, ctx, obs.ran, sql)
	}
	afterWorkDone(t, p, obs.ran)
}

// awaitAfterWork waits for the After work of sql to report on ran.
func awaitAfterWork(t *testing.T, ctx context.Context, ran <-chan string, sql string) {
	t.Helper()
	select {
	case got := <-ran:
		if got != sql {
			t.Errorf("After work ran for %q, want %q", got, sql)
		}
	case <-ctx.Done():
		t.Fatalf("After work of %q never ran", sql)
	}
}

// afterWorkDone checks that no After work ran beyond those awaited and
// that the connection stayed on the fast relay.
func afterWorkDone(t *testing.T, p *testProxy, ran <-chan string) {
	t.Helper()
	select {
	case got := <-ran:
		t.Errorf("After work ran again, for %q", got)
	default:
	}
	if p.relay.demoted.Load() > 0 || p.relay.goroutine.Load() > 0 {
		t.Error("the connection left the fast relay")
	}
}

// TestFastRelayRecyclesBuffers: connections that come and go on a loop
// (kept running by one that stays) reuse the loop's buffers; the read
// that ends a connection gives its buffer back instead of keeping it, so
// the loop does not allocate again for every connection.
func TestFastRelayRecyclesBuffers(t *testing.T) {
	ctx := testCtx(t, time.Minute)
	p := startProxy(t, upstreamOpts())
	keeper, err := pgx.Connect(ctx, p.connString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer keeper.Close(context.Background())
	if _, err := keeper.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	const churn = 30
	for range churn {
		c, err := pgx.Connect(ctx, p.connString(pgtest.SuperUser, ""))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
		if err := p.waitConnEnd(t, ctx); err != nil {
			t.Fatalf("connection ended with %v", err)
		}
	}
	// A connection takes a buffer for each direction it reads at once.
	if made := p.fast.made.Load(); made > 6 {
		t.Errorf("the loops allocated %d buffers for %d connections one after another", made, churn+1)
	}
	if p.relay.demoted.Load() > 0 || p.relay.goroutine.Load() > 0 {
		t.Error("a connection left the fast relay")
	}
}
