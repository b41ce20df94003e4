package plan_test

import (
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestReplaceColsOutsideStopsAtRedefinition: a projection passing column
// a through keeps a's ID, so after a is replaced below it the set
// operation above must still read a (the projection's column), not the
// replacement, which the projection does not output. The soundness net
// found rules leaving such set operations without an input column.
func TestReplaceColsOutsideStopsAtRedefinition(t *testing.T) {
	for _, scoped := range []bool{false, true} {
		meta := &plan.Metadata{}
		col := func(name string) plan.ColumnID {
			return meta.AddColumn(plan.ColumnMeta{Name: name, Type: catalog.Int, Instance: -1, Ordinal: -1})
		}
		a, b, x, out := col("a"), col("b"), col("x"), col("out")
		src := &plan.Node{Op: plan.OpValues, Cols: []plan.ColumnID{a, b}, Rows: [][]*plan.Expr{{plan.NewConst(catalog.Int, "1"), plan.NewConst(catalog.Int, "1")}}}
		if !scoped {
			// With no stop, the rule has removed a's definition already
			// (as fk-join-elimination removes the parent's scan).
			src.Cols, src.Rows = []plan.ColumnID{b}, [][]*plan.Expr{{plan.NewConst(catalog.Int, "1")}}
		}
		filter := &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{src}, Preds: []*plan.Expr{plan.NewOp(plan.OpEq, catalog.Bool, plan.NewCol(a, catalog.Int), plan.NewConst(catalog.Int, "1"))}}
		proj := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{filter}, Proj: []plan.ProjItem{{ID: a, Expr: plan.NewCol(a, catalog.Int)}}}
		other := &plan.Node{Op: plan.OpValues, Cols: []plan.ColumnID{x}, Rows: [][]*plan.Expr{{plan.NewConst(catalog.Int, "1")}}}
		set := &plan.Node{Op: plan.OpSetOp, Set: plan.Intersect, Inputs: []*plan.Node{proj, other}, Cols: []plan.ColumnID{out}, SetCols: [][]plan.ColumnID{{a}, {x}}}
		var stop *plan.Node
		if scoped {
			stop = src // readers of src's a change; src itself is left alone
		}
		plan.ReplaceColsOutside(set, stop, map[plan.ColumnID]*plan.Expr{a: plan.NewCol(b, catalog.Int)})
		if got := proj.Proj[0].Expr; got.Kind != plan.ColRef || got.Col != b {
			t.Errorf("scoped=%v: the projection's definition was not replaced: %+v", scoped, got)
		}
		if got := filter.Preds[0].Args[0].Col; got != b {
			t.Errorf("scoped=%v: the filter below still reads a", scoped)
		}
		if got := set.SetCols[0][0]; got != a {
			t.Errorf("scoped=%v: the set operation reads column %d, want the projection's a (%d)", scoped, got, a)
		}
	}
}
