package judging

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
)

// This file is the relay harness of the judging tests: a PostgreSQL
// cluster and proxy servers observed by Judging. Package proxy's tests
// have their own, with the server's testing knobs, which this package
// cannot reach; this one watches connections end through ActiveConns.

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

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// checkNoLeaks fails if any goroutine is still running proxy or judging
// code. Close waits for every connection goroutine, and Judging.Wait for
// every background judgement, so none may remain.
func checkNoLeaks(t testing.TB) {
	t.Helper()
	// Goroutines that already returned can still show in a stack dump for
	// a moment (in runtime.goexit1); poll, yielding the processor, until
	// only real leftovers remain or the deadline passes.
	deadline := time.Now().Add(5 * time.Second)
	for {
		leaks := proxyGoroutines()
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

// proxyGoroutines returns the stacks of live goroutines started by the
// proxy and judging packages: connections, servers, fast relay loops,
// background judgements and schema loads.
func proxyGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		if strings.Contains(s, "runtime.goexit1(") {
			continue // exiting
		}
		if strings.Contains(s, "pgequiv/proxy.(*conn)") || strings.Contains(s, "pgequiv/proxy.(*Server)") ||
			strings.Contains(s, "pgequiv/proxy/judging.(*Judging)") || strings.Contains(s, "pgequiv/proxy/judging.(*schemaCache)") ||
			strings.Contains(s, "pgequiv/proxy.(*fastLoop)") {
			out = append(out, s)
		}
	}
	return out
}

func clientBin(t testing.TB, name string) string {
	t.Helper()
	path, err := pg.ClientBin(name)
	if err != nil {
		t.Fatalf("%s not found (run scripts/install-test-deps.sh): %v", name, err)
	}
	return path
}

func runTool(t testing.TB, ctx context.Context, env []string, bin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// nodeDir holds the node-postgres client script (see test/node).
const nodeDir = "../../test/node"

// ensureNodeClient returns the node binary once test/node's dependencies
// are installed (scripts/install-test-deps.sh does that; this installs them
// if they are missing). It skips the test when node or npm is missing or
// npm cannot reach the registry.
func ensureNodeClient(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; run scripts/install-test-deps.sh")
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "pg")); err == nil {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not installed; run scripts/install-test-deps.sh")
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = nodeDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm ci in %s failed (offline?): %v\n%s", nodeDir, err, out)
	}
	return node
}
