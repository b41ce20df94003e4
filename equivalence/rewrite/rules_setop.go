package rewrite

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Set-operation rules: INTERSECT/UNION/EXCEPT as predicates or anti joins,
// and a union of a query with itself.

// setOpToPredicate: (SELECT k FROM t WHERE φ) INTERSECT (SELECT k FROM t
// WHERE ψ) ⇒ SELECT k FROM t WHERE φ AND ψ; UNION ⇒ φ OR ψ. Sound when
// the selected columns contain a key of t (unique and not null): then the
// set operation's duplicate removal removes nothing the predicate form
// keeps.
func setOpToPredicate(kind plan.SetKind) func(r *Ctx, slot **plan.Node) bool {
	return func(r *Ctx, slot **plan.Node) bool {
		n := *slot
		if n.Op != plan.OpSetOp || n.Set != kind || n.All {
			return false
		}
		type branch struct {
			defs  map[plan.ColumnID]*plan.Expr // projected columns, if a projection remains
			scan  *plan.Node
			preds []*plan.Expr
		}
		var bs [2]branch
		for i, in := range n.Inputs {
			defs := map[plan.ColumnID]*plan.Expr{}
			if in.Op == plan.OpProject {
				defs = projDefs(in)
				in = in.Inputs[0]
			}
			scan, preds, ok := singleTable(in)
			if !ok {
				return false
			}
			bs[i] = branch{defs, scan, preds}
		}
		if bs[0].scan.Table != bs[1].scan.Table {
			return false
		}
		m := columnMap(bs[0].scan, bs[1].scan)
		colExpr := func(b branch, c plan.ColumnID) *plan.Expr {
			if d, ok := b.defs[c]; ok {
				return d
			}
			return plan.NewCol(c, r.p.Meta.Col(c).Type)
		}
		// The same columns, in the same order, on both sides.
		f := r.formatter(false)
		var outCols plan.ColSet
		left := make([]*plan.Expr, len(n.Cols))
		for i := range n.Cols {
			le := colExpr(bs[0], n.SetCols[0][i])
			re := remap([]*plan.Expr{colExpr(bs[1], n.SetCols[1][i])}, m)[0]
			if f.Expr(le) != f.Expr(re) {
				return false
			}
			if le.Kind == plan.ColRef {
				outCols.Add(le.Col)
			}
			left[i] = le
		}
		if !r.props(bs[0].scan).HasKeyWithin(outCols) {
			return false
		}
		rpreds := remap(bs[1].preds, m)
		var pred *plan.Expr
		if kind == plan.Intersect {
			pred = plan.And(append(append([]*plan.Expr(nil), bs[0].preds...), rpreds...))
		} else {
			l, rr := plan.And(bs[0].preds), plan.And(rpreds)
			if l == nil || rr == nil {
				pred = nil // one side keeps every row
			} else {
				pred = plan.NewOp(plan.OpOr, catalog.Bool, l, rr)
			}
		}
		var body *plan.Node = bs[0].scan
		if pred != nil {
			body = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{body}, Preds: []*plan.Expr{pred}}
		}
		out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{body}}
		for i, c := range n.Cols {
			out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: left[i].Copy()})
		}
		*slot = out
		return true
	}
}

func projDefs(p *plan.Node) map[plan.ColumnID]*plan.Expr {
	m := map[plan.ColumnID]*plan.Expr{}
	for _, it := range p.Proj {
		m[it.ID] = it.Expr
	}
	return m
}

// selfUnion: q UNION q ⇒ DISTINCT q (which the planner reduces to q when q
// is free of duplicates). The published rule drops the DISTINCT, which is
// wrong when q has duplicates.
func selfUnion(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpSetOp || n.Set != plan.Union || n.All {
		return false
	}
	// Rendering both inputs costs their size; a chain of n UNIONs would
	// render O(n²). Inputs of different shapes cannot render alike, and
	// comparing shapes in lockstep stops at the smaller input.
	if !sameShape(n.Inputs[0], n.Inputs[1]) {
		return false
	}
	f := r.formatter(true)
	if f.Node(n.Inputs[0]) != f.Node(n.Inputs[1]) {
		return false
	}
	// Columns must be taken at the same positions on both sides.
	for i := range n.SetCols[0] {
		if f.Col(n.SetCols[0][i]) != f.Col(n.SetCols[1][i]) {
			return false
		}
	}
	// DISTINCT over exactly the union's columns of the left input.
	inner := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n.Inputs[0]}}
	out := &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{inner}}
	for i, c := range n.Cols {
		inner.Proj = append(inner.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(n.SetCols[0][i], r.p.Meta.Col(c).Type)})
	}
	*slot = out
	return true
}

