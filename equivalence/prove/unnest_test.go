package prove_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

const unnestDDL = `
CREATE TABLE o (id integer PRIMARY KEY, v numeric(10,2) NOT NULL, w integer);
CREATE TABLE l (lid integer PRIMARY KEY, oid integer NOT NULL, q numeric(10,2), k integer);
CREATE TABLE p (pid integer PRIMARY KEY, name text NOT NULL);
`

// TestUnnestGroupLiftSemiDup: the unnest, group-lift and redundant
// semi-join fragments. Each "false" row is a pair that differs on some
// database (the COUNT bug, a correlation other than equality, the
// subquery under OR or a non-strict function, a filter on a column that
// is not grouped, a semi-join on a column not equal to the other's), so a
// proof of it would be wrong; want names the rule a proof must show.
func TestUnnestGroupLiftSemiDup(t *testing.T) {
	s, err := catalog.LoadDDL(unnestDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, a, b string
		want       bool
		rule       string
	}{
		{"avg", "SELECT o.id FROM o WHERE o.v < (SELECT AVG(l.q) FROM l WHERE l.oid = o.id)",
			"SELECT o.id FROM o JOIN (SELECT oid, AVG(q) AS a FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.a", true, "unnest: correlated scalar avg"},
		{"scaled min, not null filter", "SELECT o.id FROM o WHERE o.v >= (SELECT 0.5 * MIN(l.q) FROM l WHERE l.oid = o.id AND l.k > 3)",
			"SELECT o.id FROM o JOIN (SELECT * FROM (SELECT oid, 0.5 * MIN(q) AS m FROM l WHERE k > 3 GROUP BY oid) x WHERE m IS NOT NULL) g ON o.id = g.oid AND CAST(o.v AS numeric(20,4)) >= g.m", true, "unnest: correlated scalar min"},
		{"nullable key", "SELECT o.id, o.v FROM o WHERE o.v = (SELECT MAX(l.q) FROM l WHERE l.k = o.w)",
			"SELECT o.id, o.v FROM o, (SELECT k, MAX(q) AS m FROM l GROUP BY k) g WHERE g.k = o.w AND g.m = o.v", true, "unnest: correlated scalar max"},
		{"in a semi-join", "SELECT p.name FROM p WHERE p.pid IN (SELECT l.k FROM l WHERE l.q > (SELECT SUM(v) FROM o WHERE o.w = l.oid))",
			"SELECT p.name FROM p WHERE EXISTS (SELECT 1 FROM l JOIN (SELECT w, SUM(v) AS s FROM o GROUP BY w) g ON g.w = l.oid AND l.q > g.s WHERE l.k = p.pid)", true, "unnest: correlated scalar sum"},
		{"argument reads the enclosing row", "SELECT o.id FROM o WHERE o.v < (SELECT SUM(l.q * o.w) FROM l WHERE l.oid = o.id)",
			"SELECT o.id FROM o JOIN (SELECT oid, SUM(q * oid) AS s FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.s", false, ""},
		{"ordered and limited", "SELECT o.id, o.w FROM o WHERE o.v < (SELECT AVG(l.q) FROM l WHERE l.oid = o.id) ORDER BY o.id LIMIT 3",
			"SELECT o.id, o.w FROM o JOIN (SELECT oid, AVG(q) AS a FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.a ORDER BY o.id LIMIT 3", true, "unnest: correlated scalar avg"},
		{"ordered by the aggregate", "SELECT o.id, o.w FROM o WHERE o.v < (SELECT AVG(l.q) FROM l WHERE l.oid = o.id) ORDER BY o.id LIMIT 1",
			"SELECT o.id, o.w FROM o JOIN (SELECT oid, AVG(q) AS a FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.a ORDER BY g.a, o.id LIMIT 1", false, ""},
		{"count star", "SELECT o.id FROM o WHERE o.v < (SELECT COUNT(*) FROM l WHERE l.oid = o.id)",
			"SELECT o.id FROM o JOIN (SELECT oid, COUNT(*) AS c FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.c", false, ""},
		{"count column", "SELECT o.id FROM o WHERE o.v < (SELECT COUNT(l.q) FROM l WHERE l.oid = o.id)",
			"SELECT o.id FROM o JOIN (SELECT oid, COUNT(q) AS c FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.c", false, ""},
		{"inequality correlation", "SELECT o.id FROM o WHERE o.v < (SELECT MAX(l.q) FROM l WHERE l.oid < o.id)",
			"SELECT o.id FROM o JOIN (SELECT oid, MAX(q) AS m FROM l GROUP BY oid) g ON g.oid < o.id AND o.v < g.m", false, ""},
		{"under or", "SELECT o.id FROM o WHERE o.v < (SELECT MAX(l.q) FROM l WHERE l.oid = o.id) OR o.w = 1",
			"SELECT o.id FROM o JOIN (SELECT oid, MAX(q) AS m FROM l GROUP BY oid) g ON g.oid = o.id AND (o.v < g.m OR o.w = 1)", false, ""},
		{"non-strict coalesce", "SELECT o.id FROM o WHERE o.v < COALESCE((SELECT MAX(l.q) FROM l WHERE l.oid = o.id), 100)",
			"SELECT o.id FROM o JOIN (SELECT oid, MAX(q) AS m FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < COALESCE(g.m, 100)", false, ""},
		{"is null", "SELECT o.id FROM o WHERE (SELECT MAX(l.q) FROM l WHERE l.oid = o.id) IS NULL",
			"SELECT o.id FROM o JOIN (SELECT oid, MAX(q) AS m FROM l GROUP BY oid) g ON g.oid = o.id AND g.m IS NULL", false, ""},
		{"semi-join lifted over grouping", "SELECT o.id FROM o WHERE o.id IN (SELECT oid FROM l GROUP BY oid HAVING SUM(q) > 3)",
			"SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM (SELECT oid, SUM(q) AS s FROM l WHERE l.oid = o.id GROUP BY oid) x WHERE s > 3)", true, "group lift: filter on grouping columns"},
		{"filter on an ungrouped column", "SELECT o.id FROM o WHERE o.id IN (SELECT oid FROM l GROUP BY oid HAVING SUM(q) > 3)",
			"SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM (SELECT oid, SUM(q) AS s FROM l WHERE l.k = o.w GROUP BY oid) x WHERE x.oid = o.id AND s > 3)", false, ""},
		{"semi-join across an equality", "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT w FROM o o2)",
			"SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT w FROM o o2) AND l.oid IN (SELECT w FROM o o2)", true, "semi-join: implied by another"},
		// On a key the semi-joins are joins, and the two instances one row.
		{"semi-join on a key across an equality", "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT pid FROM p)",
			"SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT pid FROM p) AND l.oid IN (SELECT pid FROM p)", true, "self-join on a key of p"},
		{"semi-join on another column", "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT pid FROM p)",
			"SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT pid FROM p) AND l.k IN (SELECT pid FROM p)", false, ""},
		{"grouped semi-join on a key", "SELECT o.id FROM o JOIN (SELECT oid, SUM(q) AS s FROM l WHERE oid IN (SELECT pid FROM p) GROUP BY oid) g ON g.oid = o.id WHERE o.id IN (SELECT pid FROM p)",
			"SELECT o.id FROM o JOIN (SELECT oid, SUM(q) AS s FROM l GROUP BY oid) g ON g.oid = o.id WHERE o.id IN (SELECT pid FROM p)", true, "group lift: semi-join"},
		{"grouped semi-join on an ungrouped column", "SELECT o.id, g.s FROM o JOIN (SELECT oid, SUM(q) AS s FROM l WHERE k IN (SELECT pid FROM p) GROUP BY oid) g ON g.oid = o.id WHERE o.id IN (SELECT pid FROM p)",
			"SELECT o.id, g.s FROM o JOIN (SELECT oid, SUM(q) AS s FROM l GROUP BY oid) g ON g.oid = o.id WHERE o.id IN (SELECT pid FROM p)", false, ""},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := planner.Plan(ctx, s, c.a, planner.Options{})
			if err != nil {
				t.Fatalf("%s: %v", c.a, err)
			}
			b, err := planner.Plan(ctx, s, c.b, planner.Options{})
			if err != nil {
				t.Fatalf("%s: %v", c.b, err)
			}
			for _, dir := range [][2]int{{0, 1}, {1, 0}} {
				x, y := a, b
				if dir[0] == 1 {
					x, y = b, a
				}
				r, err := prove.Equivalent(ctx, x, y, prove.Options{TrustForeignKeys: true})
				if err != nil {
					t.Fatal(err)
				}
				if r.Proved != c.want {
					t.Errorf("direction %v: proved %v, want %v (%v)", dir, r.Proved, c.want, r.Rules)
				}
				if r.Proved && !strings.Contains(strings.Join(r.Rules, "; "), c.rule) {
					t.Errorf("direction %v: rules %v lack %q", dir, r.Rules, c.rule)
				}
			}
			// The executor on random databases: a proved pair must
			// survive it, and each unproved one here differs.
			res, err := refute.Refute(ctx, s, a, b, refute.Options{MaxInstances: 300, Budget: 2 * time.Second, Seed: 7, TrustForeignKeys: true, Dialect: catalog.Postgres})
			if err != nil {
				t.Fatal(err)
			}
			if c.want && res.Instances == 0 {
				t.Errorf("the executor ran no instance")
			}
			if res.Found == c.want {
				t.Errorf("refuter found a counterexample: %v (want proved: %v)", res.Found, c.want)
			}
		})
	}
}
