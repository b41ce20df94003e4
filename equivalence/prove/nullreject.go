package prove

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "predicates", NULL tests made redundant by a condition above:
//
//   - not-null-rejected-above: σ[p(y)](… σ[y IS NOT NULL](R) …) ⇒
//     σ[p(y)](… R …) when p is never TRUE with y NULL (a strict
//     comparison of y) and the path from p down to the test keeps y's
//     value and lets each row through alone (filters, projections that
//     pass y on, inner joins, the preserved side of a left join, the
//     outer side of a semi- or anti-join): the rows the test drops reach
//     p with y NULL, and p drops them there.
//   - agg-null-rows-dropped: γ[K; f(y)…](… σ[y IS NOT NULL](R) …) ⇒
//     γ[K; f(y)…](… R …) when every call skips the rows where its one
//     argument y is NULL (SUM, MIN, MAX, AVG, COUNT(y), BOOL_AND...,
//     DISTINCT or not): the rows the test drops add to no call. Only
//     the groups whose every row has y NULL differ, present with NULL
//     calls (COUNT 0) on one side and absent on the other: without
//     GROUP BY there is one row either way, else a condition above must
//     drop them, never TRUE when one call that is NULL over no row is.
//
// Both rewrite towards the plan without the test, so the plan that has
// it and the plan that leaves it to the condition above meet.

// nullTestsRejected drops the y IS NOT NULL tests below filter or inner
// join n that a conjunct of n makes redundant, or returns nil.
func (p *prover) nullTestsRejected(n *plan.Node) *plan.Node {
	if n.Op != plan.OpFilter && !(n.Op == plan.OpJoin && n.Join == plan.InnerJoin) {
		return nil
	}
	var rejected plan.ColSet
	for _, e := range n.Preds {
		if !containsSubquery(e) {
			rejected.UnionWith(plan.NullRejected(e))
		}
	}
	if rejected.Empty() {
		return nil
	}
	ins, changed := make([]*plan.Node, len(n.Inputs)), false
	for i, in := range n.Inputs {
		ins[i] = stripNotNull(in, rejected)
		changed = changed || ins[i] != in
	}
	if !changed {
		return nil
	}
	c := *n
	c.Inputs = ins
	p.rule(ruleNotNullRejectedAbove)
	return &c
}

// aggNullRowsDropped drops the y IS NOT NULL tests below aggregate n (or
// below the aggregate under filter n) when no call reads a row with y
// NULL, as above, or returns nil.
func (p *prover) aggNullRowsDropped(n *plan.Node) *plan.Node {
	g, above, ok := aggUnderFilter(n)
	if !ok {
		return nil
	}
	y, nullOverNone := plan.ColumnID(0), plan.ColSet{}
	for i, a := range g.Aggs {
		e := a.Expr
		d, ok := describeAgg(e)
		if !ok || !d.skipsNull || e.Star || len(e.Args) != 1 || e.Args[0].Kind != plan.ColRef || (i > 0 && e.Args[0].Col != y) {
			return nil
		}
		y = e.Args[0].Col
		if d.empty == "NULL" && e.Filter == nil {
			nullOverNone.Add(a.ID)
		}
	}
	if above != nil && !rejectsAny(above.Preds, nullOverNone) {
		return nil // a group whose every row has y NULL would pass the filter
	}
	in := stripNotNull(g.Inputs[0], plan.MakeColSet(y))
	if in == g.Inputs[0] {
		return nil
	}
	p.rule(ruleAggNullRowsDropped)
	return rewrapAgg(g, above, in)
}

// stripNotNull returns n without the conjuncts "y IS NOT NULL" (y in
// cols) of the filters and inner join conditions reached through nodes
// that keep each row's value of y and pass each row on alone, or n itself
// when it has none.
func stripNotNull(n *plan.Node, cols plan.ColSet) *plan.Node {
	var preds []*plan.Expr
	strip := false
	switch n.Op {
	case plan.OpFilter:
		strip = true
	case plan.OpProject:
		// Below, only the columns the projection passes on as they are.
		var passed plan.ColSet
		for _, it := range n.Proj {
			if cols.Has(it.ID) && it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID {
				passed.Add(it.ID)
			}
		}
		if passed.Empty() {
			return n
		}
		cols = passed
	case plan.OpJoin:
		switch n.Join {
		case plan.InnerJoin:
			strip = true
		case plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
			// Only the preserved (outer) side: the other side's rows
			// change which rows find partners.
			in := stripNotNull(n.Inputs[0], cols)
			if in == n.Inputs[0] {
				return n
			}
			c := *n
			c.Inputs = append([]*plan.Node{in}, n.Inputs[1:]...)
			return &c
		default:
			return n
		}
	default:
		return n
	}
	changed := false
	if strip {
		for _, e := range n.Preds {
			if e.IsOp(plan.OpIsNotNull) && len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef && cols.Has(e.Args[0].Col) {
				changed = true
				continue
			}
			preds = append(preds, e)
		}
	}
	ins := make([]*plan.Node, len(n.Inputs))
	for i, in := range n.Inputs {
		ins[i] = stripNotNull(in, cols)
		changed = changed || ins[i] != in
	}
	if !changed {
		return n
	}
	c := *n
	c.Inputs = ins
	if strip {
		c.Preds = preds
	}
	if c.Op == plan.OpFilter && len(c.Preds) == 0 {
		return c.Inputs[0]
	}
	return &c
}

