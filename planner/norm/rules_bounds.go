package norm

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Two rewrites optimizers make of comparisons, read back to the plain
// form: an index lookup's range [c, c] for x = c, and a lookup join's
// IS NOT DISTINCT FROM on key columns that cannot be NULL.

// distinctOnNonNull: a IS NOT DISTINCT FROM b ⇒ a = b and a IS DISTINCT
// FROM b ⇒ a <> b, in the predicates of a filter or join, where neither
// operand can be NULL there: a column the inputs never hold NULL in
// (their derived NOT NULL columns, which an outer join below has already
// taken away on its null-extended side) or a non-NULL constant. On two
// non-NULL values each pair of operators agrees, in PostgreSQL and in
// SQLite (IS / IS NOT) alike, so the rewrite holds anywhere inside the
// predicate.
func distinctOnNonNull(z *normalizer, n *plan.Node, _ flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter && n.Op != plan.OpJoin {
		return n, false
	}
	found := false
	for _, p := range n.Preds {
		plan.Walk(p, func(x *plan.Expr) {
			found = found || x.IsOp(plan.OpNotDistinc) || x.IsOp(plan.OpIsDistinct)
		})
	}
	if !found {
		return n, false
	}
	var notNull plan.ColSet
	for _, in := range n.Inputs {
		notNull.UnionWith(plan.Derive(in, z.p.Meta).NotNull)
	}
	nonNull := func(e *plan.Expr) bool {
		return e.Kind == plan.ColRef && notNull.Has(e.Col) || e.Kind == plan.Const && !e.Null
	}
	changed := false
	for i, p := range n.Preds {
		n.Preds[i] = plan.Rewrite(p, func(x *plan.Expr) *plan.Expr {
			if !(x.IsOp(plan.OpNotDistinc) || x.IsOp(plan.OpIsDistinct)) || len(x.Args) != 2 || !nonNull(x.Args[0]) || !nonNull(x.Args[1]) {
				return x
			}
			changed = true
			op := plan.OpEq
			if x.Name == plan.OpIsDistinct {
				op = plan.OpNe
			}
			return plan.NewOp(op, catalog.Bool, x.Args[0], x.Args[1])
		})
	}
	return n, changed
}

// equalBoundsPreds applies equalBounds to a filter's or join's
// predicates (its conjuncts).
func equalBoundsPreds(z *normalizer, n *plan.Node, _ flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter && n.Op != plan.OpJoin {
		return n, false
	}
	ps, ok := equalBounds(n.Preds, z.key)
	if ok {
		n.Preds = ps
	}
	return n, ok
}

// equalBoundsAnd applies equalBounds to the arguments of an AND.
func equalBoundsAnd(e *plan.Expr, key func(*plan.Expr) string) (*plan.Expr, bool) {
	if !e.IsOp(plan.OpAnd) {
		return e, false
	}
	args, ok := equalBounds(e.Args, key)
	if !ok {
		return e, false
	}
	if len(args) == 1 {
		return args[0], true
	}
	return plan.NewOp(plan.OpAnd, catalog.Bool, args...), true
}

// equalBounds: among conjuncts, x >= c and x <= c ⇒ x = c, for a column
// x and one non-NULL constant c (a literal, or a cast of one: the cast
// is evaluated once either way, and fails alike), on either side of the
// comparison. A NULL x makes both sides NULL; otherwise x compares 0
// with c exactly when x = c, as equality is the ordering's own in every
// PostgreSQL type (a nondeterministic collation's included) and in
// SQLite, which applies the same affinity to all three comparisons.
func equalBounds(conjs []*plan.Expr, key func(*plan.Expr) string) ([]*plan.Expr, bool) {
	var out []*plan.Expr
	used := make([]bool, len(conjs))
	changed := false
	for i, a := range conjs {
		if used[i] {
			continue
		}
		if ax, ac, aop, ok := asBound(a); ok {
			for j := i + 1; j < len(conjs); j++ {
				bx, bc, bop, ok := asBound(conjs[j])
				if used[j] || !ok || bop == aop || bx.Col != ax.Col || bc.Typ != ac.Typ || key(bc) != key(ac) {
					continue
				}
				used[j], changed = true, true
				a = plan.NewOp(plan.OpEq, catalog.Bool, ax, ac)
				break
			}
		}
		out = append(out, a)
	}
	if !changed {
		return conjs, false
	}
	return out, true
}

// asBound reads e as x >= c or x <= c (op is OpGe or OpLe) for a column x
// and a constant c (see constantLike), c <= x read as x >= c.
func asBound(e *plan.Expr) (x, c *plan.Expr, op string, ok bool) {
	if !(e.IsOp(plan.OpGe) || e.IsOp(plan.OpLe)) || len(e.Args) != 2 {
		return nil, nil, "", false
	}
	l, r := e.Args[0], e.Args[1]
	switch {
	case l.Kind == plan.ColRef && constantLike(r):
		return l, r, e.Name, true
	case r.Kind == plan.ColRef && constantLike(l):
		return r, l, flipped[e.Name], true
	}
	return nil, nil, "", false
}

// constantLike says whether e is a non-NULL literal or a cast of one.
func constantLike(e *plan.Expr) bool {
	for e.Kind == plan.Cast && len(e.Args) == 1 {
		e = e.Args[0]
	}
	return e.Kind == plan.Const && !e.Null
}
