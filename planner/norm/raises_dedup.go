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
	reads := map[plan.ColumnID]int{}
	var nodes []*plan.Node
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil {
			return
		}
		nodes = append(nodes, n)
		n.ExprsByRole(func(slot **plan.Expr, _ bool) {
			plan.Walk(*slot, func(x *plan.Expr) {
				if x.Kind == plan.ColRef {
					reads[x.Col]++
				}
				if x.Kind == plan.Subquery {
					walk(x.Sub)
				}
			})
		})
		for _, g := range n.GroupBy {
			reads[g]++
		}
		for _, cols := range n.SetCols {
			for _, c := range cols {
				reads[c]++
			}
		}
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(root)
	for _, c := range root.OutCols() {
		reads[c]++
	}
	for _, n := range nodes {
		switch n.Op {
		case plan.OpDistinct:
			for _, c := range n.OutCols() {
				if reads[c] == 0 && plan.DefsMayRaise(n, []plan.ColumnID{c}) {
					return "a DISTINCT column no one reads is computed by an expression that may raise"
				}
			}
		case plan.OpSetOp:
			for i, c := range n.Cols {
				if reads[c] > 0 {
					continue
				}
				for k, in := range n.Inputs {
					if k < len(n.SetCols) && i < len(n.SetCols[k]) && plan.DefsMayRaise(in, []plan.ColumnID{n.SetCols[k][i]}) {
						return "a set operation's column no one reads is computed by an expression that may raise"
					}
				}
			}
		case plan.OpAggregate:
			seen := map[plan.ColumnID]bool{}
			for _, g := range n.GroupBy {
				if seen[g] {
					continue
				}
				seen[g] = true
				// reads[g] counts this GROUP BY once.
				if reads[g] <= 1 && plan.DefsMayRaise(n.Inputs[0], []plan.ColumnID{g}) {
					return "a grouping key no one reads is computed by an expression that may raise"
				}
			}
		}
	}
	return ""
}