// Fragment "aggregate", agg-left-join-inner: γ[K; f(s)…](… R ⟕ S …) ⇒
// γ[K; f(s)…](… R ⋈ S …) when every call skips the rows where its one
// argument, a column of S passed up unchanged, is NULL: a row that pads
// an unmatched R row with NULLs adds to no call. As for
// agg-null-rows-dropped, only the groups of such rows alone differ, so
// with GROUP BY a condition above must drop a group whose calls NULL
// over no row are NULL.

// aggLeftJoinInner makes inner the left join below aggregate n (or below
// the aggregate under filter n) whose padded rows add to no call, or
// returns nil.
func (p *prover) aggLeftJoinInner(n *plan.Node) *plan.Node {
	g, above, ok := aggUnderFilter(n)
	if !ok {
		return nil
	}
	var args, nullOverNone plan.ColSet
	for _, a := range g.Aggs {
		e := a.Expr
		d, ok := describeAgg(e)
		if !ok || !d.skipsNull || e.Star || len(e.Args) != 1 || e.Args[0].Kind != plan.ColRef {
			return nil
		}
		args.Add(e.Args[0].Col)
		if d.empty == "NULL" && e.Filter == nil {
			nullOverNone.Add(a.ID)
		}
	}
	if above != nil && !rejectsAny(above.Preds, nullOverNone) {
		return nil
	}
	in := innerPaddedJoin(g.Inputs[0], args)
	if in == nil {
		return nil
	}
	p.rule(ruleAggLeftJoinInner)
	return rewrapAgg(g, above, in)
}

// aggUnderFilter reads n as an aggregate g with calls, alone when
// ungrouped or under a filter above when grouped (the two shapes the
// aggregate rules of this file take); ok is false for any other n.
func aggUnderFilter(n *plan.Node) (g, above *plan.Node, ok bool) {
	g = n
	if n.Op == plan.OpFilter && len(n.Inputs) == 1 {
		g, above = n.Inputs[0], n
	}
	if g.Op != plan.OpAggregate || len(g.Aggs) == 0 || (len(g.GroupBy) > 0) != (above != nil) {
		return nil, nil, false
	}
	return g, above, true
}

// rewrapAgg is aggregate g over input in, under a copy of filter above
// when there is one.
func rewrapAgg(g, above, in *plan.Node) *plan.Node {
	c := *g
	c.Inputs = []*plan.Node{in}
	if above == nil {
		return &c
	}
	f := *above
	f.Inputs = []*plan.Node{&c}
	return &f
}

// rejectsAny says whether a conjunct of preds is never TRUE when one of
// cols is NULL.
func rejectsAny(preds []*plan.Expr, cols plan.ColSet) bool {
	for _, e := range preds {
		if !containsSubquery(e) && plan.NullRejected(e).Intersects(cols) {
			return true
		}
	}
	return false
}

// innerPaddedJoin returns n with the left join inside made inner, where
// cols (the columns the calls read) all come from its right side and
// reach n unchanged through filters, passing projections and inner
// joins; or nil.
func innerPaddedJoin(n *plan.Node, cols plan.ColSet) *plan.Node {
	switch n.Op {
	case plan.OpFilter:
		in := innerPaddedJoin(n.Inputs[0], cols)
		if in == nil {
			return nil
		}
		c := *n
		c.Inputs = []*plan.Node{in}
		return &c
	case plan.OpProject:
		for _, it := range n.Proj {
			if cols.Has(it.ID) && !(it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID) {
				return nil
			}
		}
		in := innerPaddedJoin(n.Inputs[0], cols)
		if in == nil {
			return nil
		}
		c := *n
		c.Inputs = []*plan.Node{in}
		return &c
	case plan.OpJoin:
		if len(n.Inputs) != 2 {
			return nil
		}
		switch n.Join {
		case plan.LeftJoin:
			if cols.SubsetOf(n.Inputs[1].OutColSet()) {
				c := *n
				c.Join = plan.InnerJoin
				return &c
			}
		case plan.InnerJoin:
			for i, side := range n.Inputs {
				if !cols.SubsetOf(side.OutColSet()) {
					continue
				}
				in := innerPaddedJoin(side, cols)
				if in == nil {
					return nil
				}
				c := *n
				c.Inputs = slices.Clone(n.Inputs)
				c.Inputs[i] = in
				return &c
			}
		}
	}
	return nil
}
