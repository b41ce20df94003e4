package norm

import "github.com/pgequiv/pgequiv/planner/plan"

// unreadDedupRaise says why a plan may raise where a normalized form
// would not ("" when nothing found): a DISTINCT, a set operation or a
// GROUP BY evaluates every column it compares on every row, so in
// SELECT k FROM (SELECT DISTINCT k, i + 1 FROM t) x PostgreSQL computes
// i + 1 and fails on the largest i (it keeps DISTINCT and set-operation
// columns and grouping keys of a subquery it does not flatten). Once a
// rule drops the deduplication (a key makes it redundant, UNION reads as
// OR, an IN ignores duplicates), nothing reads i + 1 and a later step
// prunes it: the normalized plan answers where the query fails. Such a
// column — computed by an expression that may raise (plan.CannotRaise)
// and read by nothing above — makes the plan one the prover proves
// nothing about.
func unreadDedupRaise(root *plan.Node) string {
	var nodes []*plan.Node
	var collect func(n *plan.Node)
	collect = func(n *plan.Node) {
		if n == nil {
			return
		}
		nodes = append(nodes, n)
		n.Exprs(func(slot **plan.Expr) {
			plan.Walk(*slot, func(x *plan.Expr) {
				if x.Kind == plan.Subquery {
					collect(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			collect(in)
		}
	}
	collect(root)
	// live: the columns something evaluates, DISTINCT, set operations
	// and GROUP BY aside: the root's outputs, what filters, join
	// conditions, sort keys and subqueries' outputs read, and what a
	// live column's definition (a projection item, an aggregate call, a
	// set operation's column) reads. A projection that only passes a
	// column on does not make it live.
	live := map[plan.ColumnID]bool{}
	mark := func(e *plan.Expr) bool {
		changed := false
		plan.Walk(e, func(x *plan.Expr) {
			if x.Kind == plan.ColRef && !live[x.Col] {
				live[x.Col] = true
				changed = true
			}
		})
		return changed
	}
	for _, c := range root.OutCols() {
		live[c] = true
	}
	for _, n := range nodes {
		n.Exprs(func(slot **plan.Expr) {
			plan.Walk(*slot, func(x *plan.Expr) {
				if x.Kind == plan.Subquery && x.Sub != nil {
					for _, c := range x.Sub.OutCols() {
						live[c] = true
					}
				}
			})
		})
		n.ExprsByRole(func(slot **plan.Expr, definition bool) {
			if !definition {
				mark(*slot)
			}
		})
	}
	for changed := true; changed; {
		changed = false
		for _, n := range nodes {
			for _, items := range [][]plan.ProjItem{n.Proj, n.Aggs} {
				for _, it := range items {
					if live[it.ID] && mark(it.Expr) {
						changed = true
					}
				}
			}
			if n.Op == plan.OpSetOp {
				for i, c := range n.Cols {
					if !live[c] {
						continue
					}
					for _, cols := range n.SetCols {
						if i < len(cols) && !live[cols[i]] {
							live[cols[i]] = true
							changed = true
						}
					}
				}
			}
		}
	}
	for _, n := range nodes {
		switch n.Op {
		case plan.OpDistinct:
			for _, c := range n.OutCols() {
				if !live[c] && plan.DefsMayRaise(n, []plan.ColumnID{c}) {
					return "a DISTINCT column no one reads is computed by an expression that may raise"
				}
			}
		case plan.OpSetOp:
			for i, c := range n.Cols {
				if live[c] {
					continue
				}
				for k, in := range n.Inputs {
					if k < len(n.SetCols) && i < len(n.SetCols[k]) && plan.DefsMayRaise(in, []plan.ColumnID{n.SetCols[k][i]}) {
						return "a set operation's column no one reads is computed by an expression that may raise"
					}
				}
			}
		case plan.OpAggregate:
			for _, g := range n.GroupBy {
				if !live[g] && plan.DefsMayRaise(n.Inputs[0], []plan.ColumnID{g}) {
					return "a grouping key no one reads is computed by an expression that may raise"
				}
			}
		}
	}
	return ""
}
