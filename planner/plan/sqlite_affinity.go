package plan

import "github.com/pgequiv/pgequiv/planner/catalog"

// Affinity is the class of SQLite type affinity that decides the
// conversions before a comparison: numeric (INTEGER, REAL, NUMERIC),
// text, or none (BLOB, and expressions without one).
type Affinity uint8

// Affinity classes. AffMixed marks a compound column whose arms'
// affinities differ, which SQLite versions (and plans) read apart.
const (
	AffNone Affinity = iota
	AffNumeric
	AffText
	AffMixed
)

// SQLiteTypeAffinity is the affinity class of a column of type t.
func SQLiteTypeAffinity(t catalog.Type) Affinity {
	switch t {
	case catalog.Text:
		return AffText
	case catalog.Int, catalog.Numeric, catalog.Float, catalog.Bool, catalog.Date, catalog.Timestamp:
		return AffNumeric
	}
	return AffNone
}

// SQLiteColumnAffinities gives the affinity SQLite gives each column of
// the plan rooted at root (its subqueries included) that no table scan
// makes (issue 33, item 10): a subquery's result column has the
// affinity of its defining expression (a column's, a CAST's, a scalar
// subquery's; none for anything else), and a compound's (UNION,
// INTERSECT, EXCEPT, also through a CTE) its arms' where they all agree,
// AffMixed where they differ (SQLite 3.40 takes the leftmost arm's, and
// each arm's own where it pushes a WHERE into the arms; newer versions
// none). Scan columns have their declared type's affinity.
func SQLiteColumnAffinities(root *Node, meta *Metadata) map[ColumnID]Affinity {
	defs := map[ColumnID]*Expr{}
	arms := map[ColumnID][]ColumnID{}
	var visit func(n *Node)
	visit = func(n *Node) {
		n.WalkNodes(func(m *Node) {
			for _, it := range m.Proj {
				if !(it.Expr.Kind == ColRef && it.Expr.Col == it.ID) {
					defs[it.ID] = it.Expr
				}
			}
			if m.Op == OpSetOp {
				for i, out := range m.Cols {
					for _, cols := range m.SetCols {
						if i < len(cols) {
							arms[out] = append(arms[out], cols[i])
						}
					}
				}
			}
			m.Exprs(func(e **Expr) {
				Walk(*e, func(s *Expr) {
					if s.Kind == Subquery && s.Sub != nil {
						visit(s.Sub)
					}
				})
			})
		})
	}
	if root != nil {
		visit(root)
	}
	out := map[ColumnID]Affinity{}
	busy := map[ColumnID]bool{}
	var col func(id ColumnID) Affinity
	expr := func(e *Expr) Affinity {
		switch e.Kind {
		case ColRef:
			return col(e.Col)
		case Cast:
			return SQLiteTypeAffinity(e.Typ)
		case Subquery:
			if cols := e.Sub.OutCols(); e.SubKind == SubScalar && len(cols) == 1 {
				return col(cols[0])
			}
		}
		return AffNone
	}
	col = func(id ColumnID) Affinity {
		if int(id) < 0 || int(id) >= len(meta.Columns) {
			return AffNone
		}
		if c := meta.Col(id); c.Instance >= 0 {
			return SQLiteTypeAffinity(c.Type)
		}
		if a, ok := out[id]; ok {
			return a
		}
		if busy[id] {
			return AffMixed // a cycle: nothing to trust
		}
		busy[id] = true
		a := AffNone
		switch {
		case defs[id] != nil:
			a = expr(defs[id])
		case len(arms[id]) > 0:
			a = col(arms[id][0])
			for _, arm := range arms[id][1:] {
				if col(arm) != a {
					a = AffMixed
				}
			}
		}
		out[id] = a
		return a
	}
	for id := range defs {
		col(id)
	}
	for id := range arms {
		col(id)
	}
	return out
}
