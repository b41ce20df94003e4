package refute

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

func TestAgree(t *testing.T) {
	s := exampleSchema(t)
	opts := Options{TrustForeignKeys: true, Seed: 3}
	cases := []struct {
		name      string
		a, b      string
		differ    bool
		orderOnly bool
	}{
		{"equivalent", "SELECT name FROM dogs WHERE age > 3", "SELECT name FROM dogs WHERE NOT age <= 3", false, false},
		{"boundary", "SELECT name FROM dogs WHERE age > 3", "SELECT name FROM dogs WHERE age >= 3", true, false},
		{"column order", "SELECT name, age FROM dogs", "SELECT age, name FROM dogs", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Agree(context.Background(), s, mustPlan(t, s, tc.a), mustPlan(t, s, tc.b), 60, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Counterexample != nil; got != tc.differ {
				t.Fatalf("differ = %v, want %v: %+v", got, tc.differ, res)
			}
			if tc.differ && res.Counterexample.ColumnOrderOnly != tc.orderOnly {
				t.Errorf("column order only = %v", res.Counterexample.ColumnOrderOnly)
			}
			if !tc.differ && res.Instances+res.Rejected != 60 {
				t.Errorf("tried %d+%d databases, want 60", res.Instances, res.Rejected)
			}
			if tc.differ && !strings.Contains(res.Counterexample.String(), "INSERT INTO dogs") {
				t.Errorf("counterexample does not show the database:\n%s", res.Counterexample)
			}
		})
	}
	// A filter narrows the databases: none with an empty dogs table may
	// tell these apart.
	keep := func(db exec.Database) bool { return len(db["dogs"]) > 0 }
	res, err := Agree(context.Background(), s, mustPlan(t, s, "SELECT count(*) > 0 FROM dogs"), mustPlan(t, s, "SELECT true"), 60, opts, keep)
	if err != nil || res.Counterexample != nil || res.Rejected == 0 {
		t.Errorf("under the filter: %+v, %v", res, err)
	}
}

// TestChain: each step compares neighbours only, and a step that found
// its difference stops while the others go on.
func TestChain(t *testing.T) {
	s := exampleSchema(t)
	plans := []*plan.Plan{
		mustPlan(t, s, "SELECT name FROM dogs WHERE age > 3"),
		mustPlan(t, s, "SELECT name FROM dogs WHERE age >= 4"),
		mustPlan(t, s, "SELECT name FROM dogs WHERE age >= 3"),
		mustPlan(t, s, "SELECT name FROM dogs WHERE 3 <= age"),
	}
	steps, err := Chain(context.Background(), s, plans, 80, Options{TrustForeignKeys: true, Seed: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || steps[0].Counterexample != nil || steps[1].Counterexample == nil || steps[2].Counterexample != nil {
		t.Fatalf("steps: %+v", steps)
	}
	if steps[2].Instances+steps[2].Rejected != 80 || steps[1].Instances >= 80 {
		t.Errorf("step 2 ran on %d+%d databases, step 1 on %d", steps[2].Instances, steps[2].Rejected, steps[1].Instances)
	}
}
