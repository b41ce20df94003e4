package planner_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestCanonicalTellsApart lists pairs that differ on some database and
// whose canonical plans must therefore differ: a fingerprint match would
// be a wrong "equivalent".
func TestCanonicalTellsApart(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	pairs := []struct{ name, a, b string }{
		{"constant under the null-extended side",
			"SELECT d.name, x.one FROM dogs d LEFT JOIN (SELECT 1 AS one FROM owners WHERE city = 'x') x ON d.age > 3",
			"SELECT d.name, 1 FROM dogs d LEFT JOIN (SELECT 1 AS one FROM owners WHERE city = 'x') x ON d.age > 3"},
		{"constants of two outer joins",
			"SELECT x.one FROM dogs d LEFT JOIN (SELECT 1 AS one FROM owners) x ON d.age > 3 LEFT JOIN (SELECT 1 AS two FROM owners) y ON d.age > 5",
			"SELECT y.two FROM dogs d LEFT JOIN (SELECT 1 AS one FROM owners) x ON d.age > 3 LEFT JOIN (SELECT 1 AS two FROM owners) y ON d.age > 5"},
		{"coalesce under a full join",
			"SELECT x.c FROM (SELECT coalesce(age, 0) AS c FROM dogs) x FULL JOIN owners o ON x.c = o.owner_id",
			"SELECT coalesce(x.a, 0) FROM (SELECT age AS a FROM dogs) x FULL JOIN owners o ON coalesce(x.a, 0) = o.owner_id"},
		{"rollup against its plain grouping",
			"SELECT owner_id, count(*) FROM dogs GROUP BY ROLLUP(owner_id)",
			"SELECT owner_id, count(*) FROM dogs GROUP BY owner_id"},
		{"grouping sets with a repeated set",
			"SELECT owner_id, count(*) FROM dogs GROUP BY GROUPING SETS ((owner_id), (owner_id))",
			"SELECT owner_id, count(*) FROM dogs GROUP BY DISTINCT GROUPING SETS ((owner_id), (owner_id))"},
		{"grouping bitmask order",
			"SELECT grouping(owner_id, breed_code) FROM dogs GROUP BY CUBE(owner_id, breed_code)",
			"SELECT grouping(breed_code, owner_id) FROM dogs GROUP BY CUBE(owner_id, breed_code)"},
		{"window frame offsets",
			"SELECT sum(age) OVER (ORDER BY dog_id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM dogs",
			"SELECT sum(age) OVER (ORDER BY dog_id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM dogs"},
		{"interval qualifiers",
			"SELECT name FROM dogs WHERE date_of_birth < date '2020-01-01' + interval '3' month",
			"SELECT name FROM dogs WHERE date_of_birth < date '2020-01-01' + interval '3' day"},
		{"numeric type modifiers",
			"SELECT CAST(weight AS numeric(10,2)) FROM dogs",
			"SELECT CAST(weight AS numeric(10,3)) FROM dogs"},
		{"varchar truncation",
			"SELECT CAST(name AS varchar(3)) FROM dogs",
			"SELECT name FROM dogs"},
		{"left lateral keeps unmatched rows",
			"SELECT o.owner_id, x.name FROM owners o LEFT JOIN LATERAL (SELECT d.name FROM dogs d WHERE d.owner_id = o.owner_id) x ON true",
			"SELECT o.owner_id, x.name FROM owners o JOIN LATERAL (SELECT d.name FROM dogs d WHERE d.owner_id = o.owner_id) x ON true"},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			a, err := planner.Plan(context.Background(), s, p.a, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := planner.Plan(context.Background(), s, p.b, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if a.Canonical() == b.Canonical() {
				t.Errorf("same canonical plan for queries that differ:\n%s", a.Canonical())
			}
		})
	}
}

// TestCanonicalIdentifies lists pairs that must plan alike.
func TestCanonicalIdentifies(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	pairs := []struct{ name, a, b string }{
		{"lateral join is the join",
			"SELECT o.first_name, x.name FROM owners o, LATERAL (SELECT d.name FROM dogs d WHERE d.owner_id = o.owner_id) x",
			"SELECT o.first_name, d.name FROM owners o JOIN dogs d ON d.owner_id = o.owner_id"},
		{"a short literal under varchar(n) is the literal",
			"SELECT name FROM dogs WHERE name = 'ab'::varchar(5)",
			"SELECT name FROM dogs WHERE name = 'ab'"},
		{"lateral scalar aggregate is the scalar subquery",
			"SELECT d.name, x.c FROM dogs d LEFT JOIN LATERAL (SELECT count(*) AS c FROM owners o WHERE o.owner_id = d.owner_id) x ON true",
			"SELECT d.name, (SELECT count(*) FROM owners o WHERE o.owner_id = d.owner_id) FROM dogs d"},
		{"aliases do not matter under grouping sets",
			"SELECT a.owner_id, count(*) FROM dogs a GROUP BY ROLLUP(a.owner_id)",
			"SELECT b.owner_id, count(*) FROM dogs b GROUP BY ROLLUP(b.owner_id)"},
		{"grouping of a plain group by is zero",
			"SELECT owner_id, grouping(owner_id) FROM dogs GROUP BY owner_id",
			"SELECT owner_id, 0 FROM dogs GROUP BY owner_id"},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			a, err := planner.Plan(context.Background(), s, p.a, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := planner.Plan(context.Background(), s, p.b, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if a.Canonical() != b.Canonical() {
				t.Errorf("canonical plans differ:\n%s\n---\n%s", a.Canonical(), b.Canonical())
			}
		})
	}
}

