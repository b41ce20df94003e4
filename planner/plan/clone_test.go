package plan_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestPlanClone: a clone is equal to its plan and shares nothing a rule
// rewrites: changing constants (subqueries included), nodes and metadata
// of the clone leaves the original as it was.
func TestPlanClone(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Plan(context.Background(), s, `SELECT name, age + 1 FROM dogs d WHERE age > 3 AND EXISTS (SELECT 1 FROM dogs e WHERE e.age = d.age + 7) ORDER BY name LIMIT 2`, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := p.Canonical()
	c := p.Clone()
	text := func(q *plan.Plan) string { return plan.NewFormatter(q.Meta, q.Root, false).Node(q.Root) }
	if c.Canonical() != before || text(c) != text(p) || !reflect.DeepEqual(c.Meta, p.Meta) || !reflect.DeepEqual(c.Names, p.Names) || c.Ordered != p.Ordered {
		t.Fatal("clone differs from its plan")
	}
	consts := 0
	var mutate func(n *plan.Node)
	mutate = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			x.WalkExprs(func(e *plan.Expr) {
				plan.Walk(e, func(y *plan.Expr) {
					switch y.Kind {
					case plan.Const:
						y.Value = "999"
						consts++
					case plan.Subquery:
						mutate(y.Sub)
					}
				})
			})
			x.Inputs = append(x.Inputs[:0:0], x.Inputs...)
		})
	}
	mutate(c.Root)
	c.Root = c.Root.Inputs[0]
	c.Meta.AddColumn(plan.ColumnMeta{Name: "extra"})
	c.Meta.Columns[0].Name = "renamed"
	c.Meta.Instances[0].Cols[0] = 42
	c.Names[0] = "renamed"
	if consts < 3 {
		t.Fatalf("mutated %d constants, want the subquery's too", consts)
	}
	if got := p.Canonical(); got != before {
		t.Errorf("rewriting the clone changed the original:\nbefore %s\nafter  %s", before, got)
	}
	if p.Meta.Columns[0].Name == "renamed" || p.Meta.Instances[0].Cols[0] == 42 || p.Names[0] == "renamed" {
		t.Error("the clone shares metadata or names with the original")
	}
	if (*plan.Plan)(nil).Clone() != nil {
		t.Error("Clone of nil")
	}
}
