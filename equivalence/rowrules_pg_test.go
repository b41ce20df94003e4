package equivalence_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestJudgeHonoursRowRules is issue 18's cause 1 at the judge: a filter
// a CHECK makes redundant is never called not_equivalent (the refuter
// only writes rows PostgreSQL accepts), while a filter the CHECK does
// not imply still is, with a counterexample that PostgreSQL loads and on
// which it tells the queries apart. The catalog's CHECKs are set by
// hand beside the real DDL (the loader that reads them is elsewhere).
func TestJudgeHonoursRowRules(t *testing.T) {
	const ddl = `CREATE TABLE item (id integer PRIMARY KEY, sku text NOT NULL,
  qty integer NOT NULL CHECK (qty > 0), price numeric(10,2) CHECK (price >= 0),
  total numeric GENERATED ALWAYS AS (price * qty) STORED)`
	s, err := catalog.LoadDDL(`CREATE TABLE item (id integer PRIMARY KEY, sku text NOT NULL,
  qty integer NOT NULL, price numeric(10,2), total numeric)`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	tb := s.Tables[0]
	tb.Checks = []catalog.Check{{Expr: "qty > 0"}, {Expr: "price >= 0"}}
	tb.Columns[4].Generated = "price * qty"
	if s, err = catalog.NewSchema(catalog.Postgres, s.Tables); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, ddl); err != nil {
		t.Fatal(err)
	}
	// PostgreSQL refuses the rows the old generator wrote.
	for _, bad := range []string{"INSERT INTO item (id, sku, qty) VALUES (1, 'a', 0)", "INSERT INTO item VALUES (1, 'a', 1, 2, 3)"} {
		if _, err := conn.Exec(ctx, bad); err == nil {
			t.Fatalf("%s: PostgreSQL accepts it", bad)
		}
	}
	cases := []struct {
		ref, cand string
		refuted   bool
	}{
		{"SELECT id FROM item WHERE qty > 0", "SELECT id FROM item", false},
		{"SELECT id FROM item WHERE total = price * qty", "SELECT id FROM item WHERE price IS NOT NULL", false},
		{"SELECT id FROM item WHERE qty > 1", "SELECT id FROM item", true},
		{"SELECT id FROM item WHERE total > 2", "SELECT id FROM item WHERE price > 2", true},
	}
	for _, c := range cases {
		v, err := equivalence.Judge(ctx, s, c.ref, c.cand, equivalence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !c.refuted {
			if v.Label == equivalence.NotEquivalent {
				t.Errorf("%s / %s: not_equivalent on a database PostgreSQL refuses: %v", c.ref, c.cand, v.Counterexample.Inserts)
			}
			continue
		}
		if v.Label != equivalence.NotEquivalent || v.Counterexample == nil {
			t.Errorf("%s / %s: %s, want not_equivalent", c.ref, c.cand, v.Label)
			continue
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, strings.Join(v.Counterexample.Inserts, "\n")); err != nil {
			t.Errorf("%s / %s: PostgreSQL refuses the counterexample: %v\n%s", c.ref, c.cand, err, strings.Join(v.Counterexample.Inserts, "\n"))
			_ = tx.Rollback(ctx)
			continue
		}
		var differ bool
		q := "SELECT EXISTS ((" + c.ref + ") EXCEPT ALL (" + c.cand + ")) OR EXISTS ((" + c.cand + ") EXCEPT ALL (" + c.ref + "))"
		if err := tx.QueryRow(ctx, q).Scan(&differ); err != nil {
			t.Fatal(err)
		}
		if !differ {
			t.Errorf("%s / %s: PostgreSQL returns the same rows on the counterexample", c.ref, c.cand)
		}
		_ = tx.Rollback(ctx)
	}
}
