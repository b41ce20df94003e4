package rewrite_test

import (
	"context"
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/internal/rulefile"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestRuleFilesOnPostgres runs every case of the rule files on a real
// PostgreSQL, each file in a transaction over its schema and data block:
// an expect case's two queries return the same rows (a bag, or a
// sequence where both are ordered), where the rewrite of an assumption
// holds on the data; an expect-not case's differ, or one side only
// fails. SQLite's cases are not run.
func TestRuleFilesOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgtest.New(t, pgtest.Options{}).Connect(t)
	rulefile.Run(t, "testdata", rules(), rulefile.Options{Flags: ruleFlags}, func(t *testing.T, f *rulefile.File) {
		ddl := ddlOf(t, f)
		s, err := catalog.LoadDDL(ddl, catalog.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if _, err := tx.Exec(ctx, ddl+";\n"+f.Data); err != nil {
			t.Fatal(err)
		}
		for _, c := range f.Cases {
			if c.Has("sqlite") {
				continue
			}
			ordered := isOrdered(t, s, c.A) && isOrdered(t, s, c.B)
			ra, errA := pgtest.Rows(ctx, tx, c.A, ordered)
			rb, errB := pgtest.Rows(ctx, tx, c.B, ordered)
			if errA != nil && errB != nil {
				t.Fatalf("%s: both fail: %v; %v", c.Name, errA, errB)
			}
			same := errA == nil && errB == nil && slices.Equal(ra, rb)
			switch {
			case c.Kind == rulefile.Expect && !same:
				t.Errorf("%s: PostgreSQL tells the pair apart:\n  %s -> %v %v\n  %s -> %v %v", c.Name, c.A, ra, errA, c.B, rb, errB)
			case c.Kind == rulefile.ExpectNot && same:
				t.Errorf("%s: PostgreSQL returns the near miss's rows alike on the data block (%v): extend it", c.Name, ra)
			}
		}
	})
}

// isOrdered says whether q's rows come in an order it fixes.
func isOrdered(t *testing.T, s *catalog.Schema, q string) bool {
	t.Helper()
	p, err := planner.Plan(context.Background(), s, q, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Ordered
}
