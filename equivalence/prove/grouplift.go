package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "group lift": a condition on the input of a grouping that
// holds for every row of a group or for none moves above the grouping.
// Groups are classes of = on the grouping columns, and a comparison of a
// grouping column with a grouping column or a value read from no input
// column (a constant, an enclosing query's column) takes one truth value
// over a class, = being transitive and the order agreeing with it (for
// operands of one type). So keeping the rows that satisfy it keeps whole
// groups, each with its aggregates unchanged:
//
//	GROUP BY k over (R WHERE k = o)           is  (GROUP BY k over R) WHERE k = o
//	GROUP BY k over (R SEMI JOIN S ON k = s)  is  (GROUP BY k over R) SEMI JOIN S ON k = s
//
// (anti-joins alike), provided S reads no column of R.

// liftGroupFilter returns n with such conditions moved above it, or nil.
func (p *prover) liftGroupFilter(n *plan.Node) *plan.Node {
	if n.Op != plan.OpAggregate || len(n.GroupBy) == 0 {
		return nil
	}
	in := n.Inputs[0]
	group := plan.MakeColSet(n.GroupBy...)
	switch {
	case in.Op == plan.OpFilter:
		below := allCols(in.Inputs[0])
		var up, keep []*plan.Expr
		for _, e := range in.Preds {
			if classInvariant(e, group, below) {
				up = append(up, e)
			} else {
				keep = append(keep, e)
			}
		}
		if len(up) == 0 {
			return nil
		}
		body := in.Inputs[0]
		if len(keep) > 0 {
			f := *in
			f.Preds = keep
			body = &f
		}
		agg := *n
		agg.Inputs = []*plan.Node{body}
		p.rule(ruleGroupLiftFilter)
		return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{&agg}, Preds: up}
	case in.Op == plan.OpJoin && (in.Join == plan.SemiJoin || in.Join == plan.AntiJoin):
		left := allCols(in.Inputs[0])
		if readsAny(in.Inputs[1], left) {
			return nil
		}
		for _, e := range in.Preds {
			if e.Cols().Intersects(left) && !classInvariant(e, group, left) {
				return nil
			}
		}
		agg := *n
		agg.Inputs = []*plan.Node{in.Inputs[0]}
		j := *in
		j.Inputs = []*plan.Node{&agg, in.Inputs[1]}
		p.ruleOn(ruleGroupLiftJoin, "%s-join", in.Join)
		return &j
	}
	return nil
}

// classInvariant says whether e, over rows of columns below, takes one
// value over each class of = on the group columns: a comparison of two
// operands of one type, each a group column or reading no column below,
// or a NULL test of a group column.
func classInvariant(e *plan.Expr, group, below plan.ColSet) bool {
	operand := func(x *plan.Expr) bool {
		if x.Kind == plan.ColRef && group.Has(x.Col) {
			return true
		}
		if x.HasSubquery() || x.Cols().Intersects(below) {
			return false
		}
		ok := true
		plan.Walk(x, func(y *plan.Expr) {
			if (y.Kind == plan.Func && volatile[y.Name]) || y.Kind == plan.Agg || y.Kind == plan.WinFunc {
				ok = false
			}
		})
		return ok
	}
	if e.Kind != plan.Op {
		return false
	}
	switch e.Name {
	case plan.OpEq, plan.OpNe, plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe, plan.OpIsDistinct, plan.OpNotDistinc:
		return len(e.Args) == 2 && e.Args[0].Typ == e.Args[1].Typ && operand(e.Args[0]) && operand(e.Args[1])
	case plan.OpIsNull, plan.OpIsNotNull:
		return len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef && group.Has(e.Args[0].Col)
	}
	return false
}

// readsAny says whether n reads one of cols anywhere, subqueries
// included.
func readsAny(n *plan.Node, cols plan.ColSet) bool {
	found := false
	n.WalkExprs(func(e *plan.Expr) {
		if e.Kind == plan.ColRef && cols.Has(e.Col) {
			found = true
		}
		if e.Kind == plan.Subquery && e.Sub != nil && readsAny(e.Sub, cols) {
			found = true
		}
	})
	return found
}
