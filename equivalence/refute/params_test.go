package refute

import (
	"context"
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

func hasParam(p *plan.Plan) bool {
	found := false
	p.Root.WalkNodes(func(n *plan.Node) {
		n.Exprs(func(e **plan.Expr) {
			plan.WalkDeep(*e, func(x *plan.Expr) { found = found || x.Kind == plan.Param })
		})
	})
	return found
}

func TestParamCandidates(t *testing.T) {
	s := exampleSchema(t)
	ref := mustPlan(t, s, "SELECT name FROM dogs WHERE age > 5")
	cand := mustPlan(t, s, "SELECT name FROM dogs WHERE age > $1 AND name LIKE $2")
	params := paramsOf(ref, cand)
	if len(params) != 2 || params[0].name != "$1" || params[0].typ != catalog.Int || params[1].typ != catalog.Text {
		t.Fatalf("params %+v", params)
	}
	as := assignments(s, params, ref, cand)
	if len(as) < 4 || len(as) > maxAssignments {
		t.Fatalf("%d assignments", len(as))
	}
	// The literal compared with the same column comes first, then its
	// neighbours, then NULL (age > 5 is normalized to age >= 6).
	var first []string
	for _, a := range as[:4] {
		p := a[0]
		if p.Null {
			first = append(first, "NULL")
		} else {
			first = append(first, p.Value)
		}
	}
	if !slices.Equal(first, []string{"6", "5", "7", "NULL"}) {
		t.Errorf("$1 tries %v first, want [6 5 7 NULL]", first)
	}
	// Parameters with the same candidates get different values in some
	// assignment.
	same := mustPlan(t, s, "SELECT name FROM dogs WHERE age > $1 OR age < $2")
	apart := false
	for _, a := range assignments(s, paramsOf(same), same) {
		apart = apart || a[0] != (Param{Name: "$1", Type: a[1].Type, Value: a[1].Value, Null: a[1].Null})
	}
	if !apart {
		t.Error("$1 and $2 always get the same value")
	}
}

func TestBindParamsCopies(t *testing.T) {
	s := exampleSchema(t)
	p := mustPlan(t, s, "SELECT name FROM dogs WHERE age > $1 AND dog_id IN (SELECT dog_id FROM treatments WHERE cost = $2) ORDER BY name LIMIT $3")
	b := bindParams(p, []Param{{Name: "$1", Type: "int", Value: "3"}, {Name: "$2", Type: "numeric", Null: true}, {Name: "$3", Type: "int", Value: "2"}})
	if hasParam(b) {
		t.Error("a parameter is left in the bound plan")
	}
	if !hasParam(p) {
		t.Error("binding changed the original plan")
	}
}

func TestRefuteChoosesParams(t *testing.T) {
	s := exampleSchema(t)
	tests := []struct{ ref, cand string }{
		{"SELECT name FROM dogs WHERE age > $1", "SELECT name FROM dogs WHERE age >= $1"},
		{"SELECT name FROM dogs WHERE age > $1", "SELECT name FROM dogs WHERE age > $2"},
		{"SELECT count(*) FROM dogs WHERE age > $1 AND age < 10", "SELECT count(owner_id) FROM dogs WHERE age > $1"},
	}
	for _, tc := range tests {
		res, err := Refute(context.Background(), s, mustPlan(t, s, tc.ref), mustPlan(t, s, tc.cand), testOpts())
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || len(res.Counterexample.Params) == 0 {
			t.Errorf("%s / %s: %+v", tc.ref, tc.cand, res)
			continue
		}
		// The values found make the bound plans differ on the database.
		a := bindParams(mustPlan(t, s, tc.ref), res.Counterexample.Params)
		b := bindParams(mustPlan(t, s, tc.cand), res.Counterexample.Params)
		c := &comparer{ref: a, cand: b, opts: testOpts().withDefaults()}
		out, err := c.run(context.Background(), res.Counterexample.Database)
		if err != nil || out.kind != differ {
			t.Errorf("%s / %s: bound plans on the counterexample: %v, %v", tc.ref, tc.cand, out.kind, err)
		}
	}
	// Equal for every value: nothing found, and the search says how far
	// it went.
	res, err := Refute(context.Background(), s, mustPlan(t, s, "SELECT name FROM dogs WHERE age > $1"), mustPlan(t, s, "SELECT name FROM dogs WHERE $1 < age"), testOpts())
	if err != nil || res.Found || res.CannotExecute || res.Instances == 0 {
		t.Errorf("equal pair: %+v, %v", res, err)
	}
}

// TestSQLiteLimitParamNeverNull: SQLite raises "datatype mismatch" for a
// NULL LIMIT wherever it evaluates it, even in an uncorrelated subquery
// no outer row needs, which the executor cannot count on; so a LIMIT or
// OFFSET parameter is never bound to NULL there (found by the SQLite
// re-check of Spider counterexamples). PostgreSQL reads LIMIT NULL as no
// limit, and NULL stays a candidate.
func TestSQLiteLimitParamNeverNull(t *testing.T) {
	for _, d := range []catalog.Dialect{catalog.SQLite, catalog.Postgres} {
		s, err := catalog.LoadDDL(catalog.ExampleDDL(), d)
		if err != nil {
			t.Fatal(err)
		}
		ref := mustPlan(t, s, "SELECT name FROM dogs WHERE dog_id = (SELECT dog_id FROM dogs ORDER BY age LIMIT 1)")
		cand := mustPlan(t, s, "SELECT name FROM dogs WHERE dog_id = (SELECT dog_id FROM dogs ORDER BY age LIMIT $1 OFFSET $2)")
		params := paramsOf(ref, cand)
		if len(params) != 2 || !params[0].inLimit || !params[1].inLimit {
			t.Fatalf("%v: params %+v: want both in a LIMIT/OFFSET", d, params)
		}
		null := false
		for _, a := range assignments(s, params, ref, cand) {
			for _, p := range a {
				null = null || p.Null
			}
		}
		if null != (d == catalog.Postgres) {
			t.Errorf("%v: a NULL bound tried = %v", d, null)
		}
	}
}
