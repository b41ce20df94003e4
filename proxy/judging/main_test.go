package judging

import (
	"context"
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
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/internal/proxytest"
)

// This file is the relay harness of the judging tests: a PostgreSQL
// cluster and proxy servers observed by Judging, over the parts shared
// with package proxy's tests (proxy/internal/proxytest). Proxy's own
// harness sets the server's testing knobs, which this package cannot
// reach; this one watches connections end through ActiveConns.

// pg is the PostgreSQL cluster shared by the package's tests.
var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	if os.Getenv(envJudgeWorker) == "1" {
		runTestJudgeWorker() // this binary is a judge worker of isolation_test.go
	}
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

// testProxy is a running proxy.Server on a loopback port.
type testProxy struct {
	*proxy.Server
	Host string
	Port int
}

// upstreamOpts returns Options pointing at the shared cluster without TLS.
func upstreamOpts() proxy.Options {
	return proxy.Options{
		Upstream: proxy.Upstream{Address: pg.Addr(), TLSMode: proxy.TLSDisable},
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	}
}

// startProxy serves opts on a free loopback port. Cleanup closes the server
// and checks that no proxy goroutine is left.
func startProxy(t testing.TB, opts proxy.Options) *testProxy {
	t.Helper()
	s, err := proxy.New(opts)
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
	p := &testProxy{Server: s, Host: "127.0.0.1"}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.Port = ln.Addr().(*net.TCPAddr).Port
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-served; !errors.Is(err, proxy.ErrServerClosed) {
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

// waitConnsEnd waits until the server has no connection left.
func (p *testProxy) waitConnsEnd(t testing.TB, ctx context.Context) {
	t.Helper()
	for p.ActiveConns() > 0 {
		select {
		case <-ctx.Done():
			t.Fatal("no connection ended")
		case <-time.After(10 * time.Millisecond):
		}
	}
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

// nodeDir holds the node-postgres client script (see test/node).
const nodeDir = "../../test/node"

func testCtx(t testing.TB, d time.Duration) context.Context { return proxytest.Ctx(t, d) }

// checkNoLeaks fails if any goroutine is still running proxy or judging
// code: connections, servers, fast relay loops, background judgements or
// schema loads. Close waits for every connection goroutine, and
// Judging.Wait for every background judgement, so none may remain.
func checkNoLeaks(t testing.TB) {
	t.Helper()
	proxytest.CheckNoLeaks(t, "pgequiv/proxy.(*conn)", "pgequiv/proxy.(*Server)", "pgequiv/proxy.(*fastLoop)",
		"pgequiv/proxy/judging.(*Judging)", "pgequiv/proxy/judging.(*schemaCache)")
}

func clientBin(t testing.TB, name string) string {
	t.Helper()
	return proxytest.ClientBin(t, pg, name)
}

func runTool(t testing.TB, ctx context.Context, env []string, bin string, args ...string) string {
	t.Helper()
	return proxytest.RunTool(t, ctx, env, bin, args...)
}

// ensureNodeClient returns the node binary once test/node's dependencies
// are installed (see proxytest.EnsureNodeClient).
func ensureNodeClient(t *testing.T) string {
	t.Helper()
	return proxytest.EnsureNodeClient(t, nodeDir)
}
