package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "EXISTS conjuncts of the outer row": a semi-join keeps a row r
// when some row s of S makes every conjunct of its condition TRUE; a
// conjunct c reading r's columns only is the same for every s, so
//
//	R ⋉[c ∧ d] S  ⇒  σ[c](R) ⋉[d] S
//
// (r is kept exactly when c(r) is TRUE and some s makes d TRUE). c must
// evaluate alike once per r as once per (r, s) pair: no volatile call, no
// subquery, and nothing that can raise an error an empty S would have
// spared (division, casts, functions); + - * are read under the
// arithmetic fragment's no-overflow assumption. An anti-join is not
// rewritten: a row whose c is not TRUE is kept there, not dropped.

// safeOuterOps are the operators a moved conjunct may use.
var safeOuterOps = map[string]bool{plan.OpAnd: true, plan.OpOr: true, plan.OpNot: true, plan.OpEq: true, plan.OpNe: true,
	plan.OpLt: true, plan.OpLe: true, plan.OpGt: true, plan.OpGe: true, plan.OpIsNull: true, plan.OpIsNotNull: true,
	plan.OpIsDistinct: true, plan.OpNotDistinc: true, plan.OpIsTrue: true, plan.OpIsNotTrue: true, plan.OpIsFalse: true,
	plan.OpIsNotFalse: true, plan.OpAdd: true, plan.OpSub: true, plan.OpMul: true, plan.OpNeg: true}

// movableConjunct says whether c reads only columns of outer and is
// built from columns, constants and safeOuterOps.
func movableConjunct(c *plan.Expr, outer plan.ColSet) bool {
	ok := true
	plan.WalkDeep(c, func(x *plan.Expr) {
		switch {
		case x.Kind == plan.ColRef:
			if !outer.Has(x.Col) {
				ok = false
			}
		case x.Kind == plan.Const:
		case x.Kind == plan.Op && safeOuterOps[x.Name]:
		default:
			ok = false
		}
	})
	return ok && !c.Cols().Empty()
}

// existsOuter rewrites semi-join n, moving the conjuncts of its
// condition that read its left input only into a filter on that input;
// nil when none moves.
func existsOuter(n *plan.Node) *plan.Node {
	if n.Op != plan.OpJoin || n.Join != plan.SemiJoin || len(n.Inputs) != 2 {
		return nil
	}
	outer := allCols(n.Inputs[0])
	var moved, kept []*plan.Expr
	for _, e := range n.Preds {
		if movableConjunct(e, outer) {
			moved = append(moved, e)
		} else {
			kept = append(kept, e)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	c := *n
	c.Inputs = []*plan.Node{{Op: plan.OpFilter, Inputs: []*plan.Node{n.Inputs[0]}, Preds: moved}, n.Inputs[1]}
	c.Preds = kept
	return &c
}
