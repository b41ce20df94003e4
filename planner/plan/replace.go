package plan

// ReplaceColsOutside replaces references to the mapped columns everywhere
// under root except inside stop's subtree (nil: everywhere), including in
// subquery plans, grouping lists and set-operation inputs. Rewrites that
// redefine a column use it to move its readers to the new definition.
func ReplaceColsOutside(root, stop *Node, m map[ColumnID]*Expr) {
	var walkNode func(n *Node)
	var rw func(e *Expr) *Expr
	rw = func(e *Expr) *Expr {
		return Rewrite(e, func(x *Expr) *Expr {
			if x.Kind == Subquery {
				walkNode(x.Sub)
			}
			if x.Kind == ColRef {
				if r, ok := m[x.Col]; ok {
					return r.Copy()
				}
			}
			return x
		})
	}
	walkNode = func(n *Node) {
		if n == nil || n == stop {
			return
		}
		n.Exprs(func(s **Expr) { *s = rw(*s) })
		for i, g := range n.GroupBy {
			if r, ok := m[g]; ok && r.Kind == ColRef {
				n.GroupBy[i] = r.Col
			}
		}
		for i, cols := range n.SetCols {
			for j, c := range cols {
				if r, ok := m[c]; ok && r.Kind == ColRef {
					n.SetCols[i][j] = r.Col
				}
			}
		}
		for _, in := range n.Inputs {
			walkNode(in)
		}
	}
	walkNode(root)
}
