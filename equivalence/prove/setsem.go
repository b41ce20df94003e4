package prove

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "set operations under set semantics": UNION, INTERSECT and
// EXCEPT without ALL read each branch only as the set of its rows on the
// set-operation columns (NULLs not distinct, as DISTINCT compares them).
// So a branch compares as DISTINCT over its set-operation columns: a
// DISTINCT inside a branch, or columns the branch computes beside them,
// change nothing.

// setBranches rewrites the branches of a set operation without ALL as
// deduplications of their set-operation columns.
func setBranches(brs []branch, pl *plan.Plan) []branch {
	out := make([]branch, len(brs))
	for i, br := range brs {
		out[i] = setBranch(br, pl)
	}
	return out
}

func setBranch(br branch, pl *plan.Plan) branch {
	if br.n.Op == plan.OpDistinct && slices.Equal(br.n.OutCols(), br.cols) {
		return br
	}
	have := br.n.OutColSet()
	var seen plan.ColSet
	items := make([]plan.ProjItem, len(br.cols))
	for i, c := range br.cols {
		if seen.Has(c) || !have.Has(c) {
			return br // a column read twice, or not an output: leave it
		}
		seen.Add(c)
		items[i] = plan.ProjItem{ID: c, Expr: plan.NewCol(c, pl.Meta.Col(c).Type)}
	}
	proj := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{br.n}, Proj: items}
	return branch{n: &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{proj}}, cols: br.cols}
}

// setUse strips a DISTINCT at the top of subquery plan n when use reads
// it as a set (IN/ANY/ALL, EXISTS): whether a row is in it, or whether
// it has one, does not depend on duplicates.
func (p *prover) setUse(n *plan.Node, use *plan.Expr) *plan.Node {
	if use.SubKind == plan.SubScalar {
		return n
	}
	for n.Op == plan.OpDistinct {
		n = n.Inputs[0]
		p.rule(ruleDistinctUnderIn)
	}
	return n
}
