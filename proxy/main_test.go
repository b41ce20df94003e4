package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy/internal/proxytest"
)

// pg is the PostgreSQL cluster shared by the package's tests.
var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	c, err := pgtest.Start(pgtest.Options{TLS: true, MaxConnections: 600})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pg = c
	code := m.Run()
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

var leakChecked sync.Map // testing.TB → true

// testProxy is a running Server on a loopback port.
type testProxy struct {
	*Server
	Host string
	Port int
	// ends receives every connection's final error.
	ends chan connEnd
}

type connEnd struct {
	id  uint64
	err error
}

// upstreamOpts returns Options pointing at the shared cluster without TLS.
func upstreamOpts() Options {
	return Options{
		Upstream: Upstream{Address: pg.Addr(), TLSMode: TLSDisable},
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	}
}

// startProxy serves opts on a free loopback port. Cleanup closes the server
// and checks that no proxy goroutine is left.
func startProxy(t testing.TB, opts Options, knobs ...testingKnobs) *testProxy {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	// The leak check is registered once per test, before any server's
	// cleanup, so it runs after all of them.
	if _, loaded := leakChecked.LoadOrStore(t, true); !loaded {
		t.Cleanup(func() {
			leakChecked.Delete(t)
			checkNoLeaks(t)
		})
	}
	p := &testProxy{Server: s, Host: "127.0.0.1", ends: make(chan connEnd, 4096)}
	k := testingKnobs{}
	if len(knobs) > 0 {
		k = knobs[0]
	}
	user := k.onConnEnd
	k.onConnEnd = func(id uint64, err error) {
		if user != nil {
			user(id, err)
		}
		select {
		case p.ends <- connEnd{id, err}:
		default:
		}
	}
	s.setTestingKnobs(k)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.Port = ln.Addr().(*net.TCPAddr).Port
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return p
}

func (p *testProxy) connString(user, password string) string {
	return pgtest.ConnString(p.Host, p.Port, user, password)
}

func (p *testProxy) connect(t testing.TB, ctx context.Context, user, password string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, p.connString(user, password))
	if err != nil {
		t.Fatalf("connect through proxy as %s: %v", user, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func connectDirect(t testing.TB, ctx context.Context) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func dbConnString(host string, port int, user, password, db string) string {
	return pgtest.ConnString(host, port, user, password) + " dbname=" + db
}

func testCtx(t testing.TB, d time.Duration) context.Context { return proxytest.Ctx(t, d) }

// checkNoLeaks fails if any goroutine is still running proxy code. Close
// waits for every connection goroutine, so none may remain.
func checkNoLeaks(t testing.TB) {
	t.Helper()
	proxytest.CheckNoLeaks(t, proxyMarkers...)
}

// proxyMarkers pick the goroutines started by the proxy package out of a
// stack dump: connections, servers and fast relay loops.
var proxyMarkers = []string{"pgequiv/proxy.(*conn)", "pgequiv/proxy.(*Server)", "pgequiv/proxy.(*fastLoop)"}

// proxyGoroutines returns the stacks of live goroutines started by the
// proxy package.
func proxyGoroutines() []string { return proxytest.Goroutines(proxyMarkers...) }

func caPool(t testing.TB) *x509.CertPool {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pg.CACertPEM) {
		t.Fatal("bad CA PEM")
	}
	return pool
}

func proxyTLSConfig(t testing.TB) *tls.Config {
	cfg, err := pgtest.ServerTLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// waitConnEnd returns the final error of the next connection to end.
func (p *testProxy) waitConnEnd(t testing.TB, ctx context.Context) error {
	t.Helper()
	select {
	case e := <-p.ends:
		return e.err
	case <-ctx.Done():
		t.Fatal("no connection ended")
		return nil
	}
}
