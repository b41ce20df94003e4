package main

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
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
	runCtx, stop := context.WithCancel(ctx)
	addrCh := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(runCtx, []string{"--config", "../../proxy.yaml"}, serveEnv{
			reload: make(chan os.Signal),
			getenv: func(k string) string {
				if k == config.EnvListen {
					return "127.0.0.1:0"
				}
				return ""
			},
			stderr:    io.Discard,
			listening: func(a net.Addr) { addrCh <- a },
		})
	}()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case a := <-addrCh:
		return a.(*net.TCPAddr).Port
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	case <-ctx.Done():
		t.Fatal("serve did not start")
	}
	return 0
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
	if len(lines) != 3 || lines[0] != "label|score|assumptions|rules|differences" || lines[2] != "(1 row)" {
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
	var score float64
	err = conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", "SELECT COUNT(*) FROM dogs", "SELECT COUNT(owner_id) FROM dogs").
		Scan(&label, &score, &assumptions, &rules, &differences)
	if err != nil || label != "equivalent" || score < 0.5 || !strings.Contains(rules, "count-star-not-null") {
		t.Fatalf("pgx: %q %v %q %v", label, score, rules, err)
	}
}
