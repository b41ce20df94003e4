package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "unique-join-semi": π[R…](R ⋈[q] S) ⇒ π[R…](R ⋉[q] S) when
// the projection reads R alone (S's columns equated with R's read as
// R's) and every row of R has at most one partner in S (Django's
// filter(posttag__tag__name='go') through a junction table with UNIQUE
// (post_id, tag_id) and a UNIQUE tag name, against Exists()). The join
// then gives each row of R once or not at all, as the semi-join does.
//
// At most one partner: S is filters over scans, and closing the columns
// the conditions fix for one row of R — equated with a column of R or a
// constant, equated with a fixed column or a deterministic expression of
// fixed columns (fixedByExpr), or of a scan one of whose keys is fixed —
// fixes every scan of S. Equalities between columns count
// where equal values are one value (integers, dates, booleans); a
// constant pins a column of its own type whose = is deterministic; a
// UNIQUE constraint compares as that = does.
func (p *prover) uniqueJoinSemi(n *plan.Node, m *plan.Metadata) *plan.Node {
	if p.opts.SQLite || n.Op != plan.OpProject || n.Inputs[0].Op != plan.OpJoin {
		return nil
	}
	// An input whose key the projection holds first: the one an EXISTS
	// form keeps outside (posts, not the junction table).
	if j := joinAsSemi(n, m, func(r *plan.Node, rest []*plan.Node, preds []*plan.Expr, items []plan.ProjItem) bool {
		return keyProjected(plan.Derive(r, m).Keys, items) && atMostOnePartner(r, rest, preds, m)
	}); j != nil {
		return j
	}
	return joinAsSemi(n, m, func(r *plan.Node, rest []*plan.Node, preds []*plan.Expr, _ []plan.ProjItem) bool {
		return atMostOnePartner(r, rest, preds, m)
	})
}

// atMostOnePartner says whether, under the conjuncts preds, each row of
// r joins at most one combination of rows of rest.
func atMostOnePartner(r *plan.Node, rest []*plan.Node, preds []*plan.Expr, m *plan.Metadata) bool {
	rcols := allCols(r)
	var scans []*plan.Node
	conj := append([]*plan.Expr(nil), preds...)
	var collect func(x *plan.Node) bool
	collect = func(x *plan.Node) bool {
		switch x.Op {
		case plan.OpScan:
			scans = append(scans, x)
			return true
		case plan.OpFilter:
			conj = append(conj, x.Preds...)
			return collect(x.Inputs[0])
		}
		return false
	}
	for _, x := range rest {
		if !collect(x) {
			return false
		}
	}
	var scols plan.ColSet
	for _, s := range scans {
		scols.UnionWith(s.OutColSet())
	}
	var fixed plan.ColSet
	for _, e := range conj {
		if a, b, ok := equatedColumns(e, nil); ok {
			if scols.Has(a.Col) && rcols.Has(b.Col) {
				fixed.Add(a.Col)
			}
			if scols.Has(b.Col) && rcols.Has(a.Col) {
				fixed.Add(b.Col)
			}
			continue
		}
		if c, ok := pinnedColumn(e, m); ok && scols.Has(c) {
			fixed.Add(c)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, e := range conj {
			if a, b, ok := equatedColumns(e, nil); ok && scols.Has(a.Col) && scols.Has(b.Col) && fixed.Has(a.Col) != fixed.Has(b.Col) {
				fixed.Add(a.Col)
				fixed.Add(b.Col)
				changed = true
			}
		}
		for _, e := range conj {
			if c, ok := fixedByExpr(e, fixed.Union(rcols), m); ok && scols.Has(c) && !fixed.Has(c) {
				fixed.Add(c)
				changed = true
			}
		}
		for _, s := range scans {
			cols := s.OutColSet()
			if cols.SubsetOf(fixed) {
				continue
			}
			for _, k := range plan.Derive(s, m).Keys {
				if k.SubsetOf(fixed) {
					fixed.UnionWith(cols)
					changed = true
					break
				}
			}
		}
	}
	for _, s := range scans {
		if !s.OutColSet().SubsetOf(fixed) {
			return false
		}
	}
	return true
}

// pinnedColumn reads e as col = constant (either side), the constant
// non-NULL and of the column's type, the column's = deterministic.
func pinnedColumn(e *plan.Expr, m *plan.Metadata) (plan.ColumnID, bool) {
	if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
		return 0, false
	}
	c, k := e.Args[0], e.Args[1]
	if c.Kind == plan.Const {
		c, k = k, c
	}
	if c.Kind != plan.ColRef || k.Kind != plan.Const || k.Null || c.Typ != k.Typ {
		return 0, false
	}
	if d := m.ExprDomain(c); d.Nondeterministic || d.Mixed {
		return 0, false
	}
	return c.Col, true
}

// fixedByExpr reads e as col = f(…) (either side), f a deterministic
// expression of the columns of known only (no subquery, no volatile
// call), of the column's type, the column's = deterministic: where
// known's columns hold one value, f is one value, and a key of col's
// table compared with it matches one row at most (x = COALESCE(u, 10)
// with u fixed by u = a.i).
func fixedByExpr(e *plan.Expr, known plan.ColSet, m *plan.Metadata) (plan.ColumnID, bool) {
	if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
		return 0, false
	}
	for _, sides := range [][2]*plan.Expr{{e.Args[0], e.Args[1]}, {e.Args[1], e.Args[0]}} {
		c, f := sides[0], sides[1]
		if c.Kind != plan.ColRef || f.Kind == plan.ColRef || f.Kind == plan.Const || c.Typ != f.Typ {
			continue
		}
		cols := f.Cols()
		if cols.Empty() || !cols.SubsetOf(known) || f.HasSubquery() || plan.Volatile(f) != "" || !plainExpr(f) {
			continue
		}
		if d := m.ExprDomain(c); d.Nondeterministic || d.Mixed {
			continue
		}
		return c.Col, true
	}
	return 0, false
}
