package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
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
	if l.Inputs[0].ReadsOuter() {
		return nil
	}
	return l.Inputs[0]
}

// anySemi reads a filter conjunct x op ANY (S), S uncorrelated with one
// column y, as a semi-join with S on x op y: the conjunct is TRUE exactly
// when some row of S makes x op y TRUE. (The planner does this where it
// plans the conjunct; a disjunct split off by disjunctionAsUnion meets
// it here.) NOT (x op ANY (S)) and x op' ALL (S) are read by
// quantifiedJoin. It returns nil when no conjunct has that form.
func (p *prover) anySemi(n *plan.Node) *plan.Node {
	if n.Op != plan.OpFilter || len(n.Inputs) != 1 {
		return nil
	}
	for i, e := range n.Preds {
		if e.Kind != plan.Subquery || e.SubKind != plan.SubAny {
			continue
		}
		if j := p.quantifiedJoin(n, e, e.SubOp, plan.SemiJoin); j != nil {
			return conjunctAsJoin(n, i, j)
		}
	}
	return nil
}

// negatedComparison maps a comparison to the one that is TRUE exactly
// where it is FALSE (and NULL where it is NULL).
var negatedComparison = map[string]string{plan.OpEq: plan.OpNe, plan.OpNe: plan.OpEq, plan.OpLt: plan.OpGe,
	plan.OpGe: plan.OpLt, plan.OpGt: plan.OpLe, plan.OpLe: plan.OpGt}

// notAnyAnti reads a filter conjunct that is TRUE exactly when no row of
// S makes x op y anything but FALSE, as an anti-join on (x op y) IS NOT
// FALSE (S uncorrelated with one column y):
//
//	NOT (x op ANY (S))  — NOT IN is NOT (x = ANY (S))
//	x op ALL (S)        — that is NOT (x op' ANY (S)), op' the negation
//
// and NOT (x op ALL (S)) as the semi-join on x op' y. A NULL x, or a NULL
// in S, makes x op y NULL, not FALSE: the row is dropped, as the NOT IN
// drops it; an empty S keeps every row. It returns nil when no conjunct
// has one of these forms.
func (p *prover) notAnyAnti(n *plan.Node) *plan.Node {
	if n.Op != plan.OpFilter || len(n.Inputs) != 1 {
		return nil
	}
	for i, e := range n.Preds {
		neg := e.IsOp(plan.OpNot) && len(e.Args) == 1
		q := e
		if neg {
			q = e.Args[0]
		}
		if q.Kind != plan.Subquery {
			continue
		}
		var j *plan.Node
		switch {
		case q.SubKind == plan.SubAny && neg:
			j = p.quantifiedJoin(n, q, q.SubOp, plan.AntiJoin)
		case q.SubKind == plan.SubAll && !neg && negatedComparison[q.SubOp] != "":
			j = p.quantifiedJoin(n, q, negatedComparison[q.SubOp], plan.AntiJoin)
		case q.SubKind == plan.SubAll && neg && negatedComparison[q.SubOp] != "":
			j = p.quantifiedJoin(n, q, negatedComparison[q.SubOp], plan.SemiJoin)
		}
		if j != nil {
			return conjunctAsJoin(n, i, j)
		}
	}
	return nil
}

// quantifiedJoin is the join of filter n's input with quantified
// subquery q's plan on x op y: a semi-join on it, or an anti-join on
// (x op y) IS NOT FALSE; nil unless q has one argument and its plan is
// uncorrelated with one column. A DISTINCT on top of the plan is dropped
// (setUse): the join reads it as a set.
func (p *prover) quantifiedJoin(n *plan.Node, q *plan.Expr, op string, kind plan.JoinKind) *plan.Node {
	if q.Sub == nil || len(q.Args) != 1 || op == "" {
		return nil
	}
	outs := q.Sub.OutCols()
	if len(outs) != 1 || q.Sub.ReadsOuter() {
		return nil
	}
	y := plan.NewCol(outs[0], q.Args[0].Typ)
	if q.Sub.Op == plan.OpProject && len(q.Sub.Proj) == 1 {
		y.Typ = q.Sub.Proj[0].Expr.Typ
	}
	cond := plan.NewOp(op, catalog.Bool, q.Args[0].Copy(), y)
	if kind == plan.AntiJoin {
		cond = plan.NewOp(plan.OpIsNotFalse, catalog.Bool, cond)
	}
	return &plan.Node{Op: plan.OpJoin, Join: kind, Inputs: []*plan.Node{n.Inputs[0], p.setUse(q.Sub, q)}, Preds: []*plan.Expr{cond}}
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
