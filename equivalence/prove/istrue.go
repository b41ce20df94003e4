package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "predicates", boolean tests of a conjunct:
//
//   - is-true-conjunct: a conjunct x IS TRUE of a filter or inner join
//     condition is x: only TRUE keeps a row, and x IS TRUE is TRUE
//     exactly where x is. x IS NOT FALSE is x where x is never NULL: a
//     comparison of columns the input, or the other conjuncts, keep
//     non-NULL (declared NOT NULL, or rejected NULL below) and of
//     non-NULL constants; a NULL x would keep the row under IS NOT
//     FALSE and drop it as x.

// isTrueConjuncts rewrites the conjuncts x IS TRUE, and x IS NOT FALSE of
// a never-NULL comparison x, of filter or inner join n to x, or returns
// nil.
func (p *prover) isTrueConjuncts(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || (n.Op != plan.OpFilter && !(n.Op == plan.OpJoin && n.Join == plan.InnerJoin)) {
		return nil
	}
	found := false
	for _, e := range n.Preds {
		if (e.IsOp(plan.OpIsTrue) || e.IsOp(plan.OpIsNotFalse)) && len(e.Args) == 1 {
			found = true
		}
	}
	if !found {
		return nil
	}
	var notNull plan.ColSet
	ready := false
	nonNull := func(e *plan.Expr) bool {
		if !ready {
			ready = true
			for _, in := range n.Inputs {
				notNull.UnionWith(plan.Derive(in, m).NotNull)
			}
			for _, x := range n.Preds {
				if !containsSubquery(x) {
					notNull.UnionWith(plan.NullRejected(x))
				}
			}
		}
		return nonNullComparison(e, notNull)
	}
	preds := make([]*plan.Expr, len(n.Preds))
	changed := false
	for i, e := range n.Preds {
		preds[i] = e
		switch {
		case e.IsOp(plan.OpIsTrue) && len(e.Args) == 1:
			preds[i], changed = e.Args[0], true
		case e.IsOp(plan.OpIsNotFalse) && len(e.Args) == 1 && nonNull(e.Args[0]):
			// The conjunct itself rejects no NULL: the columns are
			// non-NULL by the input or the other conjuncts.
			preds[i], changed = e.Args[0], true
		}
	}
	if !changed {
		return nil
	}
	c := *n
	c.Preds = preds
	p.rule(ruleIsTrueConjunct)
	return &c
}

// nonNullComparison says whether e is a comparison of columns in notNull
// and non-NULL constants: never NULL, and never an error.
func nonNullComparison(e *plan.Expr, notNull plan.ColSet) bool {
	if e.Kind != plan.Op || !comparisons[e.Name] || len(e.Args) != 2 {
		return false
	}
	for _, a := range e.Args {
		switch {
		case a.Kind == plan.ColRef && notNull.Has(a.Col):
		case a.Kind == plan.Const && !a.Null:
		default:
			return false
		}
	}
	return true
}
