package build

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// A LATERAL subquery that references columns of the FROM items before it
// is a dependent join, which the plan has no operator for: every join's
// inputs are independent. The builder lowers the two shapes that have an
// exact independent form and refuses the rest:
//
//   - at most one row per outer row (a scalar aggregate, a VALUES row,
//     LIMIT 1, under projections and filters): each of its columns is a
//     correlated scalar subquery over the outer row;
//     x JOIN LATERAL (SELECT max(c) AS m FROM t WHERE t.k = x.k) s ON p
//     ⇒ Filter(p[m := s.m], Project(x.*, scalar{max(c) where t.k = x.k} AS m, x));
//     under LEFT JOIN the columns are NULL where p is not true; an
//     inner join over a possibly empty input also filters on EXISTS.
//   - select-project-join over independent inputs, with outer references
//     only in its filters and projections (lateral_join.go: also in the
//     conditions of its inner and left joins, and a VALUES list's rows,
//     under an inner LATERAL join):
//     x JOIN LATERAL (SELECT e(t, x) AS c FROM t WHERE q(t, x)) s ON p
//     ⇒ Filter(p, Project(x.*, e AS c, Join(inner, x, t, q)));
//     under LEFT JOIN the projections must be columns of t, so that they
//     are NULL on unmatched rows: Project(x.*, t.c, Join(left, x, t, q ∧ p)).
//   - under an inner LATERAL join, the rest of the shapes lateral_push.go
//     pushes x into: grouped aggregates, DISTINCT and set operations over
//     an x whose rows are distinct, and joins whose later input reads x;
//     under a LEFT one, the same pushed into a copy of x joined back on a
//     NOT NULL key of x.

// lateralJoin lowers join, whose right input may reference columns of its
// left input, and returns the node that replaces it and the columns that
// replace the right input's outputs (rightCols, in order).
func (b *builder) lateralJoin(join *plan.Node, rightCols []plan.ColumnID) (*plan.Node, []plan.ColumnID, error) {
	left, right := join.Inputs[0], join.Inputs[1]
	leftCols := left.OutColSet()
	if !refersTo(right, leftCols) {
		return join, rightCols, nil
	}
	if join.Join != plan.InnerJoin && join.Join != plan.LeftJoin {
		return nil, nil, b.errf(-1, "the combining JOIN type must be INNER or LEFT for a LATERAL reference")
	}
	// Each column reads its own copy of the input, so the copies must
	// agree on the row: a LIMIT 1 over ties may pick different rows.
	if oneRow(right) || atMostOneRow(right) && (len(rightCols) == 1 || !limitBelow(right)) {
		return b.lateralOneRow(join, rightCols, oneRow(right))
	}
	pristine := right.Copy() // lateralSPJ may rewrite right before it refuses
	if n, ok := b.lateralSPJ(join, leftCols); ok {
		return n, rightCols, nil
	}
	if join.Join == plan.InnerJoin {
		if n, ok := b.lateralPushJoin(join, pristine, rightCols); ok {
			return n, rightCols, nil
		}
	} else if n, cols, ok := b.lateralPushLeft(join, pristine, rightCols); ok {
		return n, cols, nil
	}
	return nil, nil, b.unsupported(-1, "a LATERAL subquery with outer references that is neither one row nor select-project-join")
}

// refersTo reports whether the subtree at n (its subqueries included)
// references any of cols, in an expression or as a grouping column (GROUP
// BY an outer column names it by its ID alone).
func refersTo(n *plan.Node, cols plan.ColSet) bool {
	found := false
	n.WalkNodes(func(x *plan.Node) {
		for _, g := range x.GroupBy {
			found = found || cols.Has(g)
		}
	})
	var visit func(e *plan.Expr)
	visit = func(e *plan.Expr) {
		switch {
		case found:
		case e.Kind == plan.ColRef && cols.Has(e.Col):
			found = true
		case e.Kind == plan.Subquery && e.Sub != nil:
			found = refersTo(e.Sub, cols)
		}
	}
	n.WalkExprs(visit)
	return found
}

