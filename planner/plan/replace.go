package plan

// ReplaceColsOutside replaces references to the mapped columns everywhere
// under root except inside stop's subtree (nil: everywhere), including in
// subquery plans, grouping lists and set-operation inputs. Rewrites that
// redefine a column use it to move its readers to the new definition.
//
// A node that defines one of the columns again hides it: a projection
// passing a column through keeps its ID, so readers above the projection
// read the projection's column, which is still there, and are left
// alone. Replacing past such a node would leave a set operation or a
// reader naming a column its input no longer produces. When stop is in
// the plan, only the readers of stop's columns change:
// the nodes above stop, up to a node that defines the same column again
// (a projection passing it through keeps its ID, so readers above the
// projection read the projection's column, which is still there), and
// the subqueries and dependent join inputs that see them.
func ReplaceColsOutside(root, stop *Node, m map[ColumnID]*Expr) {
	if stop != nil && reaches(root, stop) {
		replaceScoped(root, stop, m)
		return
	}
	replaceUnhidden(root, stop, m)
}

// reaches reports whether stop is a node of the plan under root,
// subquery plans included.
func reaches(root, stop *Node) bool {
	found := false
	var walk func(n *Node)
	walk = func(n *Node) {
		if n == nil || found {
			return
		}
		if n == stop {
			found = true
			return
		}
		n.Exprs(func(s **Expr) {
			Walk(*s, func(x *Expr) {
				if x.Kind == Subquery {
					walk(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(root)
	return found
}

// replaceScoped is ReplaceColsOutside for a stop in the plan: a column
// is replaced where the definition it reads is stop's.
func replaceScoped(root, stop *Node, m map[ColumnID]*Expr) {
	var keys ColSet
	for c := range m {
		keys.Add(c)
	}
	// scoped rewrites n's subtree, where outer are the columns of stop
	// visible from enclosing queries and earlier join inputs, and
	// returns the columns of stop that n's output carries.
	var scoped func(n *Node, outer ColSet) ColSet
	scoped = func(n *Node, outer ColSet) ColSet {
		if n == stop {
			return keys.Copy()
		}
		var provided ColSet
		seen := outer.Copy()
		var first ColSet
		for i, in := range n.Inputs {
			p := scoped(in, seen)
			if i == 0 {
				first = p
			}
			provided.UnionWith(p)
			seen.UnionWith(p)
		}
		visible := outer.Union(provided)
		n.Exprs(func(s **Expr) {
			*s = Rewrite(*s, func(x *Expr) *Expr {
				if x.Kind == Subquery {
					scoped(x.Sub, visible)
				}
				if x.Kind == ColRef && visible.Has(x.Col) {
					return m[x.Col].Copy()
				}
				return x
			})
		})
		var grouped ColSet
		for i, g := range n.GroupBy {
			grouped.Add(g)
			if r := m[g]; r != nil && r.Kind == ColRef && visible.Has(g) {
				n.GroupBy[i] = r.Col
			}
		}
		for i, cols := range n.SetCols {
			for j, c := range cols {
				if r := m[c]; r != nil && r.Kind == ColRef && visible.Has(c) {
					n.SetCols[i][j] = r.Col
				}
			}
		}
		// What the output carries: a node that defines a column itself
		// hides the definition below.
		switch n.Op {
		case OpProject, OpScan, OpValues, OpSetOp:
			return ColSet{}
		case OpAggregate:
			var out ColSet
			for _, c := range provided.Ordered() {
				if grouped.Has(c) {
					out.Add(c)
				}
			}
			return out
		case OpWindow:
			for _, it := range n.Proj {
				provided.Remove(it.ID)
			}
			return provided
		case OpJoin:
			if n.Join == SemiJoin || n.Join == AntiJoin {
				return first
			}
		}
		return provided
	}
	scoped(root, ColSet{})
}

// replaceUnhidden is ReplaceColsOutside where the columns' old definition
// is gone (stop nil, or not in the plan): every reader changes except
// those that read a later definition of the column, and stop's subtree.
func replaceUnhidden(root, stop *Node, m map[ColumnID]*Expr) {
	// walk rewrites n's subtree, where outer are the mapped columns that
	// enclosing queries and earlier join inputs define again, and returns
	// those n's output defines again.
	var walk func(n *Node, outer ColSet) ColSet
	walk = func(n *Node, outer ColSet) ColSet {
		if n == nil || n == stop {
			return ColSet{}
		}
		var hidden ColSet
		seen := outer.Copy()
		var first ColSet
		for i, in := range n.Inputs {
			h := walk(in, seen)
			if i == 0 {
				first = h
			}
			hidden.UnionWith(h)
			seen.UnionWith(h)
		}
		hiddenHere := outer.Union(hidden)
		replace := func(c ColumnID) (*Expr, bool) {
			r, ok := m[c]
			return r, ok && !hiddenHere.Has(c)
		}
		n.Exprs(func(s **Expr) {
			*s = Rewrite(*s, func(x *Expr) *Expr {
				if x.Kind == Subquery {
					walk(x.Sub, hiddenHere)
				}
				if x.Kind == ColRef {
					if r, ok := replace(x.Col); ok {
						return r.Copy()
					}
				}
				return x
			})
		})
		for i, g := range n.GroupBy {
			if r, ok := replace(g); ok && r.Kind == ColRef {
				n.GroupBy[i] = r.Col
			}
		}
		for i, cols := range n.SetCols {
			for j, c := range cols {
				if r, ok := replace(c); ok && r.Kind == ColRef {
					n.SetCols[i][j] = r.Col
				}
			}
		}
		if n.Op == OpJoin && (n.Join == SemiJoin || n.Join == AntiJoin) {
			hidden = first
		}
		define := func(c ColumnID) {
			if _, ok := m[c]; ok {
				hidden.Add(c)
			}
		}
		switch n.Op {
		case OpProject, OpWindow:
			for _, it := range n.Proj {
				define(it.ID)
			}
		case OpAggregate:
			for _, it := range n.Aggs {
				define(it.ID)
			}
		case OpScan, OpValues, OpSetOp:
			for _, c := range n.Cols {
				define(c)
			}
		}
		return hidden
	}
	walk(root, ColSet{})
}
