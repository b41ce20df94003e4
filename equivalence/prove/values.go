package prove

import (
	"math/big"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// filterValues evaluates a filter over a VALUES list of constants row by
// row: a row stays when every condition is TRUE with the row's constants
// put for its columns, and goes when one is FALSE or NULL (WHERE keeps
// TRUE only). Only conditions this evaluator decides count: comparisons
// of numbers, = and <> of texts of one type (byte equality, the default
// collation's), NULL tests, AND, OR, NOT; anything else leaves the filter
// as it is. It returns nil when it does not apply.
func filterValues(n *plan.Node) *plan.Node {
	if n.Op != plan.OpFilter || len(n.Inputs) != 1 || n.Inputs[0].Op != plan.OpValues {
		return nil
	}
	v := n.Inputs[0]
	var kept [][]*plan.Expr
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
		keep := true
		for _, pr := range n.Preds {
			e := plan.Rewrite(pr.Copy(), func(x *plan.Expr) *plan.Expr {
				if x.Kind == plan.ColRef {
					if r, ok := byCol[x.Col]; ok {
						return r.Copy()
					}
				}
				return x
			})
			t, ok := constTruth(fold(e))
			if !ok {
				return nil
			}
			if t != truthTrue {
				keep = false
			}
		}
		if keep {
			kept = append(kept, row)
		}
	}
	c := *v
	c.Rows = kept
	return &c
}

type truth int

const (
	truthFalse truth = iota
	truthTrue
	truthNull
)

// constTruth evaluates a condition over constants under three-valued
// logic; ok is false where it cannot.
func constTruth(e *plan.Expr) (truth, bool) {
	if e.Kind == plan.Const {
		switch {
		case e.Null:
			return truthNull, true
		case e.IsTrue():
			return truthTrue, true
		case e.IsFalse():
			return truthFalse, true
		}
		return 0, false
	}
	if e.Kind != plan.Op {
		return 0, false
	}
	switch e.Name {
	case plan.OpAnd, plan.OpOr:
		// AND: a FALSE decides, else a NULL; OR: a TRUE, else a NULL.
		decide, other := truthFalse, truthTrue
		if e.Name == plan.OpOr {
			decide, other = truthTrue, truthFalse
		}
		res := other
		for _, a := range e.Args {
			t, ok := constTruth(a)
			if !ok {
				return 0, false
			}
			if t == decide {
				return decide, true
			}
			if t == truthNull {
				res = truthNull
			}
		}
		return res, true
	case plan.OpNot:
		if len(e.Args) != 1 {
			return 0, false
		}
		t, ok := constTruth(e.Args[0])
		if !ok {
			return 0, false
		}
		switch t {
		case truthTrue:
			return truthFalse, true
		case truthFalse:
			return truthTrue, true
		}
		return truthNull, true
	case plan.OpIsNull, plan.OpIsNotNull:
		if len(e.Args) != 1 || e.Args[0].Kind != plan.Const {
			return 0, false
		}
		if e.Args[0].Null == (e.Name == plan.OpIsNull) {
			return truthTrue, true
		}
		return truthFalse, true
	case plan.OpEq, plan.OpNe, plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe:
		if len(e.Args) != 2 || e.Args[0].Kind != plan.Const || e.Args[1].Kind != plan.Const {
			return 0, false
		}
		x, y := e.Args[0], e.Args[1]
		if x.Null || y.Null {
			return truthNull, true
		}
		var cmp int
		switch {
		case isNum(x.Typ) && isNum(y.Typ):
			rx, okx := new(big.Rat).SetString(x.Value)
			ry, oky := new(big.Rat).SetString(y.Value)
			if !okx || !oky {
				return 0, false
			}
			cmp = rx.Cmp(ry)
		case x.Typ == catalog.Text && y.Typ == catalog.Text && (e.Name == plan.OpEq || e.Name == plan.OpNe):
			if x.Value != y.Value {
				cmp = 1
			}
		default:
			return 0, false
		}
		var r bool
		switch e.Name {
		case plan.OpEq:
			r = cmp == 0
		case plan.OpNe:
			r = cmp != 0
		case plan.OpLt:
			r = cmp < 0
		case plan.OpLe:
			r = cmp <= 0
		case plan.OpGt:
			r = cmp > 0
		case plan.OpGe:
			r = cmp >= 0
		}
		if r {
			return truthTrue, true
		}
		return truthFalse, true
	}
	return 0, false
}

func isNum(t catalog.Type) bool { return t == catalog.Int || t == catalog.Numeric }