// atMostOneRow reports whether n yields no more than one row whatever
// its input.
func atMostOneRow(n *plan.Node) bool {
	switch n.Op {
	case plan.OpProject, plan.OpWindow, plan.OpSort, plan.OpFilter:
		return atMostOneRow(n.Inputs[0])
	case plan.OpLimit:
		if n.Limit != nil && n.Limit.Kind == plan.Const && !n.Limit.Null && (n.Limit.Value == "0" || n.Limit.Value == "1") {
			return true
		}
		return atMostOneRow(n.Inputs[0])
	case plan.OpAggregate:
		return len(n.GroupBy) == 0
	case plan.OpValues:
		return len(n.Rows) <= 1
	}
	return false
}

// limitBelow reports whether a Limit sits in n's chain of single-input
// operators.
func limitBelow(n *plan.Node) bool {
	for ; len(n.Inputs) == 1; n = n.Inputs[0] {
		if n.Op == plan.OpLimit {
			return true
		}
	}
	return false
}

// oneRow reports whether n yields exactly one row whatever its input.
func oneRow(n *plan.Node) bool {
	switch n.Op {
	case plan.OpProject, plan.OpWindow, plan.OpSort:
		return oneRow(n.Inputs[0])
	case plan.OpAggregate:
		return len(n.GroupBy) == 0
	case plan.OpValues:
		return len(n.Rows) == 1
	}
	return false
}

// lateralOneRow lowers a lateral input of at most one row (exactly one
// when exact). A scalar subquery over no rows is NULL, which is what a
// LEFT JOIN reads on an unmatched row; an inner join keeps the row only
// when the input has its row, which EXISTS tells.
func (b *builder) lateralOneRow(join *plan.Node, rightCols []plan.ColumnID, exact bool) (*plan.Node, []plan.ColumnID, error) {
	left, right := join.Inputs[0], join.Inputs[1]
	if err := b.spend(countNodes(right) * len(rightCols)); err != nil {
		return nil, nil, err
	}
	proj := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{left}}
	for _, c := range left.OutCols() {
		proj.Proj = append(proj.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
	}
	repl := map[plan.ColumnID]*plan.Expr{}
	out := make([]plan.ColumnID, len(rightCols))
	for i, c := range rightCols {
		// Each column reads its own copy of the subquery: one plan node
		// must not sit in two expressions.
		sub, m := b.cloneFresh(right)
		inner := c
		if d, ok := m[c]; ok {
			inner = d
		}
		t := b.typeOf(c)
		one := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{sub},
			Proj: []plan.ProjItem{{ID: inner, Expr: plan.NewCol(inner, t)}}}
		out[i] = b.newColumn(b.meta.Col(c).Name, t)
		proj.Proj = append(proj.Proj, plan.ProjItem{ID: out[i],
			Expr: &plan.Expr{Kind: plan.Subquery, SubKind: plan.SubScalar, Sub: one, Typ: t, Pos: -1}})
		repl[c] = plan.NewCol(out[i], t)
	}
	var cond []*plan.Expr
	for _, p := range join.Preds {
		if !p.IsTrue() {
			cond = append(cond, replaceInExpr(p, repl))
		}
	}
	if !exact && join.Join == plan.InnerJoin {
		sub, _ := b.cloneFresh(right)
		cond = append(cond, &plan.Expr{Kind: plan.Subquery, SubKind: plan.SubExists, Sub: sub, Typ: catalog.Bool, Pos: -1})
	}
	if len(cond) == 0 {
		return proj, out, nil
	}
	if join.Join == plan.InnerJoin {
		return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{proj}, Preds: cond}, out, nil
	}
	// LEFT: where the condition is not true the row is NULL-extended.
	top := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{proj}}
	for _, c := range left.OutCols() {
		top.Proj = append(top.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
	}
	final := make([]plan.ColumnID, len(out))
	for i, c := range out {
		t := b.typeOf(c)
		final[i] = b.newColumn(b.meta.Col(c).Name, t)
		when := plan.And(copyAll(cond))
		top.Proj = append(top.Proj, plan.ProjItem{ID: final[i],
			Expr: &plan.Expr{Kind: plan.Case, Args: []*plan.Expr{when, plan.NewCol(c, t)}, Typ: t, Pos: -1}})
	}
	return top, final, nil
}

