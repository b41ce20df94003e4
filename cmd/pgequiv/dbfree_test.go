package main

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// startShippedConfig runs serve with the repository's proxy.yaml as
// shipped, except on a free port (PGEQUIV_LISTEN), and returns the port.
func startShippedConfig(t *testing.T, ctx context.Context) int {
	t.Helper()
	return startServe(t, ctx, "../../proxy.yaml", func(k string) string {
		if k == config.EnvListen {
			return "127.0.0.1:0"
		}
		return ""
	})
}

// startServe runs serve with the config file at path and getenv as its
// environment, stops it when the test ends, and returns its port.
func startServe(t *testing.T, ctx context.Context, path string, getenv func(string) string) int {
	t.Helper()
	port, stop := serveOn(t, ctx, path, serveEnv{reload: make(chan os.Signal), getenv: getenv, stderr: io.Discard})
	t.Cleanup(stop)
	return port
}

// serveOn runs serve with the config file at path and env (whose
// listening it sets), and returns its port once it listens; stop ends it
// and checks that it returned nil.
func serveOn(t *testing.T, ctx context.Context, path string, env serveEnv) (port int, stop func()) {
	t.Helper()
	runCtx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel) // ends serve if the test fails before stop
	addrCh := make(chan net.Addr, 1)
	done := make(chan error, 1)
	env.listening = func(a net.Addr) { addrCh <- a }
	go func() { done <- serve(runCtx, []string{"--config", path}, env) }()
	stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	select {
	case a := <-addrCh:
		return a.(*net.TCPAddr).Port, stop
	case err := <-done:
		cancel()
		t.Fatalf("serve exited: %v", err)
	case <-ctx.Done():
		cancel()
		<-done
		t.Fatal("serve did not start")
	}
	return 0, nil
}

// TestShippedConfigPsql: the shipped proxy.yaml runs database-free with
// the example schema; psql (simple protocol) gets the verdict row.
func TestShippedConfigPsql(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	port := startShippedConfig(t, ctx)
	psql, err := exec.LookPath("psql")
	if err != nil {
		bin, berr := pgtest.FindBinDir()
		if berr != nil {
			t.Fatalf("psql not found (run scripts/install-test-deps.sh): %v", err)
		}
		psql = bin + "/psql"
	}
	cmd := exec.CommandContext(ctx, psql, "-X", "-A", "-F", "|", "-v", "ON_ERROR_STOP=1",
		"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "anyone", "-d", "pgequiv",
		"-c", "SELECT * FROM pgequiv.check('SELECT COUNT(*) FROM dogs','SELECT COUNT(owner_id) FROM dogs')")
	cmd.Env = append(os.Environ(), "PGSSLMODE=prefer", "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0] != "label|score|assumptions|rules|differences|counterexample" || lines[2] != "(1 row)" {
		t.Fatalf("psql output:\n%s", out)
	}
	row := strings.Split(lines[1], "|")
	if row[0] != "equivalent" || !strings.Contains(row[3], "count-star-not-null") {
		t.Fatalf("psql row %q", lines[1])
	}

	// Anything else is an error, and psql says so.
	cmd = exec.CommandContext(ctx, psql, "-X", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "anyone", "-c", "SELECT * FROM dogs")
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "database-free mode answers only pgequiv.check(...) and tagged queries") {
		t.Fatalf("untagged query through psql: %v\n%s", err, out)
	}
}

// TestShippedConfigPgx: the same through pgx's extended protocol, with
// parameters and a prepared statement.
func TestShippedConfigPgx(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	port := startShippedConfig(t, ctx)
	conn, err := pgx.Connect(ctx, pgtest.ConnString("127.0.0.1", port, "anyone", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var label, assumptions, rules, differences string
	var counterexample *string
	var score float64
	err = conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", "SELECT COUNT(*) FROM dogs", "SELECT COUNT(owner_id) FROM dogs").
		Scan(&label, &score, &assumptions, &rules, &differences, &counterexample)
	if err != nil || label != "equivalent" || score < 0.5 || !strings.Contains(rules, "count-star-not-null") || counterexample != nil {
		t.Fatalf("pgx: %q %v %q %v %v", label, score, rules, counterexample, err)
	}
}

// TestDatabaseFreeReload: SIGHUP re-reads the file for new connections;
// an invalid file, or one that switches to relaying, keeps the running
// config.
func TestDatabaseFreeReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proxy.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	withPassword := func(pw string) string {
		return "listen: 127.0.0.1:0\nupstream: none\npassword: " + pw + "\nshutdown_timeout: 1s\nlog_level: error\n"
	}
	write(withPassword("first"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	hup := make(chan os.Signal, 1)
	reloads := make(chan error, 1)
	port, stop := serveOn(t, ctx, path, serveEnv{
		reload: hup, getenv: func(string) string { return "" }, stderr: io.Discard,
		reloaded: func(err error) { reloads <- err },
	})
	login := func(pw string) error {
		conn, err := pgx.Connect(ctx, pgtest.ConnString("127.0.0.1", port, "u", pw))
		if err != nil {
			return err
		}
		var label string
		err = conn.QueryRow(ctx, "SELECT label FROM pgequiv.check('SELECT 1', 'SELECT 1')").Scan(&label)
		conn.Close(ctx)
		return err
	}
	if err := login("first"); err != nil {
		t.Fatalf("first password: %v", err)
	}
	write(withPassword("second"))
	hup <- os.Interrupt
	if err := <-reloads; err != nil {
		t.Fatalf("reload: %v", err)
	}
	if err := login("second"); err != nil {
		t.Fatalf("second password after reload: %v", err)
	}
	if err := login("first"); err == nil {
		t.Fatal("old password accepted after reload")
	}
	for _, bad := range []string{
		withPassword("third") + "bogus_key: 1\n",
		"listen: 127.0.0.1:0\nupstream:\n  address: 127.0.0.1:5432\n",
		withPassword("third") + "schemas: [/nonexistent/schema.sql]\n",
	} {
		write(bad)
		hup <- os.Interrupt
		if err := <-reloads; err == nil {
			t.Fatalf("reload of %q succeeded", bad)
		}
		if err := login("second"); err != nil {
			t.Fatalf("running config not kept after a failed reload: %v", err)
		}
	}
	stop()
}

// TestServeStopsJudgeWorkers: the shipped config judges in worker
// processes (judge_isolation: process), and shutting down leaves none.
func TestServeStopsJudgeWorkers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	t.Run("serve", func(t *testing.T) {
		port := startShippedConfig(t, ctx)
		conn, err := pgx.Connect(ctx, pgtest.ConnString("127.0.0.1", port, "anyone", ""))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var label string
		if err := conn.QueryRow(ctx, "SELECT label FROM pgequiv.check('SELECT COUNT(*) FROM dogs', 'SELECT COUNT(owner_id) FROM dogs')").Scan(&label); err != nil || label != "equivalent" {
			t.Fatalf("check: %q %v", label, err)
		}
		if n := len(childWorkers(t)); n == 0 {
			t.Fatal("no judge-worker child process while serving")
		}
	})
	if pids := childWorkers(t); len(pids) != 0 {
		t.Fatalf("judge workers left after shutdown: %v", pids)
	}
}
