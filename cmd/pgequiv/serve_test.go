package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

func TestServeReloadAndShutdown(t *testing.T) {
	pg := pgtest.New(t, pgtest.Options{})
	dir := t.TempDir()
	path := filepath.Join(dir, "proxy.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	good := func(maxSize string) string {
		return fmt.Sprintf("listen: 127.0.0.1:0\nupstream:\n  address: %s\n  tls_mode: disable\nmax_message_size: %s\nshutdown_timeout: 5s\nlog_level: error\n", pg.Addr(), maxSize)
	}
	write(good("1MiB"))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	hup := make(chan os.Signal, 1)
	reloads := make(chan error, 1)
	port, stop := serveOn(t, ctx, path, serveEnv{
		reload:   hup,
		getenv:   func(string) string { return "" },
		stderr:   io.Discard,
		reloaded: func(err error) { reloads <- err },
	})
	connStr := pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, "")
	query := func(sql string) error {
		conn, err := pgconn.Connect(ctx, connStr)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql).ReadAll()
		return err
	}
	long := "SELECT '" + strings.Repeat("x", 4000) + "'"
	if err := query(long); err != nil {
		t.Fatalf("4 KB query under a 1 MiB limit: %v", err)
	}

	// An invalid file is refused as a whole; the old config stays.
	write(good("1KiB") + "bogus_key: 1\n")
	hup <- os.Interrupt
	if err := <-reloads; err == nil || !strings.Contains(err.Error(), "bogus_key") {
		t.Fatalf("reload of invalid file: %v", err)
	}
	if err := query(long); err != nil {
		t.Fatalf("old config not kept after a failed reload: %v", err)
	}

	// A valid file applies to new connections: now 4 KB is too large.
	write(good("1KiB"))
	hup <- os.Interrupt
	if err := <-reloads; err != nil {
		t.Fatalf("reload: %v", err)
	}
	var pgErr *pgconn.PgError
	if err := query(long); !errors.As(err, &pgErr) || pgErr.Code != "08P01" {
		t.Fatalf("4 KB query under a reloaded 1 KiB limit: %v", err)
	}

	// Shutdown: serve returns nil and the port is closed.
	stop()
	if err := query("SELECT 1"); err == nil {
		t.Fatal("proxy still serving after shutdown")
	}
}

func TestServeRejectsBadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proxy.yaml")
	os.WriteFile(path, []byte("upstream:\n  address: 127.0.0.1:1\n  tls_mode: maybe\n"), 0o600)
	err := serve(context.Background(), []string{"--config", path}, serveEnv{getenv: func(string) string { return "" }, stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "tls_mode") {
		t.Fatalf("serve with bad config: %v", err)
	}
}

// TestRunServeSignals exercises runServe's real signal wiring: SIGHUP
// reloads, SIGTERM shuts down gracefully and makes runServe return nil.
// Signals go to this test process; runServe has them registered before the
// proxy accepts the first connection, which the test waits for.
func TestRunServeSignals(t *testing.T) {
	pg := pgtest.New(t, pgtest.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	path := filepath.Join(t.TempDir(), "proxy.yaml")
	body := fmt.Sprintf("listen: 127.0.0.1:%d\nupstream:\n  address: %s\n  tls_mode: disable\nlog_level: error\nshutdown_timeout: 2s\n", port, pg.Addr())
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runServe(context.Background(), []string{"--config", path}, io.Discard, io.Discard) }()

	connStr := pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, "")
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var conn *pgconn.PgConn
	for conn == nil {
		c, err := pgconn.Connect(ctx, connStr)
		if err == nil {
			conn = c
			break
		}
		select {
		case err := <-done:
			t.Fatalf("runServe exited early: %v", err)
		case <-ctx.Done():
			t.Fatalf("proxy never came up: %v", err)
		case <-tick.C:
		}
	}
	defer conn.Close(ctx)

	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT 1").ReadAll(); err != nil {
		t.Fatalf("query after SIGHUP: %v", err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The open session is ended at the 2s shutdown timeout.
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runServe after SIGTERM: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("runServe did not return after SIGTERM")
	}
	_, err = conn.Exec(ctx, "SELECT 1").ReadAll()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57P01" {
		t.Fatalf("session after shutdown: %v, want admin_shutdown", err)
	}
}