// sameShape reports whether a and b have the same operators, tables and
// numbers of inputs and expressions, node by node: a necessary condition
// for their canonical forms to be equal. It visits at most the smaller
// tree's nodes.
func sameShape(a, b *plan.Node) bool {
	if a.Op != b.Op || a.Table != b.Table || a.Join != b.Join || a.Set != b.Set || a.All != b.All ||
		len(a.Inputs) != len(b.Inputs) || len(a.Preds) != len(b.Preds) || len(a.Proj) != len(b.Proj) ||
		len(a.Aggs) != len(b.Aggs) || len(a.GroupBy) != len(b.GroupBy) || len(a.Keys) != len(b.Keys) ||
		len(a.Rows) != len(b.Rows) || len(a.Cols) != len(b.Cols) {
		return false
	}
	for i := range a.Inputs {
		if !sameShape(a.Inputs[i], b.Inputs[i]) {
			return false
		}
	}
	return true
}

// exceptToAntiJoin: L EXCEPT R ⇒ AntiJoin(L, R, l = r) when L's output
// contains a key of L (unique, not null): EXCEPT's duplicate removal then
// removes nothing, and with no NULL on the left, EXCEPT's NULL-matching
// and the anti join's '=' agree.
func exceptToAntiJoin(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpSetOp || n.Set != plan.Except || n.All {
		return false
	}
	l, rt := n.Inputs[0], n.Inputs[1]
	lp := r.props(l)
	lcols := plan.MakeColSet(n.SetCols[0]...)
	if !lp.HasKeyWithin(lcols) {
		return false
	}
	for _, c := range n.SetCols[0] {
		if !lp.NotNull.Has(c) {
			return false
		}
	}
	if r.p.Meta != nil && r.p.Meta.Dialect == catalog.SQLite {
		// SQLite gives a compound column its arms' affinity only where
		// they agree (versions differ where they do not), and compares
		// the arms' values without conversion; the anti-join would give
		// the left arm's affinity and compare with = (issue 33 campaign,
		// seed 12: INTEGER EXCEPT TEXT, x = '5' against x = 5.0).
		for i := range n.SetCols[0] {
			a, b := n.SetCols[0][i], n.SetCols[1][i]
			if plan.SQLiteTypeAffinity(r.p.Meta.Col(a).Type) != plan.SQLiteTypeAffinity(r.p.Meta.Col(b).Type) {
				return false
			}
		}
	}
	var conds []*plan.Expr
	for i := range n.SetCols[0] {
		a, b := n.SetCols[0][i], n.SetCols[1][i]
		conds = append(conds, plan.NewOp(plan.OpEq, catalog.Bool, plan.NewCol(a, r.p.Meta.Col(a).Type), plan.NewCol(b, r.p.Meta.Col(b).Type)))
	}
	anti := &plan.Node{Op: plan.OpJoin, Join: plan.AntiJoin, Inputs: []*plan.Node{l, rt}, Preds: conds}
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{anti}}
	for i, c := range n.Cols {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(n.SetCols[0][i], r.p.Meta.Col(c).Type)})
	}
	*slot = out
	return true
}

// outerRefs reports whether n reads columns it does not produce
// (correlation with an enclosing query).
func outerRefs(n *plan.Node) bool {
	produced := plan.ColSet{}
	n.WalkNodes(func(x *plan.Node) { produced.UnionWith(x.OutColSet()) })
	found := false
	n.WalkExprs(func(e *plan.Expr) {
		if !e.Cols().SubsetOf(produced) {
			found = true
		}
	})
	return found
}
