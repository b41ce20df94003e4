package refute

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// targetDDL is a schema for the boundary pairs: a key, a NOT NULL
// grouping column, nullable values, a date-time column, a second table
// for IN subqueries, and a table without a key for windows (peers that
// are the same row are the only ones a ROWS frame leaves determined).
// typ is the date-time column's declared type.
func targetDDL(typ string) string {
	return `CREATE TABLE t (id integer PRIMARY KEY, a integer NOT NULL, x integer, y integer, k integer, d ` + typ + `);
CREATE TABLE u (id integer PRIMARY KEY, y integer);
CREATE TABLE w (k integer NOT NULL, x integer NOT NULL);`
}

func targetSchema(t *testing.T, d catalog.Dialect) *catalog.Schema {
	t.Helper()
	typ := "timestamp"
	if d == catalog.SQLite {
		typ = "DATETIME"
	}
	s, err := catalog.LoadDDL(targetDDL(typ), d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// targetPair is one pair that differs only at a boundary the queries
// name: a group of exactly k rows, two distinct values, a duplicate, a
// tie, a non-NULL date-time.
type targetPair struct {
	name      string
	ref, cand string
}

var targetPairs = []targetPair{
	{name: "having count > 3 vs >= 3",
		ref:  "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 3",
		cand: "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) >= 3"},
	{name: "having count > 10 vs >= 10",
		ref:  "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 10",
		cand: "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) >= 10"},
	{name: "having count > 20 vs >= 20",
		ref:  "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 20",
		cand: "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) >= 20"},
	{name: "having count < 10 vs <= 10",
		ref:  "SELECT a FROM t GROUP BY a HAVING count(*) < 10",
		cand: "SELECT a FROM t GROUP BY a HAVING count(*) <= 10"},
	{name: "having count = 12 vs >= 12",
		ref:  "SELECT a FROM t GROUP BY a HAVING count(*) = 12",
		cand: "SELECT a FROM t GROUP BY a HAVING count(*) >= 12"},
	{name: "having count(x) > 10 vs count(*) > 10",
		ref:  "SELECT a FROM t GROUP BY a HAVING count(x) > 10",
		cand: "SELECT a FROM t GROUP BY a HAVING count(x) >= 10"},
	{name: "having sum > 50 vs >= 50",
		ref:  "SELECT a FROM t GROUP BY a HAVING sum(x) > 50",
		cand: "SELECT a FROM t GROUP BY a HAVING sum(x) >= 50"},
	{name: "having max > 40 vs >= 40",
		ref:  "SELECT a FROM t GROUP BY a HAVING max(x) > 40",
		cand: "SELECT a FROM t GROUP BY a HAVING max(x) >= 40"},
	{name: "min vs max",
		ref:  "SELECT min(x) FROM t",
		cand: "SELECT max(x) FROM t"},
	{name: "grouped min vs max",
		ref:  "SELECT a, min(x) FROM t GROUP BY a",
		cand: "SELECT a, max(x) FROM t GROUP BY a"},
	{name: "order by limit asc vs desc",
		ref:  "SELECT x FROM t ORDER BY x LIMIT 1",
		cand: "SELECT x FROM t ORDER BY x DESC LIMIT 1"},
	{name: "distinct with IN subquery",
		ref:  "SELECT DISTINCT t.x FROM t WHERE t.y IN (SELECT u.y FROM u)",
		cand: "SELECT t.x FROM t WHERE t.y IN (SELECT u.y FROM u)"},
	{name: "window rows vs range with ties",
		ref:  "SELECT k, sum(x) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) FROM w",
		cand: "SELECT k, sum(x) OVER (ORDER BY k RANGE UNBOUNDED PRECEDING) FROM w"},
	{name: "window count rows vs default frame",
		ref:  "SELECT count(*) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM w",
		cand: "SELECT count(*) OVER (ORDER BY k) FROM w"},
	{name: "datetime is null",
		ref:  "SELECT count(*) FROM t",
		cand: "SELECT count(*) FROM t WHERE d IS NULL"},
}

// TestTargetedBoundaries: each pair of targetPairs is refuted under the
// default options (budget, instance count, seed), by a database that
// keeps the schema and on which the plans really differ.
func TestTargetedBoundaries(t *testing.T) {
	for _, d := range []catalog.Dialect{catalog.Postgres, catalog.SQLite} {
		s := targetSchema(t, d)
		for _, c := range targetPairs {
			t.Run(d.String()+"/"+c.name, func(t *testing.T) {
				ref, cand := mustPlan(t, s, c.ref), mustPlan(t, s, c.cand)
				res, err := Refute(context.Background(), s, ref, cand, Options{Dialect: d})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Found {
					t.Fatalf("not refuted: %s", res.Reason)
				}
				ce := res.Counterexample
				if msg := validate(s, ce.Database, false); msg != "" {
					t.Errorf("counterexample violates the schema: %s", msg)
				}
				o := exec.Options{Dialect: d}
				r1, err1 := exec.ExecuteWith(context.Background(), ref, ce.Database, o)
				r2, err2 := exec.ExecuteWith(context.Background(), cand, ce.Database, o)
				if err1 != nil || err2 != nil || !differs(r1, r2, false) {
					t.Errorf("counterexample does not reproduce (%v, %v):\n%s", err1, err2, strings.Join(ce.Inserts, "\n"))
				}
			})
		}
	}
}

// TestSeedsKeepConstraints: every seed database keeps the declared
// constraints (keys, UNIQUE on a narrow column, CHECK, a generated
// column, foreign keys) and the typical tier's assumptions; targets
// whose copies would break one are dropped, not bent.
func TestSeedsKeepConstraints(t *testing.T) {
	const ddl = `CREATE TABLE p (id integer PRIMARY KEY, name varchar(2) NOT NULL UNIQUE);
CREATE TABLE c (id integer PRIMARY KEY, p_id integer NOT NULL REFERENCES p (id), code char(1) UNIQUE,
  x integer CHECK (x < 3), y integer GENERATED ALWAYS AS (x * 2) STORED, flag boolean);`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ref := mustPlan(t, s, "SELECT p.name, min(c.x), count(*) FROM p JOIN c ON c.p_id = p.id GROUP BY p.name, c.flag HAVING count(*) > 4 ORDER BY min(c.x) DESC LIMIT 1")
	cand := mustPlan(t, s, "SELECT DISTINCT p.name, max(c.y), sum(c.x) FROM p JOIN c ON c.p_id = p.id WHERE c.code IN (SELECT name FROM p) GROUP BY p.name, c.flag HAVING sum(c.x) >= 2")
	rules := typical(readTables(ref, cand))
	g := newGenerators(s, collectLiteralsFor(s.Dialect, ref, cand), rules)[0]
	sd := newSeeder(g, g, 0, collectTargets(ref, cand), maxSeeds)
	n, most := 0, 0
	for i := 0; i < 4*maxSeeds; i++ {
		db := sd.database(i)
		if db == nil {
			continue
		}
		n++
		most = max(most, len(db["c"]))
		if msg := legalCounterexample(s, db, true); msg != "" {
			t.Errorf("seed %d breaks %s: %v", i, msg, db)
		}
		if msg := rules.assumptionBroken(s, db); msg != "" {
			t.Errorf("seed %d is not typical: %s", i, msg)
		}
	}
	// HAVING count(*) > 4 asks for groups of 4, 5 and 6 rows of c.
	if n == 0 || most < 5 {
		t.Errorf("%d seeds, the largest with %d rows of c", n, most)
	}
}
