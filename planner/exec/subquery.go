package exec

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// subquery evaluates a subquery expression against the current row, which
// its correlated references see through the environment chain.
func (x *executor) subquery(ex *plan.Expr, e *env) (Value, error) {
	x.subDepth++
	r, err := x.node(ex.Sub, e)
	x.subDepth--
	if err != nil {
		return Null, err
	}
	switch ex.SubKind {
	case plan.SubExists:
		return Bool(len(r.rows) > 0), nil
	case plan.SubScalar:
		switch len(r.rows) {
		case 0:
			return Null, nil
		case 1:
			if len(r.rows[0]) != 1 {
				return Null, cannot("scalar subquery of %d columns", len(r.rows[0]))
			}
			return r.rows[0][0], nil
		}
		if x.lite && len(r.rows[0]) == 1 {
			// SQLite takes the first row; which one that is is only
			// determined when the subquery orders it before the rest.
			if r.ties != nil && r.ties[0] != r.ties[1] {
				return r.rows[0][0], nil
			}
			k := len(r.rows) // the rows that may come first
			if r.ties != nil {
				for k = 1; k < len(r.rows) && r.ties[k] == r.ties[0]; k++ {
				}
			}
			if !x.enumerable(ex.Sub) {
				x.nondet = true
				return r.rows[0][0], nil
			}
			return r.rows[x.pickRow(ex.Sub, k)][0], nil
		}
		return Null, queryErr("more than one row returned by a subquery used as an expression")
	case plan.SubAny, plan.SubAll:
		return x.quantified(ex, r, e)
	}
	return Null, cannot("%s subquery", ex.SubKind)
}

// quantified evaluates a op ANY/ALL (subquery): ANY is TRUE if some row
// compares TRUE, else NULL if some comparison was NULL, else FALSE; ALL is
// the dual. Row comparisons support = and <> only.
func (x *executor) quantified(ex *plan.Expr, r *rel, e *env) (Value, error) {
	left := make([]Value, len(ex.Args))
	for i, a := range ex.Args {
		v, err := x.eval(a, e)
		if err != nil {
			return Null, err
		}
		left[i] = v
	}
	if len(left) > 1 && ex.SubOp != plan.OpEq && ex.SubOp != plan.OpNe {
		return Null, cannot("row comparison %s with a subquery", ex.SubOp)
	}
	any := ex.SubKind == plan.SubAny
	sawNull := false
	for _, row := range r.rows {
		if len(row) != len(left) {
			return Null, cannot("subquery row of %d columns for %d", len(row), len(left))
		}
		// A row comparison ANDs (for =) or ORs (for <>) its columns in
		// three-valued logic.
		isEq := ex.SubOp == plan.OpEq || len(left) == 1
		res, null := isEq, false
		for i := range left {
			l, rv := left[i], row[i]
			if x.lite {
				var ra affinity
				if cols := ex.Sub.OutCols(); i < len(cols) {
					ra = x.colAffinity(cols[i])
				}
				l, rv = x.liteCmp(x.exprAffinity(ex.Args[i]), ra, l, rv)
			}
			c, err := x.cmpOp(ex.SubOp, l, rv)
			if err != nil {
				return Null, err
			}
			switch {
			case c.IsNull():
				null = true
			case len(left) == 1:
				res = c.B
			case c.B != isEq:
				res = c.B
			}
		}
		decided := res != isEq && len(left) > 1 // a FALSE in an AND, a TRUE in an OR
		if null && !decided {
			sawNull = true
			continue
		}
		if res == any {
			return Bool(any), nil
		}
	}
	if sawNull {
		return Null, nil
	}
	return Bool(!any), nil
}
