package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// existsLimit reads a filter conjunct (SELECT k FROM X LIMIT 1) IS NOT
// NULL, k a non-NULL constant and X uncorrelated, as a semi-join with X:
// the subquery is k when X has a row and NULL when it has none (LIMIT 1
// keeps it to one row, so it never fails). IS NULL is the anti-join. It
// returns nil when no conjunct has that form.
func existsLimit(n *plan.Node) *plan.Node {
	if n.Op != plan.OpFilter || len(n.Inputs) != 1 {
		return nil
	}
	for i, e := range n.Preds {
		if (!e.IsOp(plan.OpIsNotNull) && !e.IsOp(plan.OpIsNull)) || len(e.Args) != 1 {
			continue
		}
		x := limitOneConst(e.Args[0])
		if x == nil {
			continue
		}
		kind := plan.SemiJoin
		if e.IsOp(plan.OpIsNull) {
			kind = plan.AntiJoin
		}
		return conjunctAsJoin(n, i, &plan.Node{Op: plan.OpJoin, Join: kind, Inputs: []*plan.Node{n.Inputs[0], x}})
	}
	return nil
}

// limitOneConst returns X for a scalar subquery SELECT k FROM X LIMIT 1
// (no offset, k a non-NULL constant, X uncorrelated), else nil.
func limitOneConst(e *plan.Expr) *plan.Node {
	if e.Kind != plan.Subquery || e.SubKind != plan.SubScalar || e.Sub == nil {
		return nil
	}
	s := e.Sub
	if s.Op != plan.OpProject || len(s.Proj) != 1 || s.Proj[0].Expr.Kind != plan.Const || s.Proj[0].Expr.Null || len(s.Inputs) != 1 {
		return nil
	}
	l := s.Inputs[0]
	if l.Op != plan.OpLimit || l.Limit == nil || l.Limit.Kind != plan.Const || l.Limit.Null || l.Limit.Value != "1" || len(l.Inputs) != 1 {
		return nil
	}
	if l.Offset != nil && !(l.Offset.Kind == plan.Const && !l.Offset.Null && l.Offset.Value == "0") {
		return nil
	}
	if correlated(l.Inputs[0]) {
		return nil
	}
	return l.Inputs[0]
}

// anySemi reads a filter conjunct x op ANY (S), S uncorrelated with one
// column y, as a semi-join with S on x op y: the conjunct is TRUE exactly
// when some row of S makes x op y TRUE. (The planner does this where it
// plans the conjunct; a disjunct split off by disjunctionAsUnion meets
// it here.) It returns nil when no conjunct has that form.
func anySemi(n *plan.Node) *plan.Node {
	if n.Op != plan.OpFilter || len(n.Inputs) != 1 {
		return nil
	}
	for i, e := range n.Preds {
		if e.Kind != plan.Subquery || e.SubKind != plan.SubAny || e.Sub == nil || len(e.Args) != 1 || e.SubOp == "" {
			continue
		}
		outs := e.Sub.OutCols()
		if len(outs) != 1 || correlated(e.Sub) {
			continue
		}
		y := plan.NewCol(outs[0], e.Args[0].Typ)
		if e.Sub.Op == plan.OpProject && len(e.Sub.Proj) == 1 {
			y.Typ = e.Sub.Proj[0].Expr.Typ
		}
		cond := plan.NewOp(e.SubOp, e.Typ, e.Args[0].Copy(), y)
		return conjunctAsJoin(n, i, &plan.Node{Op: plan.OpJoin, Join: plan.SemiJoin, Inputs: []*plan.Node{n.Inputs[0], e.Sub}, Preds: []*plan.Expr{cond}})
	}
	return nil
}

// conjunctAsJoin returns filter n with its i-th conjunct read as the join
// j of n's input: j alone when no other conjunct is left, else a copy of n
// over j without that conjunct.
func conjunctAsJoin(n *plan.Node, i int, j *plan.Node) *plan.Node {
	rest := append(append([]*plan.Expr(nil), n.Preds[:i]...), n.Preds[i+1:]...)
	if len(rest) == 0 {
		return j
	}
	c := *n
	c.Inputs = []*plan.Node{j}
	c.Preds = rest
	return &c
}