// TestRefused lists queries the planner must refuse rather than plan
// with a meaning they do not have.
func TestRefused(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	for _, sql := range []string{
		// A dependent join of a shape without an exact independent form.
		"SELECT * FROM owners o LEFT JOIN LATERAL (SELECT o.city FROM dogs d WHERE d.owner_id = o.owner_id) x ON true",
		// (A LATERAL LIMIT 1 row and a LATERAL GROUP BY are planned since
		// issue 35 — row_number() per outer row, the outer key grouped
		// with — and run against PostgreSQL in planner/exec's
		// TestLateralPushDifferential.)
		// PostgreSQL's own errors.
		"SELECT * FROM owners o RIGHT JOIN LATERAL (SELECT d.name FROM dogs d WHERE d.owner_id = o.owner_id) x ON true",
		"SELECT grouping(age) FROM dogs GROUP BY owner_id",
		"SELECT name FROM dogs WHERE grouping(age) = 0",
		"SELECT owner_id, age FROM dogs GROUP BY ROLLUP(owner_id)",
	} {
		if p, err := planner.Plan(context.Background(), s, sql, planner.Options{}); err == nil {
			t.Errorf("%s: planned as\n%s", sql, p.Canonical())
		}
	}
}

// TestGroupingColumnsAreLocal: normalization must not make an Aggregate
// group by a column its input does not produce. An outer column equated
// inside a correlated subquery once replaced the local one, and the
// equality itself then became a tautology (TPC-H q18's rewrite).
func TestGroupingColumnsAreLocal(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	for _, sql := range []string{
		"SELECT name FROM dogs d WHERE EXISTS (SELECT 1 FROM (SELECT owner_id, sum(age) AS c FROM dogs GROUP BY owner_id) x WHERE x.owner_id = d.owner_id AND x.c > 1)",
		"SELECT name FROM (SELECT * FROM dogs WHERE owner_id IS NOT NULL) d WHERE EXISTS (SELECT 1 FROM (SELECT owner_id FROM (SELECT owner_id, sum(age) AS c FROM dogs GROUP BY owner_id) y WHERE c > 1) x WHERE d.owner_id = x.owner_id)",
	} {
		p, err := planner.Plan(context.Background(), s, sql, planner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var check func(n *plan.Node)
		check = func(n *plan.Node) {
			n.WalkNodes(func(x *plan.Node) {
				if x.Op == plan.OpAggregate {
					in := x.Inputs[0].OutColSet()
					for _, g := range x.GroupBy {
						if !in.Has(g) {
							t.Errorf("%s: aggregate groups by a column its input lacks:\n%s", sql, p.Canonical())
						}
					}
				}
				x.Exprs(func(e **plan.Expr) {
					plan.Walk(*e, func(y *plan.Expr) {
						if y.Kind == plan.Subquery {
							check(y.Sub)
						}
					})
				})
			})
		}
		check(p.Root)
	}
}

// TestSQLiteRefuses: constructs SQLite does not have are errors in the
// sqlite dialect, as they are in SQLite.
func TestSQLiteRefuses(t *testing.T) {
	s := exampleSchema(t, catalog.SQLite)
	for _, sql := range []string{
		"SELECT owner_id, count(*) FROM dogs GROUP BY ROLLUP(owner_id)",
		"SELECT owner_id, grouping(owner_id) FROM dogs GROUP BY owner_id",
		"SELECT bit_and(age) FROM dogs",
		"SELECT bool_or(age > 3) FROM dogs",
		"SELECT d.name, x.c FROM dogs d JOIN LATERAL (SELECT count(*) AS c FROM owners o WHERE o.owner_id = d.owner_id) x ON true",
	} {
		if p, err := planner.Plan(context.Background(), s, sql, planner.Options{}); err == nil {
			t.Errorf("%s: planned as\n%s", sql, p.Canonical())
		}
	}
}
