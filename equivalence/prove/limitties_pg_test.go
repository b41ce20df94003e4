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

// tiedRows fills t (k, i, s) with 5,000 rows whose i takes three values,
// stored in an order unrelated to k: enough rows that PostgreSQL sorts a
// LIMIT's input with a bounded (top-N) heap, which returns tied rows in
// another order than the full sort, and deterministic (md5, not random())
// so that every run sees the same rows.
const tiedRows = "INSERT INTO t (k, i, s) SELECT g, (g * 7919) % 3, 's' || g FROM generate_series(1, 5000) AS g ORDER BY md5(g::text)"

// pgRuleDataLimit are the rows TestRuleFilesOnPostgres loads for the
// LIMIT rules: its near misses on ties differ only on this many rows.
var pgRuleDataLimit = map[string][]string{
	"limit-merge":            {tiedRows},
	"sort-over-sorted-limit": {tiedRows},
	"self-join-key-subset": {
		// s repeats, y is NULL on rows 3 and 8
		"INSERT INTO a VALUES (1, 10, 1.5, 'a'), (2, 10, NULL, 'a'), (3, NULL, 2, 'b'), (4, 10, 3, 'c'), (5, 10, 4, 'a'), (6, 7, 5, 'd'), (7, 10, 6, 'b'), (8, NULL, 7, 'e')",
	},
}

func init() {
	for name, rows := range pgRuleDataLimit {
		pgRuleData[name] = rows
	}
}

// TestLimitTiesOnPostgres: a LIMIT over a sort that ties rows keeps the
// tied rows PostgreSQL's sort returns first, and that sort returns them
// in another order when bounded by another LIMIT + OFFSET (a top-N heap)
// or not at all. So two limits over such a sort merge only where the
// merged limit bounds the sort as the inner one did (limit-merge), and a
// sort over a limited sorted derived table is dropped (PostgreSQL plans
// no second sort: sort-over-sorted-limit). Each pair is proved exactly
// when PostgreSQL returns the same rows on tiedRows; the unproved ones
// are pairs PostgreSQL tells apart there.
func TestLimitTiesOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	const ddl = "CREATE TABLE t (k bigint PRIMARY KEY, i bigint, f double precision, s text)"
	cases := []struct {
		name string
		a, b string
		same bool
	}{
		{"offset then limit, tied: unbounded sort against a top-20 sort",
			"SELECT k FROM (SELECT k, i FROM t ORDER BY i OFFSET 10) AS x LIMIT 10",
			"SELECT k FROM t ORDER BY i LIMIT 10 OFFSET 10", false},
		{"limit 20 then limit 10, tied: top-20 against top-10",
			"SELECT k FROM (SELECT k, i FROM t ORDER BY i LIMIT 20) AS x LIMIT 10",
			"SELECT k FROM t ORDER BY i LIMIT 10", false},
		{"crdb-norm-1032: ORDER BY i OFFSET 10 then LIMIT 10 against ORDER BY i LIMIT 20 then OFFSET 10",
			"SELECT t3.k FROM (SELECT t2.k, t2.i, t2.f FROM (SELECT t1.k, t1.i, t1.f FROM (SELECT t0.k, t0.i, t0.f FROM t AS t0 ORDER BY t0.i NULLS FIRST) AS t1 ORDER BY t1.i NULLS FIRST OFFSET 10) AS t2 ORDER BY t2.i NULLS FIRST LIMIT 10) AS t3",
			"SELECT t3.k FROM (SELECT t2.k, t2.i FROM (SELECT t1.k, t1.i FROM (SELECT t0.k, t0.i FROM t AS t0 ORDER BY t0.i NULLS FIRST) AS t1 ORDER BY t1.i NULLS FIRST LIMIT 20) AS t2 ORDER BY t2.i NULLS FIRST OFFSET 10) AS t3", false},
		{"tied, the bound kept: LIMIT 20 OFFSET 5 then OFFSET 3 is LIMIT 17 OFFSET 8",
			"SELECT k FROM (SELECT k, i FROM t ORDER BY i LIMIT 20 OFFSET 5) AS x OFFSET 3",
			"SELECT k FROM t ORDER BY i LIMIT 17 OFFSET 8", true},
		{"tied, the bound kept, through the outer sort",
			"SELECT k FROM (SELECT k, i FROM t ORDER BY i LIMIT 20) AS x ORDER BY i OFFSET 10",
			"SELECT k FROM t ORDER BY i LIMIT 10 OFFSET 10", true},
		{"crdb-norm-1033: the order (i, k) ties no rows",
			"SELECT t3.s FROM (SELECT t2.k, t2.i, t2.f, t2.s FROM (SELECT t1.k, t1.i, t1.f, t1.s FROM (SELECT t0.k, t0.i, t0.f, t0.s FROM t AS t0 ORDER BY t0.i NULLS FIRST, t0.k NULLS FIRST) AS t1 ORDER BY t1.i NULLS FIRST, t1.k NULLS FIRST OFFSET 10) AS t2 ORDER BY t2.i NULLS FIRST, t2.k NULLS FIRST LIMIT 10) AS t3",
			"SELECT t3.s FROM (SELECT t2.k, t2.i, t2.s FROM (SELECT t1.k, t1.i, t1.s FROM (SELECT t0.k, t0.i, t0.s FROM t AS t0 ORDER BY t0.i NULLS FIRST, t0.k NULLS FIRST) AS t1 ORDER BY t1.i NULLS FIRST, t1.k NULLS FIRST LIMIT 20) AS t2 ORDER BY t2.i NULLS FIRST, t2.k NULLS FIRST OFFSET 10) AS t3", true},
		{"a limit 10 over limit 20 on the order (i, k)",
			"SELECT k FROM (SELECT k, i FROM t ORDER BY i, k LIMIT 20) AS x LIMIT 10",
			"SELECT k FROM t ORDER BY i, k LIMIT 10", true},
	}
	ctx := context.Background()
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, st := range []string{ddl, tiedRows, "ANALYZE t"} {
		if _, err := conn.Exec(ctx, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ra, err := pgRows(ctx, conn, c.a)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := pgRows(ctx, conn, c.b)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(ra, rb) != c.same {
				t.Fatalf("PostgreSQL returns the same rows: %v, want %v\n  %v\n  %v", !c.same, c.same, ra, rb)
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
				if r.Proved != c.same {
					t.Errorf("swapped %v: proved %v %v, want %v", swap, r.Proved, r.Rules, c.same)
				}
			}
		})
	}
}
