package dbfree

import (
	"database/sql"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/lib/pq"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestPsqlSCRAM: libpq (psql) authenticates with SCRAM-SHA-256, checks the
// server's signature, and reads the verdict row; a wrong password is
// refused with 28P01.
func TestPsqlSCRAM(t *testing.T) {
	s := startServer(t, Options{Password: "pw-for-psql"})
	ctx := testCtx(t)
	psql, err := exec.LookPath("psql")
	if err != nil {
		dir, derr := pgtest.FindBinDir()
		if derr != nil {
			t.Fatalf("psql not found (run scripts/install-test-deps.sh): %v", err)
		}
		psql = filepath.Join(dir, "psql")
	}
	host, port, _ := net.SplitHostPort(s.addr)
	run := func(password string) (string, error) {
		cmd := exec.CommandContext(ctx, psql, "-X", "-A", "-t", "-h", host, "-p", port, "-U", "someone", "-d", "pgequiv",
			"-c", "SELECT label, rules FROM pgequiv.check('"+countStar+"', '"+countOwner+"')")
		cmd.Env = append(os.Environ(), "PGPASSWORD="+password, "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("pw-for-psql")
	if err != nil || strings.TrimSpace(out) != "equivalent|count-star-not-null" {
		t.Fatalf("psql with the password: %v\n%s", err, out)
	}
	out, err = run("not-it")
	if err == nil || !strings.Contains(out, "password authentication failed") {
		t.Fatalf("psql with a wrong password: %v\n%s", err, out)
	}
}

// TestLibPQDriver: lib/pq through database/sql (unnamed extended-protocol
// statements, text results).
func TestLibPQDriver(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	db, err := sql.Open("postgres", s.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var label string
	var score float64
	if err := db.QueryRowContext(ctx, "SELECT label, score FROM pgequiv.check($1, $2)", countStar, countOwner).Scan(&label, &score); err != nil || label != "equivalent" || score < 0.5 {
		t.Fatalf("lib/pq: %q %v %v", label, score, err)
	}
	if _, err := db.ExecContext(ctx, "SELECT name FROM dogs"); err == nil || !strings.Contains(err.Error(), "database-free mode answers only") {
		t.Fatalf("lib/pq untagged: %v", err)
	}
}
