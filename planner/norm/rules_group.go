package norm

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// havingToWhere: Filter(Aggregate(x, keys), p) ⇒ Aggregate(Filter(x, p))
// for conjuncts p over grouping columns only: they drop whole groups. Not
// without GROUP BY, where an empty input still yields one row.
func havingToWhere(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpAggregate || len(n.Inputs[0].GroupBy) == 0 {
		return n, false
	}
	agg := n.Inputs[0]
	group := plan.MakeColSet(agg.GroupBy...)
	aggOut := plan.ColSet{}
	for _, a := range agg.Aggs {
		aggOut.Add(a.ID)
	}
	var keep []*plan.Expr
	fired := false
	for _, p := range n.Preds {
		cols := p.Cols()
		if cols.Intersects(group) && !cols.Intersects(aggOut) {
			agg.Inputs[0] = addFilter(agg.Inputs[0], p)
			fired = true
			continue
		}
		keep = append(keep, p)
	}
	n.Preds = keep
	return n, fired
}

// pushFilterPastDistinct: Filter(Distinct(x), p) ⇒ Distinct(Filter(x, p)).
func pushFilterPastDistinct(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpDistinct {
		return n, false
	}
	d := n.Inputs[0]
	n.Inputs[0] = d.Inputs[0]
	d.Inputs[0] = n
	return d, true
}

// groupByToDistinct: Project(Aggregate(x, keys k, no aggregates), k) ⇒
// Distinct(Project(x, k)): grouping without aggregates only removes
// duplicates.
func groupByToDistinct(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpProject || n.Inputs[0].Op != plan.OpAggregate {
		return n, false
	}
	agg := n.Inputs[0]
	if len(agg.Aggs) > 0 || len(agg.GroupBy) == 0 || len(n.Proj) != len(agg.GroupBy) {
		return n, false
	}
	group := plan.MakeColSet(agg.GroupBy...)
	seen := plan.ColSet{}
	for _, it := range n.Proj {
		if it.Expr.Kind != plan.ColRef || !group.Has(it.Expr.Col) || seen.Has(it.Expr.Col) {
			return n, false
		}
		seen.Add(it.Expr.Col)
	}
	n.Inputs[0] = agg.Inputs[0]
	return &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{n}}, true
}

// removeRedundantDistinct: Distinct(x) ⇒ x when x is already free of
// duplicates: some key of x (unique and not null, kept through the plan)
// lies within its output.
func removeRedundantDistinct(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpDistinct {
		return n, false
	}
	in := n.Inputs[0]
	if plan.DefsMayRaise(in, in.OutCols()) {
		// DISTINCT evaluates k, i + 1 on every row; without it an outer
		// query that reads only k prunes i + 1, which may raise.
		return n, false
	}
	if z.derive(in).HasKeyWithin(in.OutColSet()) {
		return in, true
	}
	return n, false
}

// reduceGroupBy: GROUP BY k, x ⇒ GROUP BY k when k determines x (x's
// table key lies in k, directly or through equal columns); x is then the
// same on every row of a group and is carried as any_value(x).
func reduceGroupBy(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpAggregate || len(n.GroupBy) < 2 {
		return n, false
	}
	props := z.derive(n.Inputs[0])
	fm := z.formatter()
	// Try to drop the column with the largest canonical key first, so the
	// survivor does not depend on the order keys were written in.
	best := -1
	for i, c := range n.GroupBy {
		rest := plan.ColSet{}
		for j, d := range n.GroupBy {
			if j != i {
				rest.Add(d)
			}
		}
		if determined(z.p.Meta, props, rest).Has(c) {
			if best < 0 || fm.Col(c) > fm.Col(n.GroupBy[best]) {
				best = i
			}
		}
	}
	if best < 0 {
		return n, false
	}
	c := n.GroupBy[best]
	n.GroupBy = append(n.GroupBy[:best:best], n.GroupBy[best+1:]...)
	m := z.p.Meta.Col(c)
	dom := z.p.Meta.Domain(c)
	id := z.p.Meta.AddColumn(plan.ColumnMeta{Name: m.Name, Type: m.Type, Instance: -1, Ordinal: -1, Dom: &dom})
	any := &plan.Expr{Kind: plan.Agg, Name: "any_value", Typ: m.Type, Args: []*plan.Expr{plan.NewCol(c, m.Type)}, Pos: -1}
	// An any_value(c) already present serves; otherwise add one.
	for _, a := range n.Aggs {
		if a.Expr.Name == "any_value" && a.Expr.Args[0].Kind == plan.ColRef && a.Expr.Args[0].Col == c {
			id = a.ID
			any = nil
		}
	}
	if any != nil {
		n.Aggs = append(n.Aggs, plan.ProjItem{ID: id, Expr: any})
	}
	z.substituteOutside(n, map[plan.ColumnID]*plan.Expr{c: plan.NewCol(id, m.Type)})
	return n, true
}

// determined returns the closure of cols under the functional
// dependencies the input guarantees: equal columns, and each table
// instance's keys determining its other columns.
func determined(meta *plan.Metadata, props *plan.Props, cols plan.ColSet) plan.ColSet {
	s := cols.Copy()
	for changed := true; changed; {
		changed = false
		for _, e := range props.Equiv {
			if e.Intersects(s) && !e.SubsetOf(s) {
				s.UnionWith(e)
				changed = true
			}
		}
		for _, inst := range meta.Instances {
			for _, k := range inst.Table.Keys() {
				ok := true
				for _, o := range k {
					if !s.Has(inst.Cols[o]) {
						ok = false
						break
					}
				}
				if ok {
					all := plan.MakeColSet(inst.Cols...)
					if !all.SubsetOf(s) {
						s.UnionWith(all)
						changed = true
					}
				}
			}
		}
	}
	return s
}
