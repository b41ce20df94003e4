package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "aggregate", agg-group-constant: MIN(x), MAX(x) and
// ANY_VALUE(x) are one call when x takes one value in each group: a
// constant, a grouping column of a type whose = is identity (integers,
// booleans), or a column of a table occurrence whose key lies within the
// grouping columns (every row of the group holds that occurrence's one
// row, NULL-padded alike by an outer join). Over a group of one value
// all three return it, and over no row (an aggregate without GROUP BY)
// all three return NULL.
//
//	γ[K](MIN(x)) ≡ γ[K](MAX(x)) ≡ γ[K](ANY_VALUE(x))   x constant per group

// groupConstCall returns call e of aggregate node n read as ANY_VALUE
// when it is a MIN, MAX or ANY_VALUE of a value constant in each group
// of n; otherwise e itself.
func groupConstCall(n *plan.Node, e *plan.Expr, m *plan.Metadata) *plan.Expr {
	if e.Kind != plan.Agg || e.Filter != nil || len(e.Order) > 0 || len(e.Args) != 1 || e.Star {
		return e
	}
	switch e.Name {
	case "min", "max", "any_value":
	default:
		return e
	}
	x := e.Args[0]
	if plan.Volatile(x) != "" || !plainExpr(x) || !groupConstant(n, x, m) {
		return e
	}
	c := *e
	c.Name, c.Distinct = "any_value", false
	return &c
}

// plainExpr says whether e holds no subquery, aggregate or window call.
func plainExpr(e *plan.Expr) bool {
	ok := true
	plan.Walk(e, func(x *plan.Expr) {
		if x.Kind == plan.Subquery || x.Kind == plan.Agg || x.Kind == plan.WinFunc {
			ok = false
		}
	})
	return ok
}

// groupConstant says whether every column x reads is constant in each
// group of aggregate n (see groupConstCall).
func groupConstant(n *plan.Node, x *plan.Expr, m *plan.Metadata) bool {
	gb := plan.MakeColSet(n.GroupBy...)
	var scans map[int]*plan.Node
	for _, c := range x.Cols().Ordered() {
		meta := m.Col(c)
		if gb.Has(c) {
			if coll, nondet := m.Collation(c); nondet || coll != "" || (meta.Type != catalog.Int && meta.Type != catalog.Bool) {
				return false
			}
			continue
		}
		if meta.Instance < 0 {
			return false
		}
		if scans == nil {
			scans = map[int]*plan.Node{}
			n.Inputs[0].WalkNodes(func(s *plan.Node) {
				if s.Op == plan.OpScan {
					scans[s.Instance] = s
				}
			})
		}
		s := scans[meta.Instance]
		if s == nil || !plan.Derive(s, m).HasKeyWithin(gb) {
			return false
		}
	}
	return true
}
