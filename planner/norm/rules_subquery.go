package norm

import (
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// subqueryToSemiJoin turns WHERE conjuncts over subqueries into joins:
//
//	x IN (SELECT k FROM r WHERE p)   ⇒ SemiJoin(x, r, x = k AND p)
//	EXISTS (SELECT … FROM r WHERE p) ⇒ SemiJoin(x, r, p)
//	NOT EXISTS (…)                   ⇒ AntiJoin(x, r, p)
//	x NOT IN (SELECT k …)            ⇒ AntiJoin(x, r, x = k), only when x
//	                                   and k are provably not null
//
// Correlated conjuncts of the subquery's top filter become join
// conditions; deeper correlation stays inside the right input, which then
// reads as a dependent (apply) join.
func subqueryToSemiJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter {
		return n, false
	}
	for i, p := range n.Preds {
		neg := false
		e := p
		if e.IsOp(plan.OpNot) {
			neg, e = true, e.Args[0]
		}
		if e.Kind != plan.Subquery || (e.SubKind != plan.SubExists && !(e.SubKind == plan.SubAny && e.SubOp == plan.OpEq)) {
			continue
		}
		right, outs, ok := stripSubquery(e.Sub, e.SubKind == plan.SubExists)
		if !ok {
			continue
		}
		kind := plan.SemiJoin
		rule := ""
		if neg {
			kind = plan.AntiJoin
			rule = RuleNotExistsToAnti
			if e.SubKind == plan.SubAny {
				if !z.notNullIn(n.Inputs[0], e.Args) || !z.notNullIn(right, outs) {
					continue
				}
				rule = RuleNotInToAnti
			}
		}
		var conds []*plan.Expr
		for j, a := range e.Args {
			if e.SubKind == plan.SubAny {
				conds = append(conds, plan.NewOp(plan.OpEq, catalog.Bool, a, outs[j]))
			}
		}
		// Pull correlated conjuncts of the subquery's top filter up.
		inner := right.OutColSet()
		if right.Op == plan.OpFilter {
			inner = right.Inputs[0].OutColSet()
			var keep []*plan.Expr
			for _, q := range right.Preds {
				if !q.Cols().SubsetOf(inner) && !q.HasSubquery() {
					conds = append(conds, q)
				} else {
					keep = append(keep, q)
				}
			}
			right.Preds = keep
			if len(keep) == 0 {
				right = right.Inputs[0]
			}
		}
		j := &plan.Node{Op: plan.OpJoin, Join: kind, Inputs: []*plan.Node{n.Inputs[0], right}, Preds: conds}
		n.Preds = append(n.Preds[:i:i], n.Preds[i+1:]...)
		n.Inputs[0] = j
		if rule != "" {
			z.fire(rule)
		}
		if len(n.Preds) == 0 {
			return j, true
		}
		return n, true
	}
	return n, false
}

// stripSubquery removes what a semi join ignores from a subquery plan:
// ORDER BY (for IN only when no key may raise), DISTINCT, and the
// projection (whose expressions it returns for IN). An EXISTS also
// ignores LIMIT n for n ≥ 1.
func stripSubquery(sub *plan.Node, exists bool) (*plan.Node, []*plan.Expr, bool) {
	var outs []*plan.Expr
	if !exists {
		for _, c := range sub.OutCols() {
			outs = append(outs, plan.NewCol(c, catalog.Unknown))
		}
	}
	n := sub
	for {
		switch {
		case n.Op == plan.OpSort && (exists || !sortKeysMayRaise(n, n.Keys)) || n.Op == plan.OpDistinct:
			// PostgreSQL drops an EXISTS subquery's ORDER BY but sorts
			// an IN subquery, evaluating keys that may fail.
			n = n.Inputs[0]
			continue
		case n.Op == plan.OpLimit && exists && n.Offset == nil && n.Limit != nil && n.Limit.Kind == plan.Const && positive(n.Limit.Value):
			n = n.Inputs[0]
			continue
		case n.Op == plan.OpProject:
			if !exists {
				m := map[plan.ColumnID]*plan.Expr{}
				for _, it := range n.Proj {
					m[it.ID] = it.Expr
				}
				for i, o := range outs {
					if d, ok := m[o.Col]; ok && o.Kind == plan.ColRef {
						outs[i] = d.Copy()
					}
				}
			}
			n = n.Inputs[0]
			continue
		}
		break
	}
	for _, o := range outs {
		if o.Kind == plan.ColRef && !n.OutColSet().Has(o.Col) {
			return nil, nil, false // the output comes from an operator we cannot see past
		}
	}
	return n, outs, true
}

