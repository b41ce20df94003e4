package norm

import (
	"fmt"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// colsReadOutside is the columns of stop's own list (stop.Cols: a set
// operation's or VALUES list's outputs) that the plan references
// outside stop's subtree (expressions, subqueries, grouping and
// set-operation slots); at the root, its output columns are read. Its
// callers ask only whether each column of that list is read, so the walk
// ends once every one of them is found: the readers of a node's columns
// sit above it, which a walk from the root reaches first. Pruning UNION
// ALL and VALUES columns asked this on every pass for every such node,
// and a walk of the whole plan each time cost a third of normalizing
// TPC-DS query 14a.
func (z *normalizer) colsReadOutside(stop *plan.Node) plan.ColSet {
	var want, s plan.ColSet
	for _, c := range stop.Cols {
		want.Add(c)
	}
	left := want.Len()
	see := func(c plan.ColumnID) {
		if want.Has(c) && !s.Has(c) {
			s.Add(c)
			left--
		}
	}
	if z.p.Root == stop {
		for _, c := range stop.OutCols() {
			see(c)
		}
	}
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == stop || left == 0 {
			return
		}
		for _, g := range n.GroupBy {
			see(g)
		}
		for _, cols := range n.SetCols {
			for _, c := range cols {
				see(c)
			}
		}
		if n.Op == plan.OpSetOp || n.Op == plan.OpScan {
			for _, c := range n.Cols {
				see(c)
			}
		}
		n.Exprs(func(e **plan.Expr) {
			if left == 0 {
				return
			}
			plan.Walk(*e, func(x *plan.Expr) {
				switch x.Kind {
				case plan.ColRef:
					see(x.Col)
				case plan.Subquery:
					walk(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(z.p.Root)
	if z.checkCaches {
		var fresh plan.ColSet
		all := colsReadOutsideAll(z.p.Root, stop)
		for _, c := range stop.Cols {
			if all.Has(c) {
				fresh.Add(c)
			}
		}
		if !fresh.Equals(s) && z.err == nil {
			z.err = fmt.Errorf("columns read outside %s: %v, a whole walk finds %v", stop.Op, s.Ordered(), fresh.Ordered())
		}
	}
	return s
}

// colsReadOutsideAll is every column the plan references outside stop's
// subtree, walking it whole (checkCaches' reference).
func colsReadOutsideAll(root, stop *plan.Node) plan.ColSet {
	var s plan.ColSet
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == stop {
			return
		}
		for _, g := range n.GroupBy {
			s.Add(g)
		}
		for _, cols := range n.SetCols {
			for _, c := range cols {
				s.Add(c)
			}
		}
		if n.Op == plan.OpSetOp || n.Op == plan.OpScan {
			for _, c := range n.Cols {
				s.Add(c)
			}
		}
		n.Exprs(func(e **plan.Expr) {
			plan.Walk(*e, func(x *plan.Expr) {
				switch x.Kind {
				case plan.ColRef:
					s.Add(x.Col)
				case plan.Subquery:
					walk(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(root)
	if root == stop {
		for _, c := range stop.OutCols() {
			s.Add(c)
		}
	}
	return s
}
