package build

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// buildAggregate places an Aggregate over node. Grouping expressions that
// are not plain columns are computed by a Project below it. rewrite is
// handed a function that maps an expression over the input to one over
// the aggregate's output.
func (b *builder) buildAggregate(node *plan.Node, sc *scope, groupExprs []*plan.Expr, st *aggState, rewrite func(func(*plan.Expr) (*plan.Expr, error)) error) (*plan.Node, []plan.ColumnID, error) {
	agg := &plan.Node{Op: plan.OpAggregate}
	var pre []plan.ProjItem
	groupRefs := make([]*plan.Expr, len(groupExprs))
	for i, g := range groupExprs {
		if g.Kind == plan.ColRef {
			groupRefs[i] = g
		} else {
			id := b.defineColumn(exprName(g), g)
			pre = append(pre, plan.ProjItem{ID: id, Expr: g})
			groupRefs[i] = plan.NewCol(id, g.Typ)
		}
		dup := false
		for _, k := range agg.GroupBy {
			if k == groupRefs[i].Col {
				dup = true
			}
		}
		if !dup {
			agg.GroupBy = append(agg.GroupBy, groupRefs[i].Col)
		}
	}
	if len(pre) > 0 {
		p := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{node}}
		for _, c := range node.OutCols() {
			p.Proj = append(p.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
		}
		p.Proj = append(p.Proj, pre...)
		node = p
	}
	agg.Inputs = []*plan.Node{node}
	groupSet := plan.MakeColSet(agg.GroupBy...)
	inputCols := node.OutColSet()
	aggRef := map[*plan.Expr]*plan.Expr{}
	for _, a := range st.aggs {
		// Identical aggregate calls share one output column.
		var ref *plan.Expr
		for _, it := range agg.Aggs {
			if exprEqual(it.Expr, a) {
				ref = plan.NewCol(it.ID, a.Typ)
			}
		}
		if ref == nil {
			id := b.defineColumn(a.Name, a)
			agg.Aggs = append(agg.Aggs, plan.ProjItem{ID: id, Expr: a})
			ref = plan.NewCol(id, a.Typ)
		}
		aggRef[a] = ref
	}
	var rwErr error
	rw := func(e *plan.Expr) (*plan.Expr, error) {
		var walk func(x *plan.Expr) *plan.Expr
		walk = func(x *plan.Expr) *plan.Expr {
			if r, ok := aggRef[x]; ok {
				return r.Copy()
			}
			if x.Kind == plan.Agg {
				// A copy of an aggregate, from an output alias (SQLite).
				for _, it := range agg.Aggs {
					if exprEqual(it.Expr, x) {
						return plan.NewCol(it.ID, x.Typ)
					}
				}
			}
			for i, g := range groupExprs {
				if exprEqual(g, x) {
					return groupRefs[i].Copy()
				}
			}
			if x.Kind == plan.ColRef && inputCols.Has(x.Col) && !groupSet.Has(x.Col) {
				// A column neither grouped nor aggregated. PostgreSQL accepts
				// it when the grouped columns contain its table's primary
				// key; SQLite always does and takes it from some row of the
				// group. Both are modelled as any_value over the group.
				if b.schema.Dialect != catalog.SQLite && !b.dependsOnGroup(x.Col, groupSet) {
					rwErr = b.errf(x.Pos, "column %q must appear in the GROUP BY clause or be used in an aggregate function", b.meta.Col(x.Col).Name)
					return x
				}
				a := &plan.Expr{Kind: plan.Agg, Name: "any_value", Typ: x.Typ, Args: []*plan.Expr{x}, Pos: -1}
				for _, it := range agg.Aggs {
					if exprEqual(it.Expr, a) {
						return plan.NewCol(it.ID, x.Typ)
					}
				}
				id := b.newColumn(b.meta.Col(x.Col).Name, x.Typ)
				agg.Aggs = append(agg.Aggs, plan.ProjItem{ID: id, Expr: a})
				return plan.NewCol(id, x.Typ)
			}
			if x.Kind == plan.Subquery {
				// Correlated references inside a subquery see the group's
				// values: grouped columns pass through; others are modelled
				// like bare columns above.
				x.Sub.WalkExprs(func(y *plan.Expr) {
					y.Children(func(s **plan.Expr) { *s = walk(*s) })
				})
				return x
			}
			x.Children(func(s **plan.Expr) { *s = walk(*s) })
			return x
		}
		out := walk(e)
		return out, rwErr
	}
	if err := rewrite(rw); err != nil {
		return nil, nil, err
	}
	groupCols := make([]plan.ColumnID, len(groupRefs))
	for i, r := range groupRefs {
		groupCols[i] = r.Col
	}
	return agg, groupCols, nil
}

// hasGroupingCall reports whether an Aggregate computes GROUPING().
func hasGroupingCall(agg *plan.Node) bool {
	for _, a := range agg.Aggs {
		if a.Expr.Name == "grouping" {
			return true
		}
	}
	return false
}

// dependsOnGroup reports whether col's table instance has a primary key
// entirely among the grouped columns (PostgreSQL's functional dependency
// rule for ungrouped columns).
func (b *builder) dependsOnGroup(col plan.ColumnID, group plan.ColSet) bool {
	m := b.meta.Col(col)
	if m.Instance < 0 {
		return false
	}
	inst := b.meta.Instances[m.Instance]
	if len(inst.Table.PrimaryKey) == 0 {
		return false
	}
	for _, o := range inst.Table.PrimaryKey {
		if !group.Has(inst.Cols[o]) {
			return false
		}
	}
	return true
}
