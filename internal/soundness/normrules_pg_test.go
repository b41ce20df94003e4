package soundness_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestNormRuleFilesOnPostgres: each case of the normalizer's rule files
// with a b query (one that normalizes to a's plan) returns a's rows, as
// a bag, on a real PostgreSQL loaded in turn with the first generated
// databases the executor ran a on, so that the engine itself, not only
// the executor's model of it, vouches for the rewrite.
func TestNormRuleFilesOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ddl, cases := runNormRuleFiles(t)
	if len(cases) == 0 {
		t.Fatal("no case with a b query")
	}
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := pgtest.New(t, pgtest.Options{}).Connect(t)
	runs := 0
	for _, c := range cases {
		for i, db := range c.dbs {
			runs++
			load := append([]string{ddl}, refute.Inserts(s, db, catalog.Postgres)...)
			same, ra, rb, err := pgSameBag(ctx, conn, load, c.a, c.b)
			if err != nil {
				t.Fatalf("%s, database %d: %v", c.name, i, err)
			}
			if !same {
				t.Errorf("%s, database %d: PostgreSQL tells a and b apart:\n  %s -> %v\n  %s -> %v", c.name, i, c.a, ra, c.b, rb)
			}
		}
	}
	if runs < len(cases) {
		t.Errorf("%d cases ran on only %d databases", len(cases), runs)
	}
	t.Logf("%d cases with a b query compared on %d databases", len(cases), runs)
}

// pgSameBag runs the statements of load (the schema, then its rows) in a
// transaction it rolls back, and runs a and b there: the same bag, or an
// error on both sides, is the same. err is a failure to load.
func pgSameBag(ctx context.Context, conn *pgx.Conn, load []string, a, b string) (same bool, ra, rb []string, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, nil, nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, strings.Join(load, ";\n")); err != nil {
		return false, nil, nil, err
	}
	// A failing query aborts the transaction: each runs in a savepoint.
	run := func(q string) ([]string, error) {
		sp, err := tx.Begin(ctx)
		if err != nil {
			return nil, err
		}
		defer func() { _ = sp.Rollback(ctx) }()
		return pgtest.Rows(ctx, sp, q, false)
	}
	ra, errA := run(a)
	rb, errB := run(b)
	if errA != nil || errB != nil {
		return errA != nil && errB != nil, ra, rb, nil
	}
	return slices.Equal(ra, rb), ra, rb, nil
}
