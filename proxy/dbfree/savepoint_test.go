package dbfree

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// savepointScripts are statement sequences whose every answer (SQLSTATE
// or success, and the transaction status after it) must be the same from
// database-free mode and from PostgreSQL. failStmt fails a transaction on
// both, with different codes (dbfree refuses it with 0A000, PostgreSQL
// divides by zero), so its code is compared as "error".
const failStmt = "SELECT 1/0"

var savepointScripts = []struct {
	name  string
	stmts []string
}{
	{"outside a block", []string{"SAVEPOINT a", "RELEASE SAVEPOINT a", "ROLLBACK TO SAVEPOINT a", "RELEASE a"}},
	{"define release", []string{"BEGIN", "SAVEPOINT a", "SAVEPOINT b", "RELEASE a", "RELEASE b", "COMMIT"}},
	{"unknown release fails the block", []string{"BEGIN", "SAVEPOINT a", "RELEASE nope", "SELECT 1", "ROLLBACK TO a", "SELECT 1", "COMMIT"}},
	{"rollback to recovers", []string{"BEGIN", "SAVEPOINT a", failStmt, "SELECT 1", "SAVEPOINT b", "RELEASE a",
		"ROLLBACK TO SAVEPOINT a", "RELEASE a", "ROLLBACK"}},
	{"rollback to keeps the savepoint", []string{"BEGIN", "SAVEPOINT a", "SAVEPOINT b", "ROLLBACK TO a", "RELEASE b",
		"ROLLBACK TO a", "ROLLBACK TO a", "RELEASE a", "RELEASE a", "ROLLBACK"}},
	{"duplicate names", []string{"BEGIN", "SAVEPOINT a", "SAVEPOINT a", "RELEASE a", "RELEASE a", "RELEASE a", "ROLLBACK"}},
	{"unknown rollback to in a failed block", []string{"BEGIN", "SAVEPOINT a", failStmt, "ROLLBACK TO b", "SAVEPOINT c", "ROLLBACK TO a", "COMMIT"}},
	{"commit of a failed block is a rollback", []string{"BEGIN", failStmt, "COMMIT", "BEGIN", "SAVEPOINT a", failStmt, "END", "COMMIT"}},
	{"commit clears", []string{"BEGIN", "SAVEPOINT a", "COMMIT", "BEGIN", "RELEASE a", "ROLLBACK"}},
}

// answers runs stmts on conn (simple protocol) and returns one line per
// statement: its SQLSTATE ("ok" when it succeeded), its command tag
// (COMMIT of a failed block answers ROLLBACK) and the status after.
func answers(ctx context.Context, t *testing.T, conn *pgx.Conn, stmts []string) []string {
	t.Helper()
	var out []string
	for _, s := range stmts {
		tag, err := conn.Exec(ctx, s, pgx.QueryExecModeSimpleProtocol)
		code := "ok"
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			code = pe.Code
			if s == failStmt {
				code = "error"
			}
		} else if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		out = append(out, s+" -> "+code+" "+tag.String()+" "+string(conn.PgConn().TxStatus()))
	}
	return out
}

// TestSavepointsAsPostgres compares each script's answers with a real
// PostgreSQL's.
func TestSavepointsAsPostgres(t *testing.T) {
	cl := pgtest.New(t, pgtest.Options{})
	s := startServer(t, Options{})
	ctx := testCtx(t)
	real, err := pgx.Connect(ctx, cl.ConnString("postgres", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close(context.Background())
	free := s.connect(t, ctx, pgx.QueryExecModeSimpleProtocol)
	for _, sc := range savepointScripts {
		t.Run(sc.name, func(t *testing.T) {
			want := answers(ctx, t, real, sc.stmts)
			got := answers(ctx, t, free, sc.stmts)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("database-free:\n%s\nPostgreSQL:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestPsycopg3NestedTransactions: psycopg 3's nested transaction()
// blocks use SAVEPOINT / RELEASE / ROLLBACK TO; an exception inside the
// inner block rolls back to its savepoint and the outer block goes on.
func TestPsycopg3NestedTransactions(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, with python3-psycopg
	if out, err := exec.Command(python, "-c", "import psycopg").CombinedOutput(); err != nil {
		t.Fatalf("python3-psycopg missing (run scripts/install-test-deps.sh): %v\n%s", err, out)
	}
	s := startServer(t, Options{})
	ctx := testCtx(t)
	script := `
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    with conn.transaction():
        with conn.transaction():
            conn.execute("SELECT 1")
        try:
            with conn.transaction():
                conn.execute("SELECT 1")
                raise ValueError("inner")
        except ValueError:
            pass
        try:
            with conn.transaction():
                conn.execute("SELECT name FROM dogs")
        except psycopg.errors.FeatureNotSupported:
            pass
        print(conn.info.transaction_status.name, conn.execute("SELECT 1").fetchone()[0])
    print(conn.info.transaction_status.name)
`
	out, err := exec.CommandContext(ctx, python, "-c", script, s.connString("")).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "INTRANS 1\nIDLE" {
		t.Fatalf("psycopg 3 nested transactions: %v\n%s", err, out)
	}
}