// TestServeJudge wires the judge and the admin console from proxy.yaml:
// annotate mode with a DDL file, then RELOAD from the console into
// enforce mode; the verdicts are in the verdict_log file, which a
// restarted proxy reads back.
func TestServeJudge(t *testing.T) {
	pg := pgtest.New(t, pgtest.Options{})
	dir := t.TempDir()
	ddl := "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL);"
	if err := os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(ddl), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "proxy.yaml")
	write := func(mode string) {
		t.Helper()
		body := fmt.Sprintf("listen: 127.0.0.1:0\nupstream:\n  address: %s\n  tls_mode: disable\nlog_level: error\nshutdown_timeout: 5s\n"+
			"mode: %s\nschema:\n  files: [schema.sql]\nadmin:\n  users: [%s]\n  auth: trust\nverdict_log: verdicts.jsonl\n", pg.Addr(), mode, pgtest.SuperUser)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("annotate")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env := serveEnv{getenv: func(string) string { return "" }, stderr: io.Discard}
	port, stop := serveOn(t, ctx, path, env)
	direct, err := pgconn.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	if _, err := direct.Exec(ctx, ddl+"INSERT INTO t VALUES (1, 10);").ReadAll(); err != nil {
		t.Fatal(err)
	}

	var notices []string
	cfg, err := pgconn.ParseConfig(pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET pgequiv.reference = 'SELECT count(*) FROM t'").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT count(v) FROM t").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 1 || !strings.HasPrefix(notices[0], "pgequiv: equivalent") {
		t.Fatalf("notices %q", notices)
	}

	adminConn, err := pgconn.Connect(ctx, pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, "")+" dbname=pgequiv")
	if err != nil {
		t.Fatal(err)
	}
	defer adminConn.Close(ctx)
	show := func(sql string) string { t.Helper(); return adminRows(t, ctx, adminConn, sql) }
	if out := show("SHOW CONFIG"); !strings.Contains(out, "mode|annotate|") {
		t.Fatalf("SHOW CONFIG:\n%s", out)
	}
	write("enforce")
	show("RELOAD")
	if out := show("SHOW CONFIG"); !strings.Contains(out, "mode|enforce|") {
		t.Fatalf("SHOW CONFIG after RELOAD:\n%s", out)
	}
	_, err = conn.Exec(ctx, "SELECT count(v), 2 FROM t").ReadAll()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "PGQ01" {
		t.Fatalf("after RELOAD into enforce: %v", err)
	}
	if out := show("SHOW STATS"); !strings.Contains(out, "refusals|1|") || !strings.Contains(out, "tagged|2|") {
		t.Fatalf("SHOW STATS:\n%s", out)
	}
	conn.Close(ctx)
	adminConn.Close(ctx)
	stop()

	// A restart reads the verdicts back from verdict_log.
	port, stop = serveOn(t, ctx, path, env)
	if adminConn, err = pgconn.Connect(ctx, pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, "")+" dbname=pgequiv"); err != nil {
		t.Fatal(err)
	}
	out := show("SHOW DIVERGENCES")
	if !strings.Contains(out, "|equivalent|1|") || !strings.Contains(out, "|not_equivalent|1|") {
		t.Fatalf("SHOW DIVERGENCES after a restart:\n%s", out)
	}
	// One row; its counterexample column spans lines of its own.
	if out := show("SHOW VERDICTS WHERE action = 'refused'"); strings.Count(out, "|refused|") != 1 || !strings.Contains(out, "-- reference returns") {
		t.Fatalf("refused verdicts after a restart:\n%s", out)
	}
	adminConn.Close(ctx)
	stop()
}

// adminRows runs sql on an admin console connection and returns its
// rows, each value followed by '|', one row a line.
func adminRows(t *testing.T, ctx context.Context, adminConn *pgconn.PgConn, sql string) string {
	t.Helper()
	res, err := adminConn.Exec(ctx, sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var b strings.Builder
	for _, r := range res {
		for _, row := range r.Rows {
			for _, v := range row {
				b.Write(v)
				b.WriteByte('|')
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}
