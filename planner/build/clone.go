package build

import "github.com/pgequiv/pgequiv/planner/plan"

// cloneFresh returns a deep copy of n in which every column and table
// instance the subtree makes (its subqueries' included) is a new one, and
// the map from old columns to new. References to columns made outside n
// (correlated references) are kept. Grouping sets plan one copy of the
// input per set; sharing column IDs between copies would let a rewrite
// of one copy's definitions change how another copy reads.
func (b *builder) cloneFresh(n *plan.Node) (*plan.Node, map[plan.ColumnID]plan.ColumnID) {
	m := map[plan.ColumnID]plan.ColumnID{}
	c := n.Copy()
	b.freshen(c, m)
	remapNode(c, m)
	return c, m
}

// cloneExpr copies e, giving the subqueries in it fresh columns, and maps
// its references through m (extended with the subqueries' columns).
func (b *builder) cloneExpr(e *plan.Expr, m map[plan.ColumnID]plan.ColumnID) *plan.Expr {
	c := e.Copy()
	plan.Walk(c, func(x *plan.Expr) {
		if x.Kind == plan.Subquery {
			b.freshen(x.Sub, m)
		}
	})
	return remapExpr(c, m)
}

// freshen allocates new columns and instances for those made under n,
// recording them in m, without rewriting anything yet.
func (b *builder) freshen(n *plan.Node, m map[plan.ColumnID]plan.ColumnID) {
	fresh := func(c plan.ColumnID) {
		if _, ok := m[c]; !ok {
			m[c] = b.meta.AddColumn(*b.meta.Col(c))
		}
	}
	n.WalkNodes(func(x *plan.Node) {
		switch x.Op {
		case plan.OpScan:
			inst := len(b.meta.Instances)
			old := b.meta.Instances[x.Instance]
			cols := make([]plan.ColumnID, len(x.Cols))
			for i, c := range x.Cols {
				meta := *b.meta.Col(c)
				meta.Instance = inst
				cols[i] = b.meta.AddColumn(meta)
				m[c] = cols[i]
			}
			b.meta.Instances = append(b.meta.Instances, plan.TableInstance{Table: old.Table, Alias: old.Alias, Cols: cols})
			x.Instance = inst
		case plan.OpSetOp, plan.OpValues:
			for _, c := range x.Cols {
				fresh(c)
			}
		}
		for _, p := range x.Proj {
			if !(p.Expr.Kind == plan.ColRef && p.Expr.Col == p.ID) {
				fresh(p.ID)
			}
		}
		for _, a := range x.Aggs {
			fresh(a.ID)
		}
		x.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(e *plan.Expr) {
				if e.Kind == plan.Subquery {
					b.freshen(e.Sub, m)
				}
			})
		})
	})
}

// remapNode rewrites every column the subtree names through m, inside
// subqueries too.
func remapNode(n *plan.Node, m map[plan.ColumnID]plan.ColumnID) {
	id := func(c plan.ColumnID) plan.ColumnID {
		if d, ok := m[c]; ok {
			return d
		}
		return c
	}
	n.WalkNodes(func(x *plan.Node) {
		for i, c := range x.Cols {
			x.Cols[i] = id(c)
		}
		for i := range x.Proj {
			x.Proj[i].ID = id(x.Proj[i].ID)
		}
		for i := range x.Aggs {
			x.Aggs[i].ID = id(x.Aggs[i].ID)
		}
		for i, c := range x.GroupBy {
			x.GroupBy[i] = id(c)
		}
		for _, cols := range x.SetCols {
			for j, c := range cols {
				cols[j] = id(c)
			}
		}
		x.Exprs(func(s **plan.Expr) { *s = remapExpr(*s, m) })
	})
}

func remapExpr(e *plan.Expr, m map[plan.ColumnID]plan.ColumnID) *plan.Expr {
	plan.Walk(e, func(x *plan.Expr) {
		switch x.Kind {
		case plan.ColRef:
			if d, ok := m[x.Col]; ok {
				x.Col = d
			}
		case plan.Subquery:
			remapNode(x.Sub, m)
		}
	})
	return e
}
