package prove

import (
	"math/big"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "constants fixed by equalities", folding VALUES (issue 35,
// item 2): a projection over VALUES rows of constants is the VALUES of
// the projected rows (project-values), SELECT x + 1 FROM (VALUES (1),
// (2)) v(x) being VALUES (2), (3), where the other side is (or folds
// to) VALUES too. An item folds when it is a constant,
// a column of the VALUES, or one +, - or * of those over integers whose
// result lies within the 4-byte integer range: then no operand width
// (smallint aside, which a VALUES literal never is) overflows, so the
// engine raises nothing. Anything else leaves the projection.

// int4Bound bounds the integers an item may fold to.
var int4Bound = big.NewInt(1<<31 - 1)

// projectValues folds projection n over a VALUES of constants, or nil.
func projectValues(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpProject || len(n.Inputs) != 1 || n.Inputs[0].Op != plan.OpValues || m == nil {
		return nil
	}
	v := n.Inputs[0]
	var ids plan.ColSet
	for _, it := range n.Proj {
		if ids.Has(it.ID) {
			// A column output twice: VALUES columns are distinct.
			return nil
		}
		ids.Add(it.ID)
	}
	rows := make([][]*plan.Expr, 0, len(v.Rows))
	for _, row := range v.Rows {
		if len(row) != len(v.Cols) {
			return nil
		}
		byCol := map[plan.ColumnID]*plan.Expr{}
		for i, c := range v.Cols {
			if row[i].Kind != plan.Const {
				return nil
			}
			byCol[c] = row[i]
		}
		out := make([]*plan.Expr, len(n.Proj))
		for j, it := range n.Proj {
			c := foldValuesItem(it.Expr, byCol)
			if c == nil || c.Typ != m.Col(it.ID).Type {
				return nil
			}
			out[j] = c
		}
		rows = append(rows, out)
	}
	cols := make([]plan.ColumnID, len(n.Proj))
	for j, it := range n.Proj {
		cols[j] = it.ID
	}
	return &plan.Node{Op: plan.OpValues, Rows: rows, Cols: cols}
}

// foldValuesItem is the constant item e reads on a row (byCol), or nil.
func foldValuesItem(e *plan.Expr, byCol map[plan.ColumnID]*plan.Expr) *plan.Expr {
	leaf := func(x *plan.Expr) *plan.Expr {
		switch x.Kind {
		case plan.Const:
			return x
		case plan.ColRef:
			return byCol[x.Col]
		}
		return nil
	}
	if c := leaf(e); c != nil {
		return c.Copy()
	}
	if e.Kind != plan.Op || e.Typ != catalog.Int || len(e.Args) != 2 {
		return nil
	}
	a, b := leaf(e.Args[0]), leaf(e.Args[1])
	if a == nil || b == nil {
		return nil
	}
	x, okx := intConst(a)
	y, oky := intConst(b)
	if !okx || !oky {
		return nil
	}
	var r big.Int
	switch e.Name {
	case plan.OpAdd:
		r.Add(x, y)
	case plan.OpSub:
		r.Sub(x, y)
	case plan.OpMul:
		r.Mul(x, y)
	default:
		return nil
	}
	if new(big.Int).Abs(&r).Cmp(int4Bound) > 0 {
		return nil
	}
	return plan.NewConst(catalog.Int, r.String())
}

// foldValuesPair folds a projection over VALUES on either side into
// VALUES when both sides then are VALUES (compared row by row): folding
// one side only would take from the other side's projection the shape
// the block comparison pairs it by.
func (p *prover) foldValuesPair(a, b *plan.Node) (*plan.Node, *plan.Node) {
	fa, fb := projectValues(a, p.a.Meta), projectValues(b, p.b.Meta)
	if fa == nil && fb == nil || (fa == nil && a.Op != plan.OpValues) || (fb == nil && b.Op != plan.OpValues) {
		return a, b
	}
	p.rule(ruleProjectValues)
	if fa != nil {
		a = fa
	}
	if fb != nil {
		b = fb
	}
	return a, b
}
