//go:build linux

package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
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
