package equivalence_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestBareColumnRowChoiceSQLite (issue 33, cause 8): a SQLite bare
// column, neither grouped nor aggregated, takes its value from the row
// of the last min() or max() the engine evaluates (select list, HAVING,
// ORDER BY, and calls nobody reads), or from a row of its scan order.
// Pairs that aggregate differently must not be proved, whatever the
// normalizer makes of them; pairs that aggregate alike, or whose bare
// column the group's key determines, stay proved. Each pair's truth is
// shown on SQLite (columns compared as a bag of sorted rows where the
// policy ignores their order).
func TestBareColumnRowChoiceSQLite(t *testing.T) {
	const ddl = `CREATE TABLE t (id integer PRIMARY KEY, g integer, name text, age integer);`
	const rows = `INSERT INTO t VALUES (1, 1, 'a', 1), (2, 1, 'b', 5), (3, 1, 'c', 3), (4, 2, 'd', 2);`
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	cases := []identityCase{
		{name: "having min beside max", a: "SELECT name, max(age) FROM t GROUP BY g", b: "SELECT name, max(age) FROM t GROUP BY g HAVING min(age) > -1", engine: rows},
		{name: "order by min beside max", a: "SELECT name, max(age) FROM t GROUP BY g", b: "SELECT name, max(age) FROM t GROUP BY g ORDER BY min(age)", engine: rows},
		{name: "max, min swapped", a: "SELECT name, max(age), min(age) FROM t GROUP BY g", b: "SELECT name, min(age), max(age) FROM t GROUP BY g", engine: rows},
		{name: "unread min vs max", a: "SELECT name FROM (SELECT name, min(age) FROM t GROUP BY g)", b: "SELECT name FROM (SELECT name, max(age) FROM t GROUP BY g)", engine: rows},
		{name: "same aggregation, other aliases", a: "SELECT name, max(age) FROM t GROUP BY g", b: "SELECT x.name, max(x.age) AS m FROM t AS x GROUP BY x.g", prove: true, engine: rows},
		{name: "bare column the key determines", a: "SELECT name, max(age) FROM t GROUP BY id", b: "SELECT name, max(age) FROM t GROUP BY id, name", prove: true, engine: rows},
	}
	opts := equivalence.Options{ColumnOrder: equivalence.ColumnOrderIgnore, Refute: equivalence.RefuteOptions{Budget: 500 * time.Millisecond}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			differ := liteDifferSorted(t, ddl, c.engine, c.a, c.b)
			if c.prove && differ {
				t.Fatalf("engine: results differ on %s, the case expects them alike", c.engine)
			}
			if !c.prove && !differ {
				t.Fatalf("engine: results agree on %s, the case expects them apart", c.engine)
			}
			v, err := equivalence.Judge(context.Background(), s, c.a, c.b, opts)
			if err != nil {
				t.Fatal(err)
			}
			if proved(v) != c.prove {
				t.Fatalf("judged %s (%s), want proved = %v", v.Label, v.Summary(), c.prove)
			}
			if ce := v.Counterexample; ce != nil && !liteDifferSorted(t, ddl, strings.Join(ce.Inserts, "\n"), c.a, c.b) {
				t.Fatalf("counterexample does not replay on SQLite: %v", ce.Inserts)
			}
		})
	}
}

// liteDifferSorted is liteDiffer with each row's values sorted first, as
// the column_order=ignore policy compares them.
func liteDifferSorted(t *testing.T, ddl, inserts, a, b string) bool {
	t.Helper()
	rs := liteRun(t, ddl, inserts, a, b)
	for _, res := range rs {
		for _, r := range res {
			sort.Strings(r)
		}
	}
	return !sameBagText(rs[0], rs[1])
}

// TestLimitOverTiesSQLite (issue 33, cause 9): which of the rows an
// ORDER BY ties a LIMIT keeps is SQLite's choice, by the order its join
// loops meet them: the same join read the other way round keeps another
// row. Such pairs must not be proved; with a total order they are.
func TestLimitOverTiesSQLite(t *testing.T) {
	const ddl = `CREATE TABLE t (id integer PRIMARY KEY, g integer, name text, age integer);
CREATE TABLE u (id integer PRIMARY KEY, g integer);`
	const rows = `INSERT INTO t VALUES (1, 1, 'a', 5), (2, 2, 'b', 5); INSERT INTO u VALUES (1, 2), (2, 1);`
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	cases := []identityCase{
		{name: "join swapped, ties", a: "SELECT t.name FROM t JOIN u ON t.g = u.g ORDER BY t.age LIMIT 1",
			b: "SELECT t.name FROM u JOIN t ON t.g = u.g ORDER BY t.age LIMIT 1", engine: rows},
		{name: "join swapped, total order", a: "SELECT t.name FROM t JOIN u ON t.g = u.g ORDER BY t.age, t.id, u.id LIMIT 1",
			b: "SELECT t.name FROM u JOIN t ON t.g = u.g ORDER BY t.age, t.id, u.id LIMIT 1", prove: true, engine: rows},
		{name: "same plan, ties", a: "SELECT t.name FROM t JOIN u ON t.g = u.g ORDER BY t.age LIMIT 1",
			b: "SELECT x.name FROM t AS x JOIN u AS y ON x.g = y.g ORDER BY x.age LIMIT 1", prove: true, engine: rows},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if differ := liteDiffer(t, ddl, c.engine, c.a, c.b); differ == c.prove {
				t.Fatalf("engine: results differ = %v on %s, the case expects %v", differ, c.engine, !c.prove)
			}
			v := judgeIdentity(t, s, c.a, c.b)
			if proved(v) != c.prove {
				t.Fatalf("judged %s (%s), want proved = %v", v.Label, v.Summary(), c.prove)
			}
			if ce := v.Counterexample; ce != nil && !liteDiffer(t, ddl, strings.Join(ce.Inserts, "\n"), c.a, c.b) {
				t.Fatalf("counterexample does not replay on SQLite: %v", ce.Inserts)
			}
		})
	}
}
