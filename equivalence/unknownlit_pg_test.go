package equivalence_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
)

// TestUnknownLiteralsResolvedPostgres: in CASE, COALESCE, GREATEST and
// LEAST, set operations and VALUES PostgreSQL reads a quoted literal as the type of the inputs that
// have one ('05' beside an integer is 5, a literal beside a uuid a uuid
// in its canonical spelling), so these pairs return the same rows on
// every database. They were labelled not_equivalent: the literal stayed
// text and printed as written. A literal the type cannot read makes the
// query raise; one that reads as another value is a real difference.
func TestUnknownLiteralsResolvedPostgres(t *testing.T) {
	ctx := context.Background()
	const ddl = `CREATE TABLE t (id int PRIMARY KEY, u uuid, n int, d numeric, b boolean);`
	conn, s := pgLoaded(t, ctx, ddl)
	dbs := [][]string{
		{"INSERT INTO t VALUES (1, 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', NULL, NULL, NULL), (0, NULL, 3, 2.50, true), (2, NULL, NULL, 1, false)"},
		{"INSERT INTO t VALUES (5, NULL, NULL, NULL, NULL)"},
		{},
	}
	same := []struct{ ref, cand string }{
		{"SELECT COALESCE(n, '0') FROM t", "SELECT COALESCE(n, 0) FROM t"},
		{"SELECT COALESCE('0', n) FROM t", "SELECT COALESCE(0, n) FROM t"},
		{"SELECT CASE WHEN id > 0 THEN '05' ELSE n END FROM t", "SELECT CASE WHEN id > 0 THEN 5 ELSE n END FROM t"},
		{"SELECT CASE id WHEN 1 THEN ' 7 ' ELSE n END FROM t", "SELECT CASE id WHEN 1 THEN 7 ELSE n END FROM t"},
		{"SELECT GREATEST(n, '7') FROM t", "SELECT GREATEST(n, 7) FROM t"},
		{"SELECT LEAST(d, '2.50') FROM t", "SELECT LEAST(d, 2.5) FROM t"},
		{"SELECT COALESCE(b, 'yes') FROM t", "SELECT COALESCE(b, true) FROM t"},
		{"SELECT CASE WHEN id > 0 THEN 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' ELSE u END FROM t",
			"SELECT CASE WHEN id > 0 THEN 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' ELSE u END FROM t"},
		// Set operations and VALUES resolve their columns alike.
		{"SELECT '05' UNION ALL SELECT n FROM t", "SELECT 5 UNION ALL SELECT n FROM t"},
		{"SELECT n FROM t UNION ALL SELECT '05'", "SELECT n FROM t UNION ALL SELECT 5"},
		{"SELECT u FROM t UNION SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", "SELECT u FROM t UNION SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"},
		{"VALUES ('05'), (1)", "VALUES (5), (1)"},
	}
	differ := []struct{ ref, cand string }{
		{"SELECT COALESCE(n, '1') FROM t", "SELECT COALESCE(n, 0) FROM t"},
		{"SELECT CASE WHEN id > 0 THEN '06' ELSE n END FROM t", "SELECT CASE WHEN id > 0 THEN 5 ELSE n END FROM t"},
	}
	for _, db := range dbs {
		pgRefill(t, ctx, conn, "t", db...)
		for _, c := range same {
			if a, b := semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand); !sameBagText(a, b) {
				t.Fatalf("PostgreSQL tells %q and %q apart (%v / %v): not a pair that holds", c.ref, c.cand, a, b)
			}
		}
	}
	for _, c := range same {
		if v := semJudge(t, s, c.ref, c.cand); v.Label == equivalence.NotEquivalent {
			t.Errorf("%s / %s: not_equivalent, though PostgreSQL returns the same rows\n%s", c.ref, c.cand, v.Summary())
		}
	}
	pgRefill(t, ctx, conn, "t", dbs[0]...)
	for _, c := range differ {
		if a, b := semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand); sameBagText(a, b) {
			t.Fatalf("PostgreSQL does not tell %q and %q apart", c.ref, c.cand)
		}
		if v := semJudge(t, s, c.ref, c.cand); v.Label != equivalence.NotEquivalent {
			t.Errorf("%s / %s: %s, want not_equivalent", c.ref, c.cand, v.Label)
		}
	}
	// '5.0' is no integer: PostgreSQL refuses the query; it is never
	// proved equal to a query that runs.
	if r := pgQuery(ctx, conn, "SELECT COALESCE(n, '5.0') FROM t"); r.err == nil {
		t.Fatal("PostgreSQL reads '5.0' as an integer")
	}
	if v := semJudge(t, s, "SELECT COALESCE(n, '5.0') FROM t", "SELECT COALESCE(n, 5) FROM t"); proved(v) {
		t.Errorf("COALESCE(n, '5.0') proved equal to COALESCE(n, 5): %s", v.Label)
	}
}
