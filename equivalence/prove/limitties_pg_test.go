package prove_test

import (
	"context"
	"slices"
	"strings"
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
	"sort-limit-union-all": {
		// the first rows stored are not the first names; emp's deptno
		// run above dept's
		"INSERT INTO dept VALUES (1, 'zeta'), (2, 'alpha'), (3, 'mike'), (4, 'beta'), (5, 'kilo'), (6, 'echo')",
		"INSERT INTO emp VALUES (1, 'yan', 9, 10), (2, 'bob', 9, 20), (3, 'al', 8, 30), (4, 'cy', 8, 5), (5, 'dee', 7, 7), (6, 'ed', 7, 1), (7, 'fay', 1, 2), (8, 'gus', 1, 3), (9, 'hal', 2, NULL), (10, 'ike', 1, 4)",
	},
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
	cases := []limitPair{
		{"offset then limit, tied: unbounded sort against a top-20 sort",
			"SELECT k FROM (SELECT k, i FROM t ORDER BY i OFFSET 10) AS x LIMIT 10",
			"SELECT k FROM t ORDER BY i LIMIT 10 OFFSET 10", false},
		{"limit 20 then limit 10, tied: top-20 against top-10",
			"SELECT k FROM (SELECT k, i FROM t ORDER BY i LIMIT 20) AS x LIMIT 10",
			"SELECT k FROM t ORDER BY i LIMIT 10", false},
		{"crdb-norm-1032: ORDER BY i OFFSET 10 then LIMIT 10 against ORDER BY i LIMIT 20 then OFFSET 10",
			"SELECT t3.k FROM (SELECT t2.k, t2.i, t2.f FROM (SELECT t1.k, t1.i, t1.f FROM (SELECT t0.k, t0.i, t0.f FROM t AS t0 ORDER BY t0.i NULLS FIRST) AS t1 ORDER BY t1.i NULLS FIRST OFFSET 10) AS t2 ORDER BY t2.i NULLS FIRST LIMIT 10) AS t3",
			"SELECT t3.k FROM (SELECT t2.k, t2.i FROM (SELECT t1.k, t1.i FROM (SELECT t0.k, t0.i FROM t AS t0 ORDER BY t0.i NULLS FIRST) AS t1 ORDER BY t1.i NULLS FIRST LIMIT 20) AS t2 ORDER BY t2.i NULLS FIRST OFFSET 10) AS t3", false},
		{"sort-limit-union-all: ORDER BY every column, ties are equal rows",
			"SELECT i, k FROM t UNION ALL SELECT i, k FROM t ORDER BY i, k LIMIT 10",
			"SELECT i, k FROM ((SELECT i, k FROM t ORDER BY i, k LIMIT 10) UNION ALL (SELECT i, k FROM t ORDER BY i, k LIMIT 10)) AS u ORDER BY i, k LIMIT 10", true},
		{"sort-limit-union-all: i alone, each tie an equal row",
			"SELECT i FROM t UNION ALL SELECT i FROM t ORDER BY i LIMIT 10 OFFSET 1690",
			"SELECT i FROM ((SELECT i FROM t ORDER BY i LIMIT 1700) UNION ALL (SELECT i FROM t ORDER BY i LIMIT 1700)) AS u ORDER BY i LIMIT 10 OFFSET 1690", true},
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
	checkLimitPairs(t, []string{ddl, tiedRows, "ANALYZE t"}, cases)
}

// TestLimitMovesOnPostgres: LIMIT moves of the CockroachDB suite that
// PostgreSQL tells apart, left unproved. crdb-norm-846 moves ORDER BY b
// LIMIT 10 below a left join on uv's key, but b ties rows: the reference
// sorts the join's rows (a merge join reads ab in key order) and the
// candidate ab's rows as stored, and the top-10 sorts keep other tied
// rows. crdb-xform-872 pushes LIMIT 5 into UNION ALL branches that have
// no ORDER BY: each branch keeps its first 5 rows as stored, not the 5
// smallest q. crdb-xform-32 joins limited rows back to their table on
// its key, which finds each row once: proved (self-join-key-subset).
func TestLimitMovesOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	setup := []string{
		"CREATE TABLE ab (a bigint PRIMARY KEY, b bigint)",
		"CREATE TABLE uv (u bigint PRIMARY KEY, v bigint)",
		"CREATE TABLE pqrs (p bigint NOT NULL, q bigint NOT NULL, r bigint NOT NULL, s bigint NOT NULL, PRIMARY KEY (p, q))",
		"INSERT INTO ab SELECT g, g % 2 FROM generate_series(1, 2000) AS g ORDER BY md5(g::text)",
		"INSERT INTO uv SELECT g, g FROM generate_series(1, 3000) AS g",
		"INSERT INTO pqrs SELECT p, q, 0, 0 FROM generate_series(1, 5) AS p, generate_series(20, 1, -1) AS q",
		"CREATE TABLE a (x bigint PRIMARY KEY, y bigint, z numeric, s text NOT NULL)",
		"INSERT INTO a SELECT g, NULLIF(g % 3 * 5, 0), g * 1.5, 's' || g % 7 FROM generate_series(1, 3000) AS g ORDER BY md5(g::text)",
		"ANALYZE ab", "ANALYZE uv", "ANALYZE pqrs", "ANALYZE a",
	}
	checkLimitPairs(t, setup, []limitPair{
		{"crdb-norm-846: ORDER BY b LIMIT 10 below a left join, b ties rows",
			"SELECT t2.a, t2.b, t2.u, t2.v FROM (SELECT t0.a, t0.b, t1.u, t1.v FROM ab AS t0 LEFT JOIN uv AS t1 ON (t0.a = t1.u) ORDER BY t0.b NULLS FIRST) AS t2 ORDER BY t2.b NULLS FIRST LIMIT 10",
			"SELECT t3.a, t3.b, t2.u, t2.v FROM (SELECT t1.a, t1.b FROM (SELECT t0.a, t0.b FROM ab AS t0 ORDER BY t0.b NULLS FIRST) AS t1 ORDER BY t1.b NULLS FIRST LIMIT 10) AS t3 LEFT JOIN uv AS t2 ON (t3.a = t2.u) ORDER BY t3.b NULLS FIRST", false},
		{"crdb-norm-845: the same on ab's key, which ties no rows",
			"SELECT t2.a, t2.b, t2.u, t2.v FROM (SELECT t0.a, t0.b, t1.u, t1.v FROM ab AS t0 LEFT JOIN uv AS t1 ON (t0.a = t1.u) ORDER BY t0.a NULLS FIRST) AS t2 ORDER BY t2.a NULLS FIRST LIMIT 10",
			"SELECT t2.a, t2.b, t1.u, t1.v FROM (SELECT t0.a, t0.b FROM ab AS t0 ORDER BY t0.a NULLS FIRST LIMIT 10) AS t2 LEFT JOIN uv AS t1 ON (t2.a = t1.u) ORDER BY t2.a NULLS FIRST", true},
		{"crdb-xform-872: LIMIT 5 into UNION ALL branches without ORDER BY",
			"SELECT t1.p, t1.q, t1.r, t1.s FROM (SELECT t0.p, t0.q, t0.r, t0.s FROM pqrs AS t0 WHERE ((t0.p = 1) OR (t0.p = 5)) ORDER BY t0.q NULLS FIRST) AS t1 ORDER BY t1.q NULLS FIRST LIMIT 5",
			"SELECT t2.p, t2.q, t2.r, t2.s FROM ((SELECT t0.p, t0.q, t0.r, t0.s FROM pqrs AS t0 WHERE ((1 <= t0.p) AND (t0.p <= 1)) LIMIT 5) UNION ALL (SELECT t1.p, t1.q, t1.r, t1.s FROM pqrs AS t1 WHERE ((5 <= t1.p) AND (t1.p <= 5)) LIMIT 5)) AS t2 ORDER BY t2.q NULLS FIRST LIMIT 5", false},
		{"crdb-xform-32: the limited rows joined back to the table on its key (s, x ties no rows)",
			"SELECT t2.x, t2.y, t2.z, t2.s FROM (SELECT t1.x, t1.y, t1.z, t1.s FROM (SELECT t0.x, t0.y, t0.z, t0.s FROM a AS t0 WHERE (t0.y = 10) ORDER BY t0.s NULLS FIRST, t0.x DESC NULLS LAST) AS t1 ORDER BY t1.s NULLS FIRST, t1.x DESC NULLS LAST OFFSET 700) AS t2 ORDER BY t2.s NULLS FIRST, t2.x DESC NULLS LAST LIMIT 20",
			"SELECT t3.x, t3.y, t2.z, t3.s FROM (SELECT t1.x, t1.y, t1.s FROM (SELECT t0.x, t0.y, t0.s FROM a AS t0 WHERE ((10 <= t0.y) AND (t0.y <= 10)) ORDER BY t0.s NULLS FIRST, t0.x DESC NULLS LAST) AS t1 ORDER BY t1.s NULLS FIRST, t1.x DESC NULLS LAST LIMIT 720) AS t3, a AS t2 WHERE (t3.x IS NOT DISTINCT FROM t2.x) AND (t3.y IS NOT DISTINCT FROM t2.y) AND (t3.s IS NOT DISTINCT FROM t2.s) ORDER BY t3.s NULLS FIRST, t3.x DESC NULLS LAST OFFSET 700", true},
		{"the same joined back on s, no key: each row meets every row of its s",
			"SELECT x, z FROM a WHERE y = 10 ORDER BY s, x LIMIT 5",
			"SELECT t.x, a.z FROM (SELECT x, s FROM a WHERE y = 10 ORDER BY s, x LIMIT 5) AS t JOIN a ON a.s = t.s ORDER BY t.s, t.x", false},
	})
}

// A limitPair is two queries and whether PostgreSQL returns the same
// rows for them on the test's data; the prover must prove exactly those.
type limitPair struct {
	name string
	a, b string
	same bool
}

// checkLimitPairs runs setup (DDL first, then rows) on a fresh
// PostgreSQL and checks each pair there and with the prover, both ways
// round: proved exactly when PostgreSQL returns the same rows (as a bag).
func checkLimitPairs(t *testing.T, setup []string, cases []limitPair) {
	t.Helper()
	ctx := context.Background()
	var ddl []string
	for _, st := range setup {
		if strings.HasPrefix(st, "CREATE TABLE") {
			ddl = append(ddl, st)
		}
	}
	s, err := catalog.LoadDDL(strings.Join(ddl, ";\n"), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, st := range setup {
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
