package plan

import "github.com/pgequiv/pgequiv/planner/catalog"

// Query semantics that no rewrite may change (issue 18, causes 13 and 15):
// calls whose value differs between evaluations, and consumers whose
// result depends on the order of their input rows.

// VolatileFuncs are the functions, of those a plan may call, whose value
// can differ between two calls in one statement: PostgreSQL's
// pg_proc.provolatile = 'v' (checked by the planner's
// TestVolatileFuncsMatchPostgres) and SQLite's non-deterministic
// functions. now(), current_timestamp and statement_timestamp() are
// stable, not volatile: one value throughout a statement, so they are not
// listed. A plan that calls one of these has no single result to compare:
// it is neither merged, duplicated nor moved by a rewrite, and the judge
// proves nothing about it (equivalence.volatileCall).
var VolatileFuncs = map[string]bool{
	// PostgreSQL
	"random": true, "random_normal": true, "setseed": true, "gen_random_uuid": true, "uuid_generate_v1": true,
	"uuid_generate_v1mc": true, "uuid_generate_v4": true, "clock_timestamp": true, "timeofday": true,
	"nextval": true, "setval": true, "currval": true, "lastval": true, "set_config": true,
	"pg_advisory_lock": true, "pg_try_advisory_lock": true, "pg_advisory_unlock": true, "pg_sleep": true,
	"pg_notify": true, "dblink": true,
	// SQLite
	"randomblob": true, "changes": true, "total_changes": true, "last_insert_rowid": true,
}

// SideEffectFuncs are the volatile functions that change state beyond
// the query's result: a sequence, a setting, a lock, a notification. A
// query calling one is refused, like a data-modifying statement.
var SideEffectFuncs = map[string]bool{
	"nextval": true, "setval": true, "set_config": true, "pg_advisory_lock": true, "pg_try_advisory_lock": true,
	"pg_advisory_unlock": true, "pg_notify": true, "dblink": true,
	"setseed": true,
}

// Volatile returns the name of a volatile function e calls, in e or in
// the plans of its subqueries, or "" when it calls none.
func Volatile(e *Expr) string {
	name := ""
	WalkDeep(e, func(x *Expr) {
		if name == "" && x.Kind == Func && VolatileFuncs[x.Name] {
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
