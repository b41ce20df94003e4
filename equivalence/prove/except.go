package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "EXCEPT as an anti-join": L EXCEPT R (without ALL) is the
// distinct rows of L with no row of R equal to them column for column,
// NULLs not distinct:
//
//	L EXCEPT R  =  DISTINCT π (L ▷[l₁ IS NOT DISTINCT FROM r₁ AND ...] R)
//
// It is read so only against a side that is not a set operation (two
// EXCEPTs compare branch by branch).

// exceptAsAnti rewrites n as above, or returns nil.
func (p *prover) exceptAsAnti(n *plan.Node, pl *plan.Plan) *plan.Node {
	if n.Op != plan.OpSetOp || n.Set != plan.Except || n.All || len(n.Inputs) != 2 || len(n.SetCols) != 2 {
		return nil
	}
	l, r := n.SetCols[0], n.SetCols[1]
	if len(l) != len(n.Cols) || len(r) != len(n.Cols) {
		return nil
	}
	preds := make([]*plan.Expr, len(l))
	proj := make([]plan.ProjItem, len(l))
	for k := range l {
		tl, tr := pl.Meta.Col(l[k]).Type, pl.Meta.Col(r[k]).Type
		preds[k] = plan.NewOp(plan.OpNotDistinc, catalog.Bool, plan.NewCol(l[k], tl), plan.NewCol(r[k], tr))
		proj[k] = plan.ProjItem{ID: n.Cols[k], Expr: plan.NewCol(l[k], tl)}
	}
	anti := &plan.Node{Op: plan.OpJoin, Join: plan.AntiJoin, Inputs: []*plan.Node{n.Inputs[0], n.Inputs[1]}, Preds: preds}
	project := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{anti}, Proj: proj}
	p.rule(ruleExceptAntiJoin)
	return &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{project}}
}
