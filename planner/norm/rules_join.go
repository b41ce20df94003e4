package norm

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// rightToLeft: a RIGHT JOIN b ⇒ b LEFT JOIN a. Parents name columns by
// ID, so the input order does not change what they see.
func rightToLeft(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpJoin || n.Join != plan.RightJoin {
		return n, false
	}
	n.Join = plan.LeftJoin
	n.Inputs[0], n.Inputs[1] = n.Inputs[1], n.Inputs[0]
	return n, true
}

// filterIntoJoin: Filter(InnerJoin(a, b, p), q) ⇒ InnerJoin(a, b, p AND q).
func filterIntoJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.InnerJoin {
		return n, false
	}
	j := n.Inputs[0]
	j.Preds = append(j.Preds, n.Preds...)
	return j, true
}

// flattenInnerJoin: InnerJoin(InnerJoin(a, b, p), c, q) ⇒
// InnerJoin(a, b, c, p AND q); an inner join of one input is a Filter.
func flattenInnerJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpJoin || n.Join != plan.InnerJoin {
		return n, false
	}
	if len(n.Inputs) == 1 {
		return &plan.Node{Op: plan.OpFilter, Inputs: n.Inputs, Preds: n.Preds}, true
	}
	fired := false
	var ins []*plan.Node
	for _, in := range n.Inputs {
		if in.Op == plan.OpJoin && in.Join == plan.InnerJoin {
			ins = append(ins, in.Inputs...)
			n.Preds = append(n.Preds, in.Preds...)
			fired = true
			continue
		}
		ins = append(ins, in)
	}
	n.Inputs = ins
	return n, fired
}

// pushJoinPredicate: a join conjunct that reads one input only moves into
// that input as a Filter. For inner joins any input qualifies; for a left
// join only the null-extended (right) input.
func pushJoinPredicate(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpJoin || (n.Join != plan.InnerJoin && n.Join != plan.LeftJoin) {
		return n, false
	}
	outs := make([]plan.ColSet, len(n.Inputs))
	all := plan.ColSet{}
	for i, in := range n.Inputs {
		outs[i] = in.OutColSet()
		all.UnionWith(outs[i])
	}
	fired := false
	var keep []*plan.Expr
	for _, p := range n.Preds {
		cols := p.Cols()
		local := plan.ColSet{}
		for _, c := range cols.Ordered() {
			if all.Has(c) {
				local.Add(c)
			}
		}
		target := -1
		if !local.Empty() {
			for i, o := range outs {
				if local.SubsetOf(o) {
					target = i
				}
			}
		}
		if target < 0 || (n.Join == plan.LeftJoin && target != 1) {
			keep = append(keep, p)
			continue
		}
		n.Inputs[target] = addFilter(n.Inputs[target], p)
		fired = true
	}
	n.Preds = keep
	return n, fired
}

func addFilter(in *plan.Node, p *plan.Expr) *plan.Node {
	if in.Op == plan.OpFilter {
		in.Preds = append(in.Preds, p)
		return in
	}
	return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{in}, Preds: []*plan.Expr{p}}
}

// outerToInner: Filter(LeftJoin(a, b, p), q) ⇒ Filter(InnerJoin(a, b, p), q)
// when q rejects NULLs of a column of b: the null-extended rows the outer
// join adds would be filtered out anyway.
func outerToInner(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return n, false
	}
	j := n.Inputs[0]
	right := j.Inputs[1].OutColSet()
	for _, p := range n.Preds {
		if plan.NullRejected(p).Intersects(right) {
			j.Join = plan.InnerJoin
			return n, true
		}
	}
	return n, false
}

