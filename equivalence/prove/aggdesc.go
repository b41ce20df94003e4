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
	// scales: a bag with each row repeated n times gives n times the
	// value (COUNT, SUM).
	scales bool
	// combine is the aggregate that combines partial results computed
	// over the parts of a bag into the result over the whole bag ("":
	// none; AVG of AVGs, say, is not the AVG).
	combine string
	// empty is the value over no row: "NULL" or "0".
	empty string
	// result is PostgreSQL's exact result type for an argument of exact
	// type arg (pgExactType's names; "" for COUNT(*)), "" when unknown.
	result func(arg string) string
}

var aggDescs = map[string]aggDesc{
	"count":      {skipsNull: true, countsRows: true, scales: true, combine: "sum", empty: "0", result: countResult},
	"regr_count": {skipsNull: true, countsRows: true, empty: "0"},
	"sum":        {skipsNull: true, scales: true, combine: "sum", empty: "NULL", result: sumResult},
	"avg":        {skipsNull: true, empty: "NULL"},
	"min":        {skipsNull: true, dupInsensitive: true, combine: "min", empty: "NULL", result: sameResult},
	"max":        {skipsNull: true, dupInsensitive: true, combine: "max", empty: "NULL", result: sameResult},
	"bool_and":   {skipsNull: true, dupInsensitive: true, combine: "bool_and", empty: "NULL", result: boolResult},
	"bool_or":    {skipsNull: true, dupInsensitive: true, combine: "bool_or", empty: "NULL", result: boolResult},
	"every":      {skipsNull: true, dupInsensitive: true, combine: "every", empty: "NULL", result: boolResult},
	"bit_and":    {skipsNull: true, dupInsensitive: true},
	"bit_or":     {skipsNull: true, dupInsensitive: true},
}

// countResult: COUNT is bigint.
func countResult(string) string { return "int8" }

// sumResult: SUM of smallint or integer is bigint, of bigint or numeric
// numeric; of anything else (float, whose sums depend on the order of
// the additions, or interval) unknown here.
func sumResult(arg string) string {
	switch arg {
	case "int2", "int4":
		return "int8"
	case "int8", "numeric":
		return "numeric"
	}
	return ""
}

// boolResult: BOOL_AND, BOOL_OR and EVERY of a boolean are boolean (an
// AND or OR of the partial ANDs or ORs is the whole one).
func boolResult(arg string) string {
	if arg == "boolean" || arg == "bool" {
		return "boolean"
	}
	return ""
}

// sameResult: MIN and MAX are of their argument's type.
func sameResult(arg string) string { return arg }

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
			if !plan.CannotRaise(a) {
				// COUNT(i + 1) fails on the largest i; COUNT(*) does not.
				return nil, nil
			}
		}
	}
	star := *e
	star.Name, star.Args, star.Star = "count", nil, true
	if computed || e.Name != "count" {
		return &star, ruleCountExprNotNull
	}
	return &star, ruleCountNotNull
}
