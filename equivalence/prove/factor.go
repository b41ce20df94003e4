package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "factor": a conjunct common to every disjunct of a disjunction
// comes out of it,
//
//	(x AND a) OR (x AND b)  is  x AND (a OR b)
//
// AND and OR under three-valued logic (Kleene's) form a distributive
// lattice, so the two take the same value (not only the same truth) on
// every row; and by absorption a disjunct left with no conjunct makes the
// disjunction x alone: x OR (x AND a) is x. This keeps the enumeration of
// a large disjunction (TPC-H Q19's three branches) within its bound: the
// common conjuncts become conjuncts of their own, and the checks divide
// goal by goal.

// factorOr rewrites a top-level disjunction of e; it says whether it
// factored one.
func factorOr(e *plan.Expr) (*plan.Expr, bool) {
	if !e.IsOp(plan.OpOr) || len(e.Args) < 2 {
		return e, false
	}
	id := func(c plan.ColumnID) (plan.ColumnID, bool) { return c, true }
	type conj struct {
		e   *plan.Expr
		key string
	}
	branches := make([][]conj, len(e.Args))
	for i, d := range e.Args {
		for _, c := range plan.Conjuncts(d) {
			k, ok := exprKey(c, id)
			if !ok {
				return e, false
			}
			branches[i] = append(branches[i], conj{c, k})
		}
	}
	common := map[string]bool{}
	for _, c := range branches[0] {
		common[c.key] = true
	}
	for _, b := range branches[1:] {
		in := map[string]bool{}
		for _, c := range b {
			if common[c.key] {
				in[c.key] = true
			}
		}
		common = in
	}
	if len(common) == 0 {
		return e, false
	}
	var out []*plan.Expr
	taken := map[string]bool{}
	for _, c := range branches[0] {
		if common[c.key] && !taken[c.key] {
			taken[c.key] = true
			out = append(out, c.e)
		}
	}
	var rest []*plan.Expr
	for _, b := range branches {
		var left []*plan.Expr
		for _, c := range b {
			if !common[c.key] {
				left = append(left, c.e)
			}
		}
		if len(left) == 0 {
			// x OR (x AND a) is x.
			return plan.And(out), true
		}
		rest = append(rest, plan.And(left))
	}
	out = append(out, &plan.Expr{Kind: plan.Op, Name: plan.OpOr, Typ: catalog.Bool, Args: rest, Pos: -1})
	return plan.And(out), true
}
