package exec_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// pgConn starts a throwaway PostgreSQL cluster, connects to it as the
// superuser and runs setup (DDL and rows; none when empty). The
// connection closes when the test ends.
func pgConn(t *testing.T, ctx context.Context, setup string) *pgx.Conn {
	t.Helper()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if setup != "" {
		if _, err := conn.Exec(ctx, setup); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// checkExecutes plans every query of queries and cannot over schema and
// runs it on db: those of cannot must be refused as "cannot execute",
// the others must not be, except where also(err) excuses a refusal that
// depends on the instance.
func checkExecutes(t *testing.T, ctx context.Context, schema *catalog.Schema, db exec.Database, queries, cannot []string, also func(error) bool) {
	t.Helper()
	for _, q := range append(append([]string(nil), queries...), cannot...) {
		p, err := planner.Plan(ctx, schema, q, planner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		_, err = exec.Execute(ctx, p, db)
		wantCannot := slices.Contains(cannot, q)
		got := errors.Is(err, exec.ErrCannotExecute)
		if got != wantCannot && !(got && also != nil && also(err)) {
			t.Errorf("%s: cannot execute = %v (%v), want %v", q, got, err, wantCannot)
		}
	}
}
