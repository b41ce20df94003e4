package build

import (
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// lateralIntoJoin lowers the core t of an inner LATERAL subquery that
// refers to the outer input left only in the conditions of a chain of
// inner and left joins: the outer input joins the chain's leftmost
// (preserved) input, and each condition then reads its columns in the
// row it is evaluated on.
//
//	x JOIN LATERAL (a LEFT JOIN b ON p(a, b, x)) ⇒ (x JOIN a) LEFT JOIN b ON p(a, b, x)
//
// For one row r of x, (a ⟕ b ON p(r)) keeps each row of a with its
// matches under p(r), or NULLs; (({r} × a) ⟕ b ON p) does the same for
// each (r, a) row; an inner join's condition is a filter either way. So
// x ⋈ J(a(x)...) = J(x ⋈ a...) by induction along the chain, as bags.
// ok is false when another node (a filter, projection or the chain's
// right inputs) refers to x, or the chain has another join kind.
func lateralIntoJoin(t, left *plan.Node, leftCols plan.ColSet) (*plan.Node, bool) {
	if t.Op != plan.OpJoin || t.Join != plan.InnerJoin && t.Join != plan.LeftJoin || len(t.Inputs) < 2 {
		return nil, false
	}
	for _, in := range t.Inputs[1:] {
		if refersTo(in, leftCols) {
			return nil, false
		}
	}
	first := t.Inputs[0]
	if refersTo(first, leftCols) {
		var ok bool
		if first, ok = lateralIntoJoin(first, left, leftCols); !ok {
			return nil, false
		}
	} else {
		first = &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{left, first}}
	}
	out := *t
	out.Inputs = append([]*plan.Node{first}, t.Inputs[1:]...)
	return &out, true
}

// valuesByIndex rewrites a VALUES list whose rows refer to an outer
// input as a VALUES list of the row numbers (1, 2, ...), which refers to
// nothing, and returns what each of the list's columns becomes: CASE
// WHEN i = 1 THEN row 1's value WHEN i = 2 THEN ... END. Joined with the
// outer input, the numbers give each outer row one row per list row, as
// the list did, and the CASE its value there.
func (b *builder) valuesByIndex(v *plan.Node) (*plan.Node, map[plan.ColumnID]*plan.Expr) {
	i := b.newColumn("ordinality", catalog.Int)
	idx := &plan.Node{Op: plan.OpValues, Cols: []plan.ColumnID{i}}
	for k := range v.Rows {
		idx.Rows = append(idx.Rows, []*plan.Expr{plan.NewConst(catalog.Int, strconv.Itoa(k+1))})
	}
	subst := map[plan.ColumnID]*plan.Expr{}
	for c, col := range v.Cols {
		t := b.typeOf(col)
		e := &plan.Expr{Kind: plan.Case, Typ: t, Pos: -1}
		for k, row := range v.Rows {
			when := plan.NewOp(plan.OpEq, catalog.Bool, plan.NewCol(i, catalog.Int), plan.NewConst(catalog.Int, strconv.Itoa(k+1)))
			e.Args = append(e.Args, when, row[c])
		}
		subst[col] = e
	}
	return idx, subst
}
