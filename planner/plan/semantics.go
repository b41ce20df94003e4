package plan

import (
	"github.com/pgequiv/pgequiv/planner/catalog"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// Query semantics that no rewrite may change (issue 18, causes 13 and 15):
// calls whose value differs between evaluations (sqltext.VolatileFuncs),
// and consumers whose result depends on the order of their input rows.

// Volatile returns the name of a volatile function e calls, in e or in
// the plans of its subqueries, or "" when it calls none.
func Volatile(e *Expr) string {
	name := ""
	WalkDeep(e, func(x *Expr) {
		if name == "" && x.Kind == Func && sqltext.VolatileFuncs[x.Name] {
			name = x.Name
		}
	})
	return name
}

// NodeVolatile returns the name of a volatile function the plan below n
// calls (subqueries included), or "".
func NodeVolatile(n *Node) string {
	name := ""
	n.WalkExprs(func(x *Expr) {
		if name == "" {
			name = Volatile(x)
		}
	})
	return name
}

// orderSensitiveAggs are aggregates whose result depends on the order in
// which they read their rows, when no ORDER BY of their own fixes it:
// they concatenate, or pick one row.
var orderSensitiveAggs = map[string]bool{
	"string_agg": true, "group_concat": true, "array_agg": true, "json_agg": true, "jsonb_agg": true,
	"json_object_agg": true, "jsonb_object_agg": true, "xmlagg": true, "any_value": true,
}

// floatOrderAggs are aggregates that add their arguments: over floating
// point, addition is not associative, so the order of the rows can change
// the last bits of the result.
var floatOrderAggs = map[string]bool{
	"sum": true, "avg": true, "total": true, "stddev": true, "stddev_pop": true, "stddev_samp": true,
	"variance": true, "var_pop": true, "var_samp": true, "corr": true, "covar_pop": true, "covar_samp": true,
	"regr_avgx": true, "regr_avgy": true, "regr_intercept": true, "regr_r2": true, "regr_slope": true,
	"regr_sxx": true, "regr_sxy": true, "regr_syy": true,
}

// orderSensitiveWins are window functions that number rows or read a
// neighbour: without an ORDER BY in the window, their value depends on
// the order in which the rows arrive.
var orderSensitiveWins = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "ntile": true, "percent_rank": true, "cume_dist": true,
	"lag": true, "lead": true, "first_value": true, "last_value": true, "nth_value": true,
}

// OrderSensitiveAgg reports whether the aggregate call (or aggregate used
// as a window function without a window ORDER BY) reads its rows' order.
func OrderSensitiveAgg(e *Expr) bool {
	if orderSensitiveAggs[e.Name] {
		return true
	}
	if floatOrderAggs[e.Name] {
		if e.Name == "total" {
			return true // always floating point
		}
		for _, a := range e.Args {
			if a.Typ == catalog.Float {
				return true
			}
		}
	}
	return false
}

// OrderSensitiveWindow reports whether the window call's value depends on
// the order of its input rows: it has no ORDER BY in its window and
// numbers rows, reads a neighbour, or aggregates order-sensitively. (With
// an ORDER BY, peers of equal keys are still read in input order; such a
// call is judged as its keys order it, as before.)
func OrderSensitiveWindow(e *Expr) bool {
	if e.Kind != WinFunc || len(e.Order) > 0 {
		return false
	}
	return orderSensitiveWins[e.Name] || OrderSensitiveAgg(e)
}

// ReadsInputOrder reports whether node n's result depends on the order
// of its input rows: an aggregate or window with an order-sensitive call.
func ReadsInputOrder(n *Node) bool {
	switch n.Op {
	case OpAggregate:
		for _, it := range n.Aggs {
			found := false
			Walk(it.Expr, func(x *Expr) {
				if x.Kind == Agg && OrderSensitiveAgg(x) {
					found = true
				}
			})
			if found {
				return true
			}
		}
	case OpWindow:
		for _, it := range n.Proj {
			found := false
			Walk(it.Expr, func(x *Expr) {
				if OrderSensitiveWindow(x) {
					found = true
				}
			})
			if found {
				return true
			}
		}
	}
	return false
}
