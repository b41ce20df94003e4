package norm

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// dropSubqueryOrder: Sort ⇒ its input, where nothing observes the order
// (inside subqueries, derived tables and set operands without LIMIT),
// and no consumer above reads the order of its rows (flags.readsOrder).
func dropSubqueryOrder(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpSort || f.keepOrder {
		return n, false
	}
	if f.readsOrder && !plan.Derive(n.Inputs[0], z.p.Meta).AtMostOneRow() {
		return n, false
	}
	if sortKeysMayRaise(n, n.Keys) {
		// PostgreSQL sorts a derived table, set operand or IN subquery
		// as written, evaluating every key: ORDER BY i + 1 fails on the
		// largest i, where the query without it answers.
		return n, false
	}
	return n.Inputs[0], true
}

// sortKeysMayRaise reports whether evaluating keys over sort's input may
// raise an error: a key expression, or the definition of a column it
// reads, that PostgreSQL may fail on (an overflow, a division by zero, a
// cast).
func sortKeysMayRaise(sort *plan.Node, keys []plan.SortKey) bool {
	for _, k := range keys {
		if !plan.CannotRaise(k.Expr) || plan.DefsMayRaise(sort.Inputs[0], k.Expr.Cols().Ordered()) {
			return true
		}
	}
	return false
}

// removePassthroughProject: Project ⇒ its input, where no parent observes
// the exact column list. Computed columns are substituted into the
// expressions that reference them. Under the null-extended side of an
// outer join only definitions that are NULL when their inputs are
// (strict ones) may move: Left(x, Project(1 AS one, y)) keeps its
// Project, since above the join one is NULL on unmatched rows.
func removePassthroughProject(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpProject || f.keepCols {
		return n, false
	}
	subst := map[plan.ColumnID]*plan.Expr{}
	inCols := n.Inputs[0].OutColSet()
	var withSub []plan.ColumnID
	for _, it := range n.Proj {
		if !(it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID) {
			if it.Expr.HasSubquery() || plan.Volatile(it.Expr) != "" {
				// A subquery would be copied; a volatile call
				// (random()) read twice would become two calls with two
				// values, where the query has one (issue 18, cause 13).
				withSub = append(withSub, it.ID)
			}
			if f.nullSide && !plan.StrictCols(it.Expr).Intersects(inCols) {
				// Above the outer join a null-extended row reads NULL here,
				// but the definition (a constant, coalesce, ...) need not be
				// NULL when its inputs are.
				return n, false
			}
			subst[it.ID] = it.Expr
		}
	}
	if len(withSub) > 0 && !z.readAtMostOnce(n, withSub) {
		return n, false // keep subqueries from being duplicated
	}
	if len(subst) > 0 {
		if z.slotsName(n, subst) {
			return n, false // a GROUP BY key or set operand would lose its definition
		}
		z.substituteOutside(n, subst)
	}
	return n.Inputs[0], true
}

// readAtMostOnce reports whether each of cols is referenced at most once
// in the plan outside stop's subtree (subqueries included), so moving its
// definition to its reader copies nothing.
func (z *normalizer) readAtMostOnce(stop *plan.Node, cols []plan.ColumnID) bool {
	want := plan.MakeColSet(cols...)
	seen := map[plan.ColumnID]int{}
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == stop {
			return
		}
		n.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(x *plan.Expr) {
				switch {
				case x.Kind == plan.ColRef && want.Has(x.Col):
					seen[x.Col]++
				case x.Kind == plan.Subquery:
					walk(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(z.p.Root)
	for _, k := range seen {
		if k > 1 {
			return false
		}
	}
	return true
}

// slotsName reports whether a GroupBy or SetCols entry outside stop's
// subtree names one of m's columns. Those slots hold column IDs, not
// expressions, so substituteOutside cannot put a definition there.
func (z *normalizer) slotsName(stop *plan.Node, m map[plan.ColumnID]*plan.Expr) bool {
	found := false
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == stop || found {
			return
		}
		for _, g := range n.GroupBy {
			if _, ok := m[g]; ok {
				found = true
			}
		}
		for _, cols := range n.SetCols {
			for _, c := range cols {
				if _, ok := m[c]; ok {
					found = true
				}
			}
		}
		n.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(x *plan.Expr) {
				if x.Kind == plan.Subquery {
					walk(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(z.p.Root)
	return found
}

// substituteOutside replaces references to the mapped columns everywhere
// in the plan except inside stop's subtree.
func (z *normalizer) substituteOutside(stop *plan.Node, m map[plan.ColumnID]*plan.Expr) {
	plan.ReplaceColsOutside(z.p.Root, stop, m)
}

// mergeFilters: Filter(Filter(x, q), p) ⇒ Filter(x, p AND q); a Filter
// with no conjuncts left ⇒ its input.
func mergeFilters(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter {
		return n, false
	}
	if len(n.Preds) == 0 {
		return n.Inputs[0], true
	}
	if in := n.Inputs[0]; in.Op == plan.OpFilter {
		in.Preds = append(in.Preds, n.Preds...)
		return in, true
	}
	return n, false
}
