package exec

import "github.com/pgequiv/pgequiv/planner/plan"

// SQLite's scalar subquery of several rows takes "the first row", which
// its physical plan decides: nothing the query says. The executor
// models that choice instead of giving up on it where it can be
// enumerated: for an uncorrelated scalar subquery outside any other
// subquery expression, which SQLite evaluates once per statement, the
// choice is one row for the whole execution. Such a subquery is a Pick;
// running again with each choice in Options.Picks gives every result the
// engine may return, so that a difference from all of them is a real one
// (`x = (SELECT id FROM t WHERE name = 'a')` vs a join, on a database
// with two rows named 'a').

// Pick is an uncorrelated scalar subquery that returned Rows rows in no
// determined order (Rows is how many of them may come first).
type Pick struct {
	Sub  *plan.Node
	Rows int
}

// pickRow returns the row a Pick takes among the first k candidates
// (Options.Picks, else the first), and records the Pick.
func (x *executor) pickRow(sub *plan.Node, k int) int {
	seen := false
	for _, p := range x.met {
		seen = seen || p.Sub == sub
	}
	if !seen {
		x.met = append(x.met, Pick{Sub: sub, Rows: k})
	}
	return x.picks[sub] % k
}

// enumerable reports whether the choice of sub's row is one per
// execution: it is uncorrelated, and not inside another subquery
// expression (whose every evaluation could choose anew).
func (x *executor) enumerable(sub *plan.Node) bool {
	if x.subDepth > 0 {
		return false
	}
	if c, ok := x.uncorrelated[sub]; ok {
		return c
	}
	ok := !sub.ReadsOuter()
	if x.uncorrelated == nil {
		x.uncorrelated = map[*plan.Node]bool{}
	}
	x.uncorrelated[sub] = ok
	return ok
}

// countFixed reports whether n's output reaches the result through
// operators that keep every row (projections, sorts) only: then which
// rows n keeps changes the result's rows, never their number.
func (x *executor) countFixed(n *plan.Node) bool {
	if x.subDepth > 0 {
		return false
	}
	for cur := x.root; cur != nil; {
		if cur == n {
			return true
		}
		if (cur.Op != plan.OpProject && cur.Op != plan.OpSort) || len(cur.Inputs) != 1 {
			return false
		}
		cur = cur.Inputs[0]
	}
	return false
}

// countOnly reports whether the rows n keeps reach the result through
// their number alone: the path from the root to n is projections and
// sorts, one aggregate without grouping whose every aggregate is
// count(*) without FILTER, and below it projections of columns and
// constants (which raise no error, whatever rows are kept) and sorts.
// Which unordered rows a LIMIT there keeps then changes nothing:
// SELECT count(*) FROM (SELECT id FROM t LIMIT 2) s is determined.
func (x *executor) countOnly(n *plan.Node) bool {
	if x.subDepth > 0 {
		return false
	}
	seenAgg := false
	for cur := x.root; cur != nil; {
		if cur == n {
			return seenAgg
		}
		if len(cur.Inputs) != 1 {
			return false
		}
		switch cur.Op {
		case plan.OpSort:
		case plan.OpProject:
			if seenAgg {
				for _, p := range cur.Proj {
					if p.Expr.Kind != plan.ColRef && p.Expr.Kind != plan.Const {
						return false
					}
				}
			}
		case plan.OpAggregate:
			if seenAgg || len(cur.GroupBy) > 0 || len(cur.Aggs) == 0 {
				return false
			}
			for _, a := range cur.Aggs {
				if !a.Expr.Star || a.Expr.Name != "count" || a.Expr.Filter != nil || a.Expr.Distinct {
					return false
				}
			}
			seenAgg = true
		default:
			return false
		}
		cur = cur.Inputs[0]
	}
	return false
}
