package prove_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestDroppedExpressionThatRaises: a rewrite that stops evaluating an
// expression the query evaluates on every row (a grouping key, a
// DISTINCT column, a sort key, a partial sum of a regrouped integer sum)
// proves nothing when that expression may raise: on a
// row with the largest integer, or 0 under a division, PostgreSQL fails
// one query and answers the other. The same shapes with text
// concatenation, which cannot raise, stay proved and return the same
// rows. Each case is run on PostgreSQL first, so the test also checks
// the engine does what the case says.
func TestDroppedExpressionThatRaises(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	const ddl = "CREATE TABLE t (k integer PRIMARY KEY, i integer, s text); CREATE TABLE u (id integer PRIMARY KEY, tk integer)"
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, st := range []string{ddl, "INSERT INTO t VALUES (1, 2147483647, 'a'), (2, 0, NULL), (3, 5, 'a'), (4, NULL, 'b')", "INSERT INTO u VALUES (1, 1), (2, 1), (3, 3)"} {
		if _, err := conn.Exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		a, b  string
		equal bool // proved, and PostgreSQL answers both alike
	}{
		{"group-key-determined: i + 1", "SELECT i, COUNT(*) FROM t GROUP BY i, i + 1", "SELECT i, COUNT(*) FROM t GROUP BY i", false},
		{"group-key-determined: a derived i + 1 (crdb-norm-1063)",
			"SELECT x.i, COUNT(*) FROM (SELECT i, i + 1 AS c FROM t) x GROUP BY x.i, x.c", "SELECT i, COUNT(*) FROM t GROUP BY i", false},
		{"group-key-determined: 10 / i", "SELECT i, MIN(k) FROM t GROUP BY i, 10 / i", "SELECT i, MIN(k) FROM t GROUP BY i", false},
		{"group-key-determined: s || 'foo'", "SELECT s, SUM(i) FROM t GROUP BY s, s || 'foo'", "SELECT s, SUM(i) FROM t GROUP BY s", true},
		{"group-on-key: i + 1", "SELECT k, COUNT(*) FROM t GROUP BY k, i + 1", "SELECT k, COUNT(*) FROM t GROUP BY k", false},
		{"group-on-key after reduce-group-by-by-fd: i * 2", "SELECT k, i, COUNT(*) FROM t GROUP BY k, i, i * 2", "SELECT k, i, COUNT(*) FROM t GROUP BY k, i", false},
		{"group-on-key: s || 'x'", "SELECT k, COUNT(*) FROM t GROUP BY k, s || 'x'", "SELECT k, COUNT(*) FROM t GROUP BY k", true},
		{"remove-redundant-distinct: i + 1 unread", "SELECT x.k FROM (SELECT DISTINCT k, i + 1 FROM t) x", "SELECT k FROM t", false},
		{"remove-redundant-distinct: s || 'x' unread", "SELECT x.k FROM (SELECT DISTINCT k, s || 'x' FROM t) x", "SELECT k FROM t", true},
		{"DISTINCT on a key under COUNT: i + 1", "SELECT COUNT(*) FROM (SELECT DISTINCT k, i + 1 FROM t) x", "SELECT COUNT(*) FROM t", false},
		{"DISTINCT on a key under COUNT: s || 'x'", "SELECT COUNT(*) FROM (SELECT DISTINCT k, s || 'x' FROM t) x", "SELECT COUNT(*) FROM t", true},
		{"DISTINCT on a key under COUNT: substr(s, 1, 30)", "SELECT COUNT(*) FROM (SELECT DISTINCT k, substr(s, 1, 30) FROM t) x", "SELECT COUNT(*) FROM t", true},
		{"DISTINCT on a key under COUNT: substr(s, 1, i - 10)", "SELECT COUNT(*) FROM (SELECT DISTINCT k, substr(s, 1, i - 10) FROM t) x", "SELECT COUNT(*) FROM t", false},
		{"agg-over-distinct: i + 1", "SELECT MAX(x.k) FROM (SELECT DISTINCT k, i + 1 AS j FROM t) x", "SELECT MAX(k) FROM t", false},
		{"agg-over-distinct: s || 'x'", "SELECT MAX(x.k) FROM (SELECT DISTINCT k, s || 'x' AS j FROM t) x", "SELECT MAX(k) FROM t", true},
		{"distinct-join-semi: i + 1", "SELECT x.k FROM (SELECT DISTINCT t.k, t.i + 1 AS j FROM t JOIN u ON u.tk = t.k) x",
			"SELECT t.k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.tk = t.k)", false},
		{"distinct-join-semi: s || 'x'", "SELECT x.k FROM (SELECT DISTINCT t.k, t.s || 'x' AS j FROM t JOIN u ON u.tk = t.k) x",
			"SELECT t.k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.tk = t.k)", true},
		// PostgreSQL evaluates every sort key of a top-level ORDER BY, a
		// derived table's, a set operand's and an IN subquery's; it drops an
		// EXISTS subquery's ORDER BY unevaluated.
		{"sort-key-prefix: i + 1", "SELECT k FROM t ORDER BY k, i + 1", "SELECT k FROM t ORDER BY k", false},
		{"sort-key-prefix: s || 'x'", "SELECT k FROM t ORDER BY k, s || 'x'", "SELECT k FROM t ORDER BY k", true},
		{"drop-subquery-order: derived i + 1", "SELECT COUNT(*) FROM (SELECT k FROM t ORDER BY i + 1) x", "SELECT COUNT(*) FROM t", false},
		{"drop-subquery-order: derived s || 'x'", "SELECT COUNT(*) FROM (SELECT k FROM t ORDER BY s || 'x') x", "SELECT COUNT(*) FROM t", true},
		{"drop-subquery-order: set operand i + 1", "SELECT k FROM t UNION ALL (SELECT k FROM t ORDER BY i + 1)", "SELECT k FROM t UNION ALL SELECT k FROM t", false},
		{"subquery-to-semi-join: IN ordered by i + 1", "SELECT k FROM t WHERE k IN (SELECT k FROM t ORDER BY i + 1)", "SELECT k FROM t", false},
		{"subquery-to-semi-join: EXISTS ordered by i + 1", "SELECT k FROM t WHERE EXISTS (SELECT 1 FROM t t2 WHERE t2.k = t.k ORDER BY t2.i + 1)", "SELECT k FROM t", true},
		{"count-expr-not-null: COUNT(k * 2147483647)", "SELECT COUNT(k * 2147483647) FROM t", "SELECT COUNT(*) FROM t", false},
		// A regrouped integer sum evaluates other partial sums:
		// (i + 10) - 20 fails on the largest i, i - 10 does not.
		{"arithmetic: (i + 10) - 20", "SELECT (i + 10) - 20 FROM t", "SELECT i - 10 FROM t", false},
		{"arithmetic: (i + k) - 1", "SELECT (i + k) - 1 FROM t", "SELECT i + (k - 1) FROM t", false},
		{"arithmetic: (k + 3) + 12", "SELECT (k + 3) + 12 FROM t", "SELECT k + 15 FROM t", true},
		{"arithmetic: i + k", "SELECT i + k FROM t WHERE k > 1", "SELECT k + i FROM t WHERE k > 1", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ra, errA := pgRows(ctx, conn, c.a)
			rb, errB := pgRows(ctx, conn, c.b)
			same := errA == nil && errB == nil && slices.Equal(ra, rb)
			if same != c.equal {
				t.Fatalf("PostgreSQL: %v %v vs %v %v, want alike=%v", ra, errA, rb, errB, c.equal)
			}
			a, err := planner.Plan(ctx, s, c.a, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := planner.Plan(ctx, s, c.b, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, swap := range []bool{false, true} {
				x, y := a, b
				if swap {
					x, y = b, a
				}
				r, err := prove.Equivalent(ctx, x, y, prove.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if r.Proved != c.equal {
					t.Errorf("swapped %v: proved %v %v, want %v", swap, r.Proved, r.Rules, c.equal)
				}
			}
		})
	}
}
