package plan

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// CannotRaise says whether evaluating e raises no error on any row. A
// rewrite that stops evaluating an expression the query evaluates (drops
// a grouping key, a DISTINCT column or a conjunct, or lets a later step
// prune the column) keeps PostgreSQL's answer only then: i + 1 raises
// "integer out of range" on the largest integer and 10 / i "division by
// zero" on 0, so GROUP BY i, i + 1 fails where GROUP BY i answers. The
// allowed forms are few on purpose: columns, constants, text
// concatenation, same-typed comparisons, boolean connectives, NULL
// tests and a few text functions (funcCannotRaise); no arithmetic, cast
// or other function call.
func CannotRaise(e *Expr) bool {
	if e == nil {
		return true
	}
	switch e.Kind {
	case ColRef, Const:
		return true
	case Func:
		if !funcCannotRaise(e) {
			return false
		}
	case Op:
		if !opCannotRaise(e) {
			return false
		}
	default:
		return false
	}
	for _, a := range e.Args {
		if !CannotRaise(a) {
			return false
		}
	}
	return true
}

// opCannotRaise is CannotRaise for an operator, its arguments aside.
func opCannotRaise(e *Expr) bool {
	switch e.Name {
	case OpAnd, OpOr, OpNot, OpIsNull, OpIsNotNull, OpIsTrue, OpIsNotTrue, OpIsFalse, OpIsNotFalse:
	case OpConcat:
		// text || text: no value is out of range (the 1 GB limit aside).
		if e.Typ != catalog.Text {
			return false
		}
		for _, a := range e.Args {
			if a.Typ != catalog.Text {
				return false
			}
		}
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpIsDistinct, OpNotDistinc:
		// Operands of one type: no implicit cast that may fail.
		if len(e.Args) != 2 || e.Args[0].Typ != e.Args[1].Typ {
			return false
		}
	default:
		return false
	}
	return true
}

// DefsMayRaise says whether a projection within n defines one of cols,
// directly or through the columns its definition reads, by an expression
// that may raise (see CannotRaise): a rewrite that stops reading cols
// (drops them from GROUP BY or DISTINCT) may drop that error.
func DefsMayRaise(n *Node, cols []ColumnID) bool {
	defs := map[ColumnID]*Expr{}
	n.WalkNodes(func(x *Node) {
		if x.Op == OpProject {
			for _, it := range x.Proj {
				if it.Expr.Kind != ColRef || it.Expr.Col != it.ID {
					defs[it.ID] = it.Expr
				}
			}
		}
	})
	seen := map[ColumnID]bool{}
	var raises func(c ColumnID) bool
	raises = func(c ColumnID) bool {
		if seen[c] {
			return false
		}
		seen[c] = true
		e := defs[c]
		if e == nil {
			return false
		}
		if !CannotRaise(e) {
			return true
		}
		for _, d := range e.Cols().Ordered() {
			if raises(d) {
				return true
			}
		}
		return false
	}
	for _, c := range cols {
		if raises(c) {
			return true
		}
	}
	return false
}

// textFuncs are functions of text that PostgreSQL evaluates without an
// error on any text (case mapping, trimming, lengths).
var textFuncs = map[string]bool{
	"lower": true, "upper": true, "btrim": true, "ltrim": true, "rtrim": true,
	"length": true, "char_length": true, "character_length": true, "octet_length": true,
}

// funcCannotRaise is CannotRaise for a call, its arguments aside: a
// text function of text
// arguments, or substr(text, from [, count]) with a constant count that
// is not negative (a negative count raises "negative substring length
// not allowed"; any from is allowed). TPC-DS groups by substr(i_item_desc,
// 1, 30).
func funcCannotRaise(e *Expr) bool {
	switch {
	case textFuncs[e.Name]:
		for _, a := range e.Args {
			if a.Typ != catalog.Text {
				return false
			}
		}
	case e.Name == "substr" && (len(e.Args) == 2 || len(e.Args) == 3):
		if e.Args[0].Typ != catalog.Text || e.Args[1].Typ != catalog.Int {
			return false
		}
		if len(e.Args) == 3 {
			n := e.Args[2]
			if n.Kind != Const || n.Null || n.Typ != catalog.Int || strings.HasPrefix(n.Value, "-") {
				return false
			}
		}
	default:
		return false
	}
	return true
}
