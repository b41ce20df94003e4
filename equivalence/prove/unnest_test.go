package prove_test

import (
	"testing"
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
	cases := []ruleCase{
		{name: "avg",
			a:    "SELECT o.id FROM o WHERE o.v < (SELECT AVG(l.q) FROM l WHERE l.oid = o.id)",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, AVG(q) AS a FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.a",
			want: true, rule: "unnest-scalar: avg"},
		{name: "scaled min, not null filter",
			a:    "SELECT o.id FROM o WHERE o.v >= (SELECT 0.5 * MIN(l.q) FROM l WHERE l.oid = o.id AND l.k > 3)",
			b:    "SELECT o.id FROM o JOIN (SELECT * FROM (SELECT oid, 0.5 * MIN(q) AS m FROM l WHERE k > 3 GROUP BY oid) x WHERE m IS NOT NULL) g ON o.id = g.oid AND CAST(o.v AS numeric(20,4)) >= g.m",
			want: true, rule: "unnest-scalar: min"},
		{name: "nullable key",
			a:    "SELECT o.id, o.v FROM o WHERE o.v = (SELECT MAX(l.q) FROM l WHERE l.k = o.w)",
			b:    "SELECT o.id, o.v FROM o, (SELECT k, MAX(q) AS m FROM l GROUP BY k) g WHERE g.k = o.w AND g.m = o.v",
			want: true, rule: "unnest-scalar: max"},
		{name: "in a semi-join",
			a:    "SELECT p.name FROM p WHERE p.pid IN (SELECT l.k FROM l WHERE l.q > (SELECT SUM(v) FROM o WHERE o.w = l.oid))",
			b:    "SELECT p.name FROM p WHERE EXISTS (SELECT 1 FROM l JOIN (SELECT w, SUM(v) AS s FROM o GROUP BY w) g ON g.w = l.oid AND l.q > g.s WHERE l.k = p.pid)",
			want: true, rule: "unnest-scalar: sum"},
		{name: "argument reads the enclosing row",
			a:    "SELECT o.id FROM o WHERE o.v < (SELECT SUM(l.q * o.w) FROM l WHERE l.oid = o.id)",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, SUM(q * oid) AS s FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.s",
			want: false},
		{name: "ordered and limited",
			a:    "SELECT o.id, o.w FROM o WHERE o.v < (SELECT AVG(l.q) FROM l WHERE l.oid = o.id) ORDER BY o.id LIMIT 3",
			b:    "SELECT o.id, o.w FROM o JOIN (SELECT oid, AVG(q) AS a FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.a ORDER BY o.id LIMIT 3",
			want: true, rule: "unnest-scalar: avg"},
		{name: "ordered by the aggregate",
			a:    "SELECT o.id, o.w FROM o WHERE o.v < (SELECT AVG(l.q) FROM l WHERE l.oid = o.id) ORDER BY o.id LIMIT 1",
			b:    "SELECT o.id, o.w FROM o JOIN (SELECT oid, AVG(q) AS a FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.a ORDER BY g.a, o.id LIMIT 1",
			want: false},
		{name: "count star",
			a:    "SELECT o.id FROM o WHERE o.v < (SELECT COUNT(*) FROM l WHERE l.oid = o.id)",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, COUNT(*) AS c FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.c",
			want: false},
		{name: "count column",
			a:    "SELECT o.id FROM o WHERE o.v < (SELECT COUNT(l.q) FROM l WHERE l.oid = o.id)",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, COUNT(q) AS c FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < g.c",
			want: false},
		{name: "inequality correlation",
			a:    "SELECT o.id FROM o WHERE o.v < (SELECT MAX(l.q) FROM l WHERE l.oid < o.id)",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, MAX(q) AS m FROM l GROUP BY oid) g ON g.oid < o.id AND o.v < g.m",
			want: false},
		{name: "under or",
			a:    "SELECT o.id FROM o WHERE o.v < (SELECT MAX(l.q) FROM l WHERE l.oid = o.id) OR o.w = 1",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, MAX(q) AS m FROM l GROUP BY oid) g ON g.oid = o.id AND (o.v < g.m OR o.w = 1)",
			want: false},
		{name: "non-strict coalesce",
			a:    "SELECT o.id FROM o WHERE o.v < COALESCE((SELECT MAX(l.q) FROM l WHERE l.oid = o.id), 100)",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, MAX(q) AS m FROM l GROUP BY oid) g ON g.oid = o.id AND o.v < COALESCE(g.m, 100)",
			want: false},
		{name: "is null",
			a:    "SELECT o.id FROM o WHERE (SELECT MAX(l.q) FROM l WHERE l.oid = o.id) IS NULL",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, MAX(q) AS m FROM l GROUP BY oid) g ON g.oid = o.id AND g.m IS NULL",
			want: false},
		{name: "semi-join lifted over grouping",
			a:    "SELECT o.id FROM o WHERE o.id IN (SELECT oid FROM l GROUP BY oid HAVING SUM(q) > 3)",
			b:    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM (SELECT oid, SUM(q) AS s FROM l WHERE l.oid = o.id GROUP BY oid) x WHERE s > 3)",
			want: true, rule: "group-lift-filter"},
		{name: "filter on an ungrouped column",
			a:    "SELECT o.id FROM o WHERE o.id IN (SELECT oid FROM l GROUP BY oid HAVING SUM(q) > 3)",
			b:    "SELECT o.id FROM o WHERE EXISTS (SELECT 1 FROM (SELECT oid, SUM(q) AS s FROM l WHERE l.k = o.w GROUP BY oid) x WHERE x.oid = o.id AND s > 3)",
			want: false},
		{name: "semi-join across an equality",
			a:    "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT w FROM o o2)",
			b:    "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT w FROM o o2) AND l.oid IN (SELECT w FROM o o2)",
			want: true, rule: "semi-join-implied"},
		// On a key the semi-joins are joins, and the two instances one row.
		{name: "semi-join on a key across an equality",
			a:    "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT pid FROM p)",
			b:    "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT pid FROM p) AND l.oid IN (SELECT pid FROM p)",
			want: true, rule: "self-join-on-key: p"},
		{name: "semi-join on another column",
			a:    "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT pid FROM p)",
			b:    "SELECT o.id, l.lid FROM o JOIN l ON o.id = l.oid WHERE o.id IN (SELECT pid FROM p) AND l.k IN (SELECT pid FROM p)",
			want: false},
		{name: "grouped semi-join on a key",
			a:    "SELECT o.id FROM o JOIN (SELECT oid, SUM(q) AS s FROM l WHERE oid IN (SELECT pid FROM p) GROUP BY oid) g ON g.oid = o.id WHERE o.id IN (SELECT pid FROM p)",
			b:    "SELECT o.id FROM o JOIN (SELECT oid, SUM(q) AS s FROM l GROUP BY oid) g ON g.oid = o.id WHERE o.id IN (SELECT pid FROM p)",
			want: true, rule: "group-lift-join: semi-join"},
		{name: "grouped semi-join on an ungrouped column",
			a:    "SELECT o.id, g.s FROM o JOIN (SELECT oid, SUM(q) AS s FROM l WHERE k IN (SELECT pid FROM p) GROUP BY oid) g ON g.oid = o.id WHERE o.id IN (SELECT pid FROM p)",
			b:    "SELECT o.id, g.s FROM o JOIN (SELECT oid, SUM(q) AS s FROM l GROUP BY oid) g ON g.oid = o.id WHERE o.id IN (SELECT pid FROM p)",
			want: false},
	}
	runRuleCases(t, unnestDDL, cases)
}
