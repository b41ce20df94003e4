package exec

import "github.com/pgequiv/pgequiv/planner/plan"

// bitOp evaluates PostgreSQL's integer bit operators i & j, i | j, i # j
// and ~i, exact on every integer width: a result never leaves its
// operands' width. Anything but integers (bit strings, inet) is refused;
// the planner plans them on integers only. ok is false when ex is none of
// them (a two-operand ~ is a regular expression match, not modelled).
func (x *executor) bitOp(ex *plan.Expr, e *env) (v Value, ok bool, err error) {
	switch {
	case ex.Name == plan.OpBitNot && len(ex.Args) == 1:
		a, err := x.eval(ex.Args[0], e)
		if err != nil || a.IsNull() {
			return a, true, err
		}
		if a.K != KInt {
			return Null, true, cannot("~ on %s", kindName(a.K))
		}
		return Int(^a.I), true, nil
	case (ex.Name == plan.OpBitAnd || ex.Name == plan.OpBitOr || ex.Name == plan.OpBitXor) && len(ex.Args) == 2:
		a, b, err := x.operands(ex.Args[0], ex.Args[1], e)
		if err != nil {
			return Null, true, err
		}
		if a.IsNull() || b.IsNull() {
			return Null, true, nil
		}
		if a.K != KInt || b.K != KInt || x.lite {
			return Null, true, cannot("%s on %s and %s", ex.Name, kindName(a.K), kindName(b.K))
		}
		switch ex.Name {
		case plan.OpBitAnd:
			return Int(a.I & b.I), true, nil
		case plan.OpBitOr:
			return Int(a.I | b.I), true, nil
		}
		return Int(a.I ^ b.I), true, nil
	}
	return Null, false, nil
}