// pushFilterPastOuterJoin: Filter(LeftJoin(a, b, p), q) ⇒
// Filter(LeftJoin(Filter(a, q1), b, p), q2) where q1 are the conjuncts that
// read only a: rows of a are kept or dropped alike on both sides.
func pushFilterPastOuterJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return n, false
	}
	j := n.Inputs[0]
	right := j.Inputs[1].OutColSet()
	left := j.Inputs[0].OutColSet()
	var keep []*plan.Expr
	fired := false
	for _, p := range n.Preds {
		cols := p.Cols()
		if !cols.Intersects(right) && cols.Intersects(left) {
			j.Inputs[0] = addFilter(j.Inputs[0], p)
			fired = true
			continue
		}
		keep = append(keep, p)
	}
	n.Preds = keep
	return n, fired
}

// substituteJoinEquivalents: above an operator whose output has columns
// known equal (from inner-join or WHERE equalities), references use one
// representative of each class, so a.x and b.x read alike.
func substituteJoinEquivalents(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	switch n.Op {
	case plan.OpProject, plan.OpFilter, plan.OpSort, plan.OpAggregate, plan.OpWindow:
	case plan.OpJoin:
		if n.Join == plan.InnerJoin || n.Join == plan.FullJoin {
			return n, false
		}
	default:
		return n, false
	}
	props := z.derive(n.Inputs[0])
	if len(props.Equiv) == 0 {
		return n, false
	}
	fm := z.formatter()
	rep := map[plan.ColumnID]plan.ColumnID{}
	inCols := n.Inputs[0].OutColSet()
	for _, e := range props.Equiv {
		// Only the input's own columns stand for each other: an outer
		// column equated inside a correlated subquery must not replace a
		// local one, or the equality that makes them equal is rewritten
		// into a tautology and the correlation is lost.
		var members []plan.ColumnID
		for _, c := range e.Ordered() {
			if inCols.Has(c) {
				members = append(members, c)
			}
		}
		if len(members) < 2 {
			continue
		}
		r := members[0]
		for _, c := range members[1:] {
			if k, rk := fm.Col(c), fm.Col(r); k < rk {
				r = c
			}
		}
		// A member that reads as the representative does stays: replacing
		// it changes no text, and a column's text may depend on which
		// columns are read (a set operation's output reads as its input's
		// column once nothing else refers to it), so replacing on a tie
		// undid the last replacement, forever.
		rt := fm.Col(r)
		for _, c := range members {
			if c != r && fm.Col(c) != rt {
				rep[c] = r
			}
		}
	}
	fired := false
	n.Exprs(func(s **plan.Expr) {
		*s = plan.Rewrite(*s, func(x *plan.Expr) *plan.Expr {
			if x.Kind == plan.ColRef {
				if r, ok := rep[x.Col]; ok {
					fired = true
					return plan.NewCol(r, x.Typ)
				}
			}
			return x
		})
	})
	if n.Op == plan.OpAggregate {
		m := map[plan.ColumnID]*plan.Expr{}
		// A grouping column is one the input produces: a representative
		// that is an outer column (a correlated subquery's filter equates
		// them) would group by a column the aggregate cannot read.
		in := n.Inputs[0].OutColSet()
		for i, g := range n.GroupBy {
			if r, ok := rep[g]; ok && in.Has(r) {
				dup := false
				for _, h := range n.GroupBy {
					if h == r {
						dup = true
					}
				}
				if dup {
					continue // reduceGroupBy drops the duplicate
				}
				n.GroupBy[i] = r
				m[g] = plan.NewCol(r, z.p.Meta.Col(r).Type)
				fired = true
			}
		}
		if len(m) > 0 {
			z.substituteOutside(n, m)
		}
	}
	return n, fired
}

// Outer joins narrowed by the conditions above them.

// rejectsNullRow says whether condition p is never TRUE on a row whose
// columns cols are all NULL (a row an outer join null-extends): an AND
// with one such conjunct, an OR whose every disjunct is one, or a
// condition that rejects NULLs of one of cols.
func rejectsNullRow(p *plan.Expr, cols plan.ColSet) bool {
	switch {
	case p.IsOp(plan.OpAnd):
		for _, a := range p.Args {
			if rejectsNullRow(a, cols) {
				return true
			}
		}
		return false
	case p.IsOp(plan.OpOr):
		for _, a := range p.Args {
			if !rejectsNullRow(a, cols) {
				return false
			}
		}
		return len(p.Args) > 0
	}
	return plan.NullRejected(p).Intersects(cols)
}

