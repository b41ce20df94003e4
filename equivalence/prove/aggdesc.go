package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "aggregate descriptors": what the rules on aggregate calls need
// to know of each aggregate function, stated once.
//
//	COUNT(e1)          ⇒ COUNT(*)   when e1 is never NULL
//	REGR_COUNT(e1, e2) ⇒ COUNT(*)   when e1 and e2 are never NULL
//
// An expression is never NULL when it is a non-NULL constant, or a strict
// operator (arithmetic, concatenation, a cast) over expressions that are
// never NULL, down to columns declared NOT NULL and not null-extended by an
// outer join. Arithmetic may overflow, where PostgreSQL raises an error and
// COUNT(*) would not: like the fragment "arithmetic", this assumes no
// intermediate overflow.

// aggDesc describes one aggregate function.
type aggDesc struct {
	// skipsNull: a row where an argument is NULL adds nothing.
	skipsNull bool
	// countsRows: the value is the number of rows where no argument is
	// NULL (COUNT, REGR_COUNT), 0 over no row.
	countsRows bool
	// dupInsensitive: duplicate input rows change nothing.
	dupInsensitive bool
}

var aggDescs = map[string]aggDesc{
	"count":      {skipsNull: true, countsRows: true},
	"regr_count": {skipsNull: true, countsRows: true},
	"sum":        {skipsNull: true},
	"avg":        {skipsNull: true},
	"min":        {skipsNull: true, dupInsensitive: true},
	"max":        {skipsNull: true, dupInsensitive: true},
	"bool_and":   {skipsNull: true, dupInsensitive: true},
	"bool_or":    {skipsNull: true, dupInsensitive: true},
	"every":      {skipsNull: true, dupInsensitive: true},
	"bit_and":    {skipsNull: true, dupInsensitive: true},
	"bit_or":     {skipsNull: true, dupInsensitive: true},
}

// describeAgg returns the descriptor of call e (an aggregate call).
func describeAgg(e *plan.Expr) (aggDesc, bool) {
	if e.Kind != plan.Agg {
		return aggDesc{}, false
	}
	d, ok := aggDescs[e.Name]
	return d, ok
}

// neverNullOps are the operators that are NULL only when an argument is
// (errors aside): a call of one over never-NULL arguments is never NULL.
var neverNullOps = map[string]bool{plan.OpAdd: true, plan.OpSub: true, plan.OpMul: true, plan.OpNeg: true, plan.OpConcat: true}

// neverNull says whether e, read through col (nil: e is a's), is never
// NULL: a non-NULL constant, or a strict operator over never-NULL
// arguments down to columns p.nullable says are not. arith is set when
// the answer rests on arithmetic not overflowing.
func (p *prover) neverNull(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool)) (ok, arith bool) {
	switch {
	case e.Kind == plan.Const:
		return !e.Null, false
	case e.Kind == plan.ColRef:
		c, found := e.Col, true
		if col != nil {
			c, found = col(e.Col)
		}
		return found && !p.nullable(c), false
	case e.Kind == plan.Op && neverNullOps[e.Name] && len(e.Args) > 0:
		for _, a := range e.Args {
			ok, _ := p.neverNull(a, col)
			if !ok {
				return false, false
			}
		}
		return true, e.Name != plan.OpConcat
	}
	return false, false
}

// countStar reads call e as COUNT(*) when it counts rows and no argument
// is ever NULL (and it has no DISTINCT: COUNT(DISTINCT e) counts values).
// The rule it took is returned: count-not-null for plain columns and
// constants, count-expr-not-null where an argument is computed.
func (p *prover) countStar(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool)) (*plan.Expr, *Rule) {
	d, ok := describeAgg(e)
	if !ok || !d.countsRows || e.Distinct || e.Star || len(e.Args) == 0 {
		return nil, nil
	}
	if e.Name == "count" && len(e.Args) != 1 || e.Name == "regr_count" && len(e.Args) != 2 {
		return nil, nil
	}
	computed := false
	for _, a := range e.Args {
		ok, _ := p.neverNull(a, col)
		if !ok {
			return nil, nil
		}
		if a.Kind != plan.Const && a.Kind != plan.ColRef {
			computed = true
		}
	}
	star := *e
	star.Name, star.Args, star.Star = "count", nil, true
	if computed || e.Name != "count" {
		return &star, ruleCountExprNotNull
	}
	return &star, ruleCountNotNull
}
