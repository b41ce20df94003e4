package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// cannotRaise says whether evaluating e raises no error on any row: a
// rule that stops evaluating an expression the query evaluates (drops a
// grouping key, a DISTINCT column or a conjunct) keeps PostgreSQL's
// answer only then. In PostgreSQL i + 1 raises "integer out of range"
// on the largest integer and 10 / i "division by zero" on 0, so GROUP BY
// i, i + 1 fails where GROUP BY i answers. The allowed forms are few on
// purpose: columns, constants, text concatenation, same-typed
// comparisons, boolean connectives and NULL tests; no arithmetic, cast
// or function call.
func cannotRaise(e *plan.Expr) bool {
	if e == nil {
		return true
	}
	switch e.Kind {
	case plan.ColRef, plan.Const:
		return true
	case plan.Op:
	default:
		return false
	}
	switch {
	case e.Name == plan.OpAnd || e.Name == plan.OpOr || e.Name == plan.OpNot ||
		e.Name == plan.OpIsNull || e.Name == plan.OpIsNotNull ||
		e.Name == plan.OpIsTrue || e.Name == plan.OpIsNotTrue || e.Name == plan.OpIsFalse || e.Name == plan.OpIsNotFalse:
	case e.Name == plan.OpConcat:
		// text || text: no value is out of range (the 1 GB limit aside).
		if e.Typ != catalog.Text {
			return false
		}
		for _, a := range e.Args {
			if a.Typ != catalog.Text {
				return false
			}
		}
	case comparisons[e.Name] || e.Name == plan.OpIsDistinct || e.Name == plan.OpNotDistinc:
		// Operands of one type: no implicit cast that may fail.
		if len(e.Args) != 2 || e.Args[0].Typ != e.Args[1].Typ {
			return false
		}
	default:
		return false
	}
	for _, a := range e.Args {
		if !cannotRaise(a) {
			return false
		}
	}
	return true
}