func positive(v string) bool {
	i, err := strconv.Atoi(v)
	return err == nil && i >= 1
}

// notNullIn reports whether every expression is a column that n never
// returns NULL for, or a non-null literal.
func (z *normalizer) notNullIn(n *plan.Node, es []*plan.Expr) bool {
	props := z.derive(n)
	for _, e := range es {
		switch {
		case e.Kind == plan.Const && !e.Null:
		case e.Kind == plan.ColRef && props.NotNull.Has(e.Col):
		default:
			return false
		}
	}
	return true
}

// leftJoinIsNullToAnti: Filter(LeftJoin(a, b, p), b.k IS NULL) ⇒
// AntiJoin(a, b, p) when b.k is never NULL in b and nothing else reads b:
// the filter keeps exactly the rows of a without a match.
func leftJoinIsNullToAnti(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return n, false
	}
	j := n.Inputs[0]
	right := j.Inputs[1].OutColSet()
	props := z.derive(j.Inputs[1])
	for i, p := range n.Preds {
		if !p.IsOp(plan.OpIsNull) || p.Args[0].Kind != plan.ColRef || !right.Has(p.Args[0].Col) || !props.NotNull.Has(p.Args[0].Col) {
			continue
		}
		rest := append(append([]*plan.Expr(nil), n.Preds[:i]...), n.Preds[i+1:]...)
		if z.readsOutside(j, rest, right) {
			continue
		}
		j.Join = plan.AntiJoin
		if len(rest) == 0 {
			return j, true
		}
		n.Preds = rest
		return n, true
	}
	return n, false
}

// readsOutside reports whether cols are referenced by extra or anywhere in
// the plan outside the subtree at stop.
func (z *normalizer) readsOutside(stop *plan.Node, extra []*plan.Expr, cols plan.ColSet) bool {
	found := false
	check := func(e *plan.Expr) {
		plan.WalkDeep(e, func(x *plan.Expr) {
			if x.Kind == plan.ColRef && cols.Has(x.Col) {
				found = true
			}
		})
	}
	for _, e := range extra {
		check(e)
	}
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == stop || found {
			return
		}
		// The filter holding the IS NULL test is checked through extra.
		if !(n.Op == plan.OpFilter && len(n.Inputs) == 1 && n.Inputs[0] == stop) {
			n.Exprs(func(s **plan.Expr) { check(*s) })
			for _, g := range n.GroupBy {
				if cols.Has(g) {
					found = true
				}
			}
			for _, sc := range n.SetCols {
				for _, c := range sc {
					if cols.Has(c) {
						found = true
					}
				}
			}
		}
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(z.p.Root)
	return found
}

// pushFilterIntoSemiJoin: Filter(SemiJoin(a, b, p), q) ⇒
// Filter(SemiJoin(Filter(a, q1), b, p), q2) where q1 are the conjuncts that
// read only a; likewise for anti joins. Whether a row of a survives q does
// not depend on its matches in b.
func pushFilterIntoSemiJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || (n.Inputs[0].Join != plan.SemiJoin && n.Inputs[0].Join != plan.AntiJoin) {
		return n, false
	}
	j := n.Inputs[0]
	left := j.Inputs[0].OutColSet()
	var keep []*plan.Expr
	fired := false
	for _, p := range n.Preds {
		if cols := p.Cols(); cols.Intersects(left) && !p.HasSubquery() {
			j.Inputs[0] = addFilter(j.Inputs[0], p)
			fired = true
			continue
		}
		keep = append(keep, p)
	}
	n.Preds = keep
	return n, fired
}
