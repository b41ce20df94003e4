package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "join", left-join-hoist: an inner join over a left join whose
// condition does not read the left join's null-extended side is the
// left join of the inner join,
//
//	(A ⟕[p] B) ⋈[q] C ⇒ (A ⋈[q] C) ⟕[p] B    (q reads A and C only)
//
// Each row a of A meets B the same way either way: it keeps its partners
// b (or one NULL-padded row), and q, blind to B, keeps or drops every
// one of them alike for each c of C. So every (a, b, c) row, and every
// padded (a, NULL, c) row, appears as often on both sides (bag
// semantics, three-valued q: only TRUE keeps). Applied to both plans
// wherever an inner join meets a left join, it floats left joins above
// inner joins, so two join orders of one query meet in one form.

// leftJoinHoist rewrites inner join n over a left join as above, under a
// projection that keeps n's column order (a projection n over such a join
// goes straight over the left join), or returns nil.
func (p *prover) leftJoinHoist(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m != nil && n.Op == plan.OpProject && len(n.Inputs) == 1 {
		// A projection reads its input by column, in any order: it goes
		// straight over the left join, where left-join-unread can see it.
		if j := p.leftJoinHoist(n.Inputs[0], m); j != nil {
			c := *n
			c.Inputs = j.Inputs
			return &c
		}
		return nil
	}
	if m == nil || n.Op != plan.OpJoin || n.Join != plan.InnerJoin || len(n.Inputs) != 2 {
		return nil
	}
	for _, e := range n.Preds {
		if containsSubquery(e) {
			// A subquery's outer references are not in e.Cols.
			return nil
		}
	}
	for side := 0; side < 2; side++ {
		l := n.Inputs[side]
		if l.Op != plan.OpJoin || l.Join != plan.LeftJoin || len(l.Inputs) != 2 {
			continue
		}
		padded := allCols(l.Inputs[1])
		reads := false
		for _, e := range n.Preds {
			if e.Cols().Intersects(padded) {
				reads = true
			}
		}
		// Nor may C read B laterally: joined to A first, it would not
		// see B's columns.
		other := n.Inputs[1-side]
		other.WalkExprs(func(x *plan.Expr) {
			if x.Kind == plan.ColRef && padded.Has(x.Col) || x.Kind == plan.Subquery && x.Cols().Intersects(padded) {
				reads = true
			}
		})
		if reads {
			continue
		}
		inputs := []*plan.Node{l.Inputs[0], other}
		if side == 1 {
			inputs[0], inputs[1] = inputs[1], inputs[0]
		}
		inner := &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: inputs, Preds: n.Preds}
		left := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{inner, l.Inputs[1]}, Preds: l.Preds}
		var proj []plan.ProjItem
		for _, c := range n.OutCols() {
			proj = append(proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)})
		}
		p.rule(ruleLeftJoinHoist)
		return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{left}, Proj: proj}
	}
	return nil
}

// Fragment "join", left-join-swap: two left joins off one input commute,
//
//	(A ⟕[p] B) ⟕[q] C ⇒ (A ⟕[q] C) ⟕[p] B    (q reads A and C only)
//
// each A row's partners in B and in C are found independently (p cannot
// read C, q does not read B), and the joined rows are their product (or
// one NULL-padded side) either way. The join whose right input scans the
// table of the smaller name goes below, so both plans meet in one order.

// leftJoinSwap reorders left join n over a left join as above, under a
// projection keeping n's column order, or returns nil.
func (p *prover) leftJoinSwap(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpJoin || n.Join != plan.LeftJoin || len(n.Inputs) != 2 {
		return nil
	}
	l := n.Inputs[0]
	if l.Op == plan.OpProject && len(l.Inputs) == 1 && identityItems(l) {
		l = l.Inputs[0]
	}
	if l.Op != plan.OpJoin || l.Join != plan.LeftJoin || len(l.Inputs) != 2 {
		return nil
	}
	b, c := l.Inputs[1], n.Inputs[1]
	sb, sc := scanOf(b), scanOf(c)
	if sb == nil || sc == nil || sb.Table.Name <= sc.Table.Name {
		return nil
	}
	padded := allCols(b)
	for _, e := range n.Preds {
		if containsSubquery(e) || e.Cols().Intersects(padded) {
			return nil
		}
	}
	reads := false
	c.WalkExprs(func(x *plan.Expr) {
		if x.Kind == plan.ColRef && padded.Has(x.Col) || x.Kind == plan.Subquery {
			reads = true
		}
	})
	if reads {
		return nil
	}
	inner := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{l.Inputs[0], c}, Preds: n.Preds}
	outer := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{inner, b}, Preds: l.Preds}
	var proj []plan.ProjItem
	for _, col := range n.OutCols() {
		proj = append(proj, plan.ProjItem{ID: col, Expr: plan.NewCol(col, m.Col(col).Type)})
	}
	p.rule(ruleLeftJoinSwap)
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{outer}, Proj: proj}
}
