package exec

import "github.com/pgequiv/pgequiv/planner/plan"

// affMixed marks a compound column whose arms' affinities differ.
const affMixed affinity = 0xff

// derivedAffinity is the affinity of a column no table scan makes, as
// SQLite gives a subquery's result column (issue 33, item 10): the
// affinity of the expression that defines it (a column's, a CAST's, a
// scalar subquery's; none for anything else), and for a column of a
// compound (UNION, INTERSECT, EXCEPT, also through a CTE) its arms'
// affinity where they all agree. SELECT year FROM t UNION SELECT year
// FROM u, both INTEGER, compares with '2014' as an INTEGER column does.
// Where the arms differ, SQLite versions disagree (3.40 takes the
// leftmost arm's, then applies each arm's own where it pushes a WHERE
// into the arms; newer versions use none): affMixed, which liteCmp
// reads.
func (x *executor) derivedAffinity(id plan.ColumnID) affinity {
	if x.liteAff == nil {
		x.liteAff = x.deriveAffinities()
	}
	return x.liteAff[id]
}

// deriveAffinities computes derivedAffinity for every computed column of
// the plan, its subqueries included.
func (x *executor) deriveAffinities() map[plan.ColumnID]affinity {
	defs := map[plan.ColumnID]*plan.Expr{}
	arms := map[plan.ColumnID][]plan.ColumnID{}
	var visit func(n *plan.Node)
	visit = func(n *plan.Node) {
		n.WalkNodes(func(m *plan.Node) {
			for _, it := range m.Proj {
				if !(it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID) {
					defs[it.ID] = it.Expr
				}
			}
			if m.Op == plan.OpSetOp {
				for i, out := range m.Cols {
					for _, cols := range m.SetCols {
						if i < len(cols) {
							arms[out] = append(arms[out], cols[i])
						}
					}
				}
			}
			m.Exprs(func(e **plan.Expr) {
				plan.Walk(*e, func(s *plan.Expr) {
					if s.Kind == plan.Subquery && s.Sub != nil {
						visit(s.Sub)
					}
				})
			})
		})
	}
	visit(x.root)
	out := map[plan.ColumnID]affinity{}
	busy := map[plan.ColumnID]bool{}
	var col func(id plan.ColumnID) affinity
	var expr func(e *plan.Expr) affinity
	expr = func(e *plan.Expr) affinity {
		switch e.Kind {
		case plan.ColRef:
			return col(e.Col)
		case plan.Cast:
			return typeAffinity(e.Typ)
		case plan.Subquery:
			if cols := e.Sub.OutCols(); e.SubKind == plan.SubScalar && len(cols) == 1 {
				return col(cols[0])
			}
		}
		return affNone
	}
	col = func(id plan.ColumnID) affinity {
		if int(id) < 0 || int(id) >= len(x.meta.Columns) {
			return affNone
		}
		if c := x.meta.Col(id); c.Instance >= 0 {
			return typeAffinity(c.Type)
		}
		if a, ok := out[id]; ok {
			return a
		}
		if busy[id] {
			return affMixed // a cycle: nothing to trust
		}
		busy[id] = true
		a := affNone
		switch {
		case defs[id] != nil:
			a = expr(defs[id])
		case len(arms[id]) > 0:
			a = col(arms[id][0])
			for _, arm := range arms[id][1:] {
				if col(arm) != a {
					a = affMixed
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

// liteCmp applies SQLite's comparison affinities (aa, ab) to a
// comparison's operands. An operand of affMixed affinity may take any
// (none, numeric, text) as versions and plans choose: where the choice
// changes the converted operands, the result is nondeterministic.
func (x *executor) liteCmp(aa, ab affinity, va, vb Value) (Value, Value) {
	if aa != affMixed && ab != affMixed {
		x.noteTextAffinity(aa, ab, va, vb)
		return liteCmpOperands(aa, ab, va, vb)
	}
	choices := func(a affinity) []affinity {
		if a == affMixed {
			return []affinity{affNone, affNumeric, affText}
		}
		return []affinity{a}
	}
	var ra, rb Value
	first := true
	for _, ca := range choices(aa) {
		for _, cb := range choices(ab) {
			x.noteTextAffinity(ca, cb, va, vb)
			ca2, cb2 := liteCmpOperands(ca, cb, va, vb)
			if first {
				ra, rb, first = ca2, cb2, false
				continue
			}
			if !sameValue(ra, ca2) || !sameValue(rb, cb2) {
				x.nondet = true // SQLite versions decide apart
			}
		}
	}
	return ra, rb
}

// sameValue reports whether a and b are one value of one storage class.
func sameValue(a, b Value) bool { return a.K == b.K && a.String() == b.String() }