// narrowOuter drops from outer join j the null-extended rows that one of
// preds rejects: a FULL JOIN whose left (right) columns are rejected
// when NULL keeps only rows with a left (right) partner, a RIGHT (LEFT)
// JOIN; a LEFT JOIN whose right columns are, an inner join. It reports
// whether j changed.
func narrowOuter(j *plan.Node, preds []*plan.Expr) bool {
	if j.Op != plan.OpJoin || j.Join != plan.FullJoin && j.Join != plan.LeftJoin {
		return false
	}
	left, right := j.Inputs[0].OutColSet(), j.Inputs[1].OutColSet()
	var l, r bool
	for _, p := range preds {
		l = l || j.Join == plan.FullJoin && rejectsNullRow(p, left)
		r = r || rejectsNullRow(p, right)
	}
	switch {
	case j.Join == plan.LeftJoin && r, l && r:
		j.Join = plan.InnerJoin
	case l:
		j.Join = plan.LeftJoin
	case r:
		j.Join = plan.RightJoin
	default:
		return false
	}
	return true
}

// fullJoinNullRejected: Filter(FullJoin(a, b, p), q) ⇒ Filter(LeftJoin(a,
// b, p), q) when q is never TRUE with a's columns NULL (the rows only b
// contributes), RightJoin when that holds of b's, InnerJoin of both; an
// OR counts when each disjunct rejects such a row.
func fullJoinNullRejected(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin {
		return n, false
	}
	return n, narrowOuter(n.Inputs[0], n.Preds)
}

// innerOverOuterJoin: InnerJoin(..., OuterJoin(a, b), ..., q) narrows the
// outer join input as a Filter q above it would (q is the inner join's
// condition: a row it rejects is not joined).
func innerOverOuterJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpJoin || n.Join != plan.InnerJoin || len(n.Preds) == 0 {
		return n, false
	}
	for _, in := range n.Inputs {
		if narrowOuter(in, n.Preds) {
			return n, true
		}
	}
	return n, false
}

// aggOverOuterToInner: Filter(Aggregate(LeftJoin(a, b)), q) ⇒
// Filter(Aggregate(InnerJoin(a, b)), q) when the grouping columns are
// a's, every aggregate is MIN, MAX, SUM, AVG or COUNT of an argument that
// is NULL whenever b's columns are (so a null-extended row adds nothing
// to any call), and q rejects NULL in a MIN, MAX, SUM or AVG: a group of
// null-extended rows alone has that call NULL and goes, and any other
// group has the same calls without them.
func aggOverOuterToInner(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpAggregate {
		return n, false
	}
	agg := n.Inputs[0]
	j := agg.Inputs[0]
	if j.Op != plan.OpJoin || j.Join != plan.LeftJoin || len(j.Inputs) != 2 {
		return n, false
	}
	left, right := j.Inputs[0].OutColSet(), j.Inputs[1].OutColSet()
	for _, g := range agg.GroupBy {
		if !left.Has(g) {
			return n, false
		}
	}
	var nullable plan.ColSet // calls NULL on a group of null-extended rows
	for _, it := range agg.Aggs {
		e := it.Expr
		if e.Kind != plan.Agg || e.Star || len(e.Args) != 1 || !plan.StrictCols(e.Args[0]).Intersects(right) {
			return n, false
		}
		switch e.Name {
		case "min", "max", "sum", "avg":
			nullable.Add(it.ID)
		case "count":
		default:
			return n, false
		}
	}
	for _, p := range n.Preds {
		if rejectsNullRow(p, nullable) && !p.HasSubquery() {
			j.Join = plan.InnerJoin
			return n, true
		}
	}
	return n, false
}
