package prove

import (
	"fmt"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "subquery": an uncorrelated subquery in an expression is one
// value for the whole query (or one set, for IN and EXISTS), so two of
// them are the same value when their plans are proved equivalent; keys
// name each of the reference's subqueries, and a candidate's subquery by
// the reference subquery it is proved equal to. A correlated subquery
// (one reading columns from outside its plan) has no name.

func (p *prover) subA(e *plan.Expr) (string, bool) {
	if e.Sub == nil || correlated(e.Sub) || hasOuterArgs(e) {
		return "", false
	}
	for i, x := range p.subsA {
		if x == e.Sub {
			return fmt.Sprintf("sub%d:%d:%s", e.SubKind, i, e.SubOp), true
		}
	}
	p.subsA = append(p.subsA, e.Sub)
	return fmt.Sprintf("sub%d:%d:%s", e.SubKind, len(p.subsA)-1, e.SubOp), true
}

func (p *prover) subB(e *plan.Expr) (string, bool) {
	if e.Sub == nil || correlated(e.Sub) || hasOuterArgs(e) {
		note("subquery of b: correlated or with operands")
		return "", false
	}
	for i, x := range p.subsA {
		r, err := Equivalent(p.ctx, &plan.Plan{Root: x, Meta: p.a.Meta}, &plan.Plan{Root: e.Sub, Meta: p.b.Meta}, p.opts)
		if err != nil {
			return "", false
		}
		if r.Proved {
			for _, a := range r.Assumptions {
				p.assume(a)
			}
			p.rule("subquery: plans proved equivalent")
			return fmt.Sprintf("sub%d:%d:%s", e.SubKind, i, e.SubOp), true
		}
	}
	note("subquery of b: no equivalent subquery among %d of a", len(p.subsA))
	return "", false
}

// hasOuterArgs: the left operands of IN/ANY/ALL are keyed apart; this
// fragment names only the subquery, so it keeps to operand-free uses.
func hasOuterArgs(e *plan.Expr) bool { return len(e.Args) > 0 }

// correlated says whether n reads a column it does not produce.
func correlated(n *plan.Node) bool {
	produced := allCols(n)
	n.WalkNodes(func(x *plan.Node) {
		for _, it := range x.Proj {
			produced.Add(it.ID)
		}
	})
	found := false
	n.WalkExprs(func(e *plan.Expr) {
		plan.WalkDeep(e, func(y *plan.Expr) {
			if y.Kind == plan.ColRef && !produced.Has(y.Col) {
				found = true
			}
		})
	})
	return found
}