func copyAll(es []*plan.Expr) []*plan.Expr {
	out := make([]*plan.Expr, len(es))
	for i, e := range es {
		out[i] = e.Copy()
	}
	return out
}

// lateralSPJ lowers a select-project-join lateral input; ok is false when
// the right input has another shape.
func (b *builder) lateralSPJ(join *plan.Node, leftCols plan.ColSet) (*plan.Node, bool) {
	left, right := join.Inputs[0], join.Inputs[1]
	if right.Op == plan.OpValues {
		// LATERAL (VALUES ...): its columns pass through.
		pass := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{right}}
		for _, c := range right.Cols {
			pass.Proj = append(pass.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
		}
		right = pass
	}
	if right.Op != plan.OpProject {
		return nil, false
	}
	proj := right
	var filters []*plan.Expr
	t := proj.Inputs[0]
	for {
		switch t.Op {
		case plan.OpSort:
			// Order inside a FROM item means nothing without a LIMIT.
			t = t.Inputs[0]
			continue
		case plan.OpFilter:
			filters = append(filters, t.Preds...)
			t = t.Inputs[0]
			continue
		}
		break
	}
	// absorbed: t holds left itself (lateralIntoJoin).
	absorbed := false
	if refersTo(t, leftCols) {
		switch {
		case join.Join != plan.InnerJoin:
			return nil, false
		case t.Op == plan.OpValues:
			idx, subst := b.valuesByIndex(t)
			t = idx
			for i, f := range filters {
				filters[i] = replaceInExpr(f, subst)
			}
			for i := range proj.Proj {
				proj.Proj[i].Expr = replaceInExpr(proj.Proj[i].Expr, subst)
			}
		default:
			var ok bool
			if t, ok = lateralIntoJoin(t, left, leftCols); !ok {
				return nil, false
			}
			absorbed = true
		}
	}
	for _, f := range filters {
		if f.HasAgg() {
			return nil, false
		}
	}
	for _, p := range proj.Proj {
		if p.Expr.HasAgg() {
			return nil, false
		}
	}
	cols := left.OutCols()
	if join.Join == plan.LeftJoin {
		// Unmatched rows must read NULL in every lateral column.
		tCols := t.OutColSet()
		subst := map[plan.ColumnID]*plan.Expr{}
		for _, p := range proj.Proj {
			if p.Expr.Kind != plan.ColRef || !tCols.Has(p.Expr.Col) {
				return nil, false
			}
			subst[p.ID] = p.Expr
		}
		var on []*plan.Expr
		for _, p := range join.Preds {
			on = append(on, replaceInExpr(p, subst))
		}
		j := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{left, t}, Preds: append(filters, on...)}
		out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{j}}
		for _, c := range cols {
			out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
		}
		out.Proj = append(out.Proj, proj.Proj...)
		return out, true
	}
	j := &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{left, t}, Preds: filters}
	if absorbed {
		j = t
		if len(filters) > 0 {
			j = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{t}, Preds: filters}
		}
	}
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{j}}
	for _, c := range cols {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
	}
	for _, p := range proj.Proj {
		// A lateral column passing an outer column through is that
		// column: it is already in the output.
		if !leftCols.Has(p.ID) {
			out.Proj = append(out.Proj, p)
		}
	}
	var cond []*plan.Expr
	for _, p := range join.Preds {
		if !p.IsTrue() {
			cond = append(cond, p)
		}
	}
	if len(cond) == 0 {
		return out, true
	}
	return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{out}, Preds: cond}, true
}
