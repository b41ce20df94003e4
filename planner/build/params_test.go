package build

import (
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// paramTypes returns the type of each parameter of sql's plan, by name,
// failing when two occurrences of one parameter are typed apart.
func paramTypes(t *testing.T, s *catalog.Schema, sql string) map[string]catalog.Type {
	t.Helper()
	p, err := Build(s, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	out := map[string]catalog.Type{}
	p.Root.WalkNodes(func(n *plan.Node) {
		n.Exprs(func(e **plan.Expr) {
			plan.WalkDeep(*e, func(x *plan.Expr) {
				if x.Kind != plan.Param {
					return
				}
				if prev, ok := out[x.Value]; ok && prev != x.Typ {
					t.Errorf("%s: %s typed both %s and %s", sql, x.Value, prev, x.Typ)
				}
				out[x.Value] = x.Typ
			})
		})
	})
	return out
}

func TestParamTypes(t *testing.T) {
	type want = map[string]catalog.Type
	tests := []struct {
		sql  string
		want want
	}{
		{"SELECT name FROM dogs WHERE age > $1", want{"$1": catalog.Int}},
		{"SELECT name FROM dogs WHERE $1 < age", want{"$1": catalog.Int}},
		{"SELECT name FROM dogs WHERE weight = $1", want{"$1": catalog.Numeric}},
		{"SELECT name FROM dogs WHERE name = $1 AND age = $2", want{"$1": catalog.Text, "$2": catalog.Int}},
		{"SELECT name FROM dogs WHERE date_of_birth BETWEEN $1 AND $2", want{"$1": catalog.Date, "$2": catalog.Date}},
		{"SELECT name FROM dogs WHERE age IN ($1, $2, 3)", want{"$1": catalog.Int, "$2": catalog.Int}},
		{"SELECT name FROM dogs WHERE $1 IN (age, dog_id)", want{"$1": catalog.Int}},
		{"SELECT name FROM dogs WHERE name LIKE $1", want{"$1": catalog.Text}},
		{"SELECT name FROM dogs WHERE CAST($1 AS date) < date_of_birth", want{"$1": catalog.Date}},
		{"SELECT name FROM dogs WHERE CAST($1 AS numeric) < age", want{"$1": catalog.Numeric}},
		{"SELECT name FROM dogs WHERE age + $1 > 3", want{"$1": catalog.Int}},
		{"SELECT name FROM dogs ORDER BY name LIMIT $1 OFFSET $2", want{"$1": catalog.Int, "$2": catalog.Int}},
		{"SELECT coalesce(age, $1) FROM dogs", want{"$1": catalog.Int}},
		{"SELECT CASE WHEN age > 3 THEN $1 ELSE name END FROM dogs", want{"$1": catalog.Text}},
		// One type per parameter: the first typed use gives it.
		{"SELECT $1 FROM dogs WHERE age = $1", want{"$1": catalog.Int}},
		{"SELECT name FROM dogs WHERE dog_id IN (SELECT dog_id FROM treatments WHERE cost > $1)", want{"$1": catalog.Numeric}},
		// No context: text, as an unknown-typed literal resolves.
		{"SELECT $1 FROM dogs", want{"$1": catalog.Text}},
		{"SELECT name FROM dogs WHERE $1 = $2", want{"$1": catalog.Text, "$2": catalog.Text}},
	}
	for _, d := range []catalog.Dialect{catalog.Postgres, catalog.SQLite} {
		s := schema(t, d)
		for _, tc := range tests {
			got := paramTypes(t, s, tc.sql)
			if len(got) != len(tc.want) {
				t.Errorf("%v %s: parameters %v, want %v", d, tc.sql, got, tc.want)
				continue
			}
			for name, w := range tc.want {
				if got[name] != w {
					t.Errorf("%v %s: %s is %s, want %s", d, tc.sql, name, got[name], w)
				}
			}
		}
	}
}

func TestParamNumber(t *testing.T) {
	for _, tc := range []struct {
		e    *plan.Expr
		n    int
		isOK bool
	}{
		{&plan.Expr{Kind: plan.Param, Value: "$1"}, 1, true},
		{&plan.Expr{Kind: plan.Param, Value: "$12"}, 12, true},
		{plan.NewConst(catalog.Text, "$1"), 0, false},
		{nil, 0, false},
	} {
		n, ok := ParamNumber(tc.e)
		if n != tc.n || ok != tc.isOK {
			t.Errorf("ParamNumber(%v) = %d, %v; want %d, %v", tc.e, n, ok, tc.n, tc.isOK)
		}
	}
}
