package rewrite

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// checkDefinitions is plan.CheckDefinitions, which the judge's soundness
// net asserts after every rule that fires (equivalence's recordFirings).
func checkDefinitions(p *plan.Plan) error { return plan.CheckDefinitions(p) }

func TestCheckDefinitionsFindsCycles(t *testing.T) {
	meta := &plan.Metadata{}
	a := meta.AddColumn(plan.ColumnMeta{Name: "a", Instance: -1, Ordinal: -1})
	b := meta.AddColumn(plan.ColumnMeta{Name: "b", Instance: -1, Ordinal: -1})
	vals := &plan.Node{Op: plan.OpValues, Cols: []plan.ColumnID{a}}
	tests := []struct {
		name  string
		root  *plan.Node
		cycle bool
	}{
		{"pass-through", &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{vals}, Proj: []plan.ProjItem{{ID: a, Expr: plan.NewCol(a, catalog.Int)}}}, false},
		{"chain", &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{vals}, Proj: []plan.ProjItem{{ID: b, Expr: plan.NewCol(a, catalog.Int)}}}, false},
		{"two-cycle", &plan.Node{Op: plan.OpProject, Proj: []plan.ProjItem{{ID: b, Expr: plan.NewCol(a, catalog.Int)}},
			Inputs: []*plan.Node{{Op: plan.OpAggregate, Inputs: []*plan.Node{vals}, Aggs: []plan.ProjItem{{ID: a, Expr: &plan.Expr{Kind: plan.Agg, Name: "max", Args: []*plan.Expr{plan.NewCol(b, catalog.Int)}}}}}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkDefinitions(&plan.Plan{Root: tc.root, Meta: meta})
			if (err != nil) != tc.cycle {
				t.Errorf("checkDefinitions = %v, want cycle %v", err, tc.cycle)
			}
		})
	}
}

// TestOrderLimitToMaxMovesReaders: a node above the rewritten projection
// that reads its column must read the MAX afterwards, through a fresh
// column, with no definition cycle. The planner merges such projections
// before the rule sees them, so the plan is built by hand.
func TestOrderLimitToMaxMovesReaders(t *testing.T) {
	meta := &plan.Metadata{}
	c := meta.AddColumn(plan.ColumnMeta{Name: "x", Type: catalog.Int, Instance: -1, Ordinal: -1})
	vals := &plan.Node{Op: plan.OpValues, Cols: []plan.ColumnID{c}, Rows: [][]*plan.Expr{{plan.NewConst(catalog.Int, "1")}, {plan.NewConst(catalog.Int, "2")}}}
	sort := &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{vals}, Keys: []plan.SortKey{{Expr: plan.NewCol(c, catalog.Int), Desc: true}}}
	lim := &plan.Node{Op: plan.OpLimit, Inputs: []*plan.Node{sort}, Limit: plan.NewConst(catalog.Int, "1")}
	inner := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{lim}, Proj: []plan.ProjItem{{ID: c, Expr: plan.NewCol(c, catalog.Int)}}}
	y := meta.AddColumn(plan.ColumnMeta{Name: "y", Type: catalog.Int, Instance: -1, Ordinal: -1})
	root := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{inner}, Proj: []plan.ProjItem{{ID: y, Expr: plan.NewOp("+", catalog.Int, plan.NewCol(c, catalog.Int), plan.NewConst(catalog.Int, "1"))}}}
	p := &plan.Plan{Root: root, Meta: meta}
	var fired []string
	rc := &Ctx{ctx: context.Background(), p: p, fired: func(r string) { fired = append(fired, r) }, assume: func(Assumption) {}}
	if !orderLimitToMax(rc, &root.Inputs[0]) {
		t.Fatal("order-limit-to-max did not fire")
	}
	if err := checkDefinitions(p); err != nil {
		t.Fatal(err)
	}
	got := plan.NewFormatter(meta, p.Root, true).Node(p.Root)
	if !strings.Contains(got, "project (max(values.c1) + 1)") {
		t.Errorf("the reader above does not read the MAX:\n%s", got)
	}
}
