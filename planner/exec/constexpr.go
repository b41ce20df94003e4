package exec

import (
	"context"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// EvalConst evaluates an expression that reads no column, subquery,
// aggregate or window (date '1996-01-01' + interval '1 year'), with
// PostgreSQL's semantics. The instance generator uses it to place values
// around the constants a query compares columns with; anything else is
// ErrCannotExecute.
func EvalConst(e *plan.Expr) (Value, error) {
	if e == nil {
		return Null, cannot("no expression")
	}
	constant := true
	plan.Walk(e, func(x *plan.Expr) {
		switch x.Kind {
		case plan.Const, plan.Op, plan.Func, plan.Cast, plan.Case:
		default:
			constant = false
		}
	})
	if !constant {
		return Null, cannot("expression reads data")
	}
	x := &executor{ctx: context.Background()}
	return x.eval(e, nil)
}
