package refute

import (
	"context"
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

func TestPartitionPlans(t *testing.T) {
	s := exampleSchema(t)
	sqls := []string{
		"SELECT name FROM dogs WHERE age > 3",          // 0
		"SELECT COUNT(*) FROM dogs",                    // 1
		"SELECT d.name FROM dogs d WHERE 3 < d.age",    // 2
		"SELECT COUNT(dog_id) FROM dogs",               // 3
		"SELECT name FROM dogs WHERE age >= 3",         // 4
		"SELECT name FROM dogs ORDER BY age",           // 5
		"SELECT name FROM dogs ORDER BY age DESC",      // 6
		"SELECT name FROM dogs",                        // 7: a bag, agrees with 5 and 6
		"SELECT DISTINCT name FROM dogs WHERE age > 3", // 8
	}
	plans := make([]*plan.Plan, len(sqls)+1) // the last is nil: a candidate that did not plan
	for i, q := range sqls {
		plans[i] = mustPlan(t, s, q)
	}
	part, err := PartitionPlans(context.Background(), s, plans, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	classOf := func(i int) int {
		for k, c := range part.Classes {
			if slices.Contains(c, i) {
				return k
			}
		}
		return -1
	}
	if classOf(len(sqls)) != -1 {
		t.Errorf("the nil plan is in a class: %v", part.Classes)
	}
	for _, same := range [][2]int{{0, 2}, {1, 3}} {
		if classOf(same[0]) != classOf(same[1]) {
			t.Errorf("#%d and #%d apart: %v", same[0], same[1], part.Classes)
		}
	}
	for _, apart := range [][2]int{{0, 4}, {0, 1}, {5, 6}, {0, 8}} {
		if classOf(apart[0]) == classOf(apart[1]) {
			t.Errorf("#%d and #%d together: %v", apart[0], apart[1], part.Classes)
			continue
		}
		ce := part.Witness(context.Background(), s, plans[apart[0]], plans[apart[1]], testOpts())
		if ce == nil {
			t.Errorf("no witness for #%d vs #%d", apart[0], apart[1])
		}
	}
	// The unordered scan compares as a bag with either ordered one, so it
	// joins the first of them it meets.
	if k := classOf(7); k != classOf(5) && k != classOf(6) {
		t.Errorf("#7 in neither ordered class: %v", part.Classes)
	}
	if r, n := part.AgreementRate(0, 2); r != 1 || n == 0 {
		t.Errorf("agreement of #0 and #2 = %v on %d databases, want 1", r, n)
	}
	if r, _ := part.AgreementRate(0, 4); r <= 0 || r >= 1 {
		t.Errorf("agreement of age > 3 and age >= 3 = %v, want strictly between 0 and 1", r)
	}
	if part.Instances == 0 || part.Stats[1].Ran == 0 {
		t.Errorf("instances %d, stats %+v", part.Instances, part.Stats[1])
	}
}

// A plan the executor does not model is reported, not guessed, and the
// others are partitioned without it.
func TestPartitionCannotExecute(t *testing.T) {
	s, err := catalog.LoadDDL("CREATE TABLE t (a integer PRIMARY KEY, b text)", catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	opts := testOpts()
	opts.Dialect = catalog.SQLite
	plans := []*plan.Plan{
		mustPlan(t, s, "SELECT b FROM t"),
		mustPlan(t, s, "SELECT date(b, '+1 day') FROM t"),
		mustPlan(t, s, "SELECT b FROM t WHERE a > 0"),
	}
	part, err := PartitionPlans(context.Background(), s, plans, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := part.CannotExecute[1]; !ok {
		t.Fatalf("date with a modifier: want cannot execute, got %+v", part)
	}
	if len(part.Classes) != 2 || slices.ContainsFunc(part.Classes, func(c []int) bool { return slices.Contains(c, 1) }) {
		t.Errorf("classes %v, want [[0] [2]]", part.Classes)
	}
}
