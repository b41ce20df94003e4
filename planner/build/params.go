package build

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Parameters ($1, $2, ...) are free variables: a query with parameters
// means one result per assignment of values, and nothing may read a
// parameter as a known constant. Their types are inferred from context as
// PostgreSQL infers them at Prepare:
//
//	$1 compared with, or an operand of arithmetic beside, a typed
//	expression (age > $1, $1 IN (a, b), a BETWEEN $1 AND $2)   its type
//	$1::t, CAST($1 AS t)                                        t
//	$1 LIKE ..., ... || $1                                      text
//	LIMIT $1, OFFSET $1                                         int
//	anything else (SELECT $1)                                   text
//
// One parameter has one type in a query: the first occurrence whose type
// is known gives it to every other (inferParamTypes).

// typeParams gives every parameter of unknown type among ps the type of
// typed, when that type is known.
func typeParams(typed *plan.Expr, ps ...*plan.Expr) {
	if typed == nil || typed.Typ == catalog.Unknown || typed.Typ == catalog.Null {
		return
	}
	for _, p := range ps {
		typeParam(p, typed.Typ)
	}
}

// typeParam gives p type t when p is a parameter of unknown type.
func typeParam(p *plan.Expr, t catalog.Type) {
	if p != nil && p.Kind == plan.Param && p.Typ == catalog.Unknown && t != catalog.Unknown && t != catalog.Null {
		p.Typ = t
	}
}

// typeParamsAmong types the parameters among es from the first of them
// of a known type (IN lists, BETWEEN bounds, COALESCE arguments).
func typeParamsAmong(es ...*plan.Expr) {
	for _, e := range es {
		if e != nil && e.Kind != plan.Param && e.Typ != catalog.Unknown && e.Typ != catalog.Null {
			typeParams(e, es...)
			return
		}
	}
}

// ParamNumber returns n for a parameter expression $n.
func ParamNumber(e *plan.Expr) (int, bool) {
	if e == nil || e.Kind != plan.Param {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(e.Value, "$"))
	return n, err == nil
}

// inferParamTypes gives every occurrence of a parameter one type: the
// first known one in the plan (PostgreSQL deduces a parameter's type
// from its first typed use), or text where no use gives one, as an
// unknown-typed literal resolves.
func inferParamTypes(p *plan.Plan) {
	if p == nil || p.Root == nil {
		return
	}
	var occ []*plan.Expr
	types := map[string]catalog.Type{}
	visit := func(e *plan.Expr) {
		if e.Kind != plan.Param {
			return
		}
		occ = append(occ, e)
		if _, ok := types[e.Value]; !ok && e.Typ != catalog.Unknown && e.Typ != catalog.Null {
			types[e.Value] = e.Typ
		}
	}
	p.Root.WalkNodes(func(n *plan.Node) { n.Exprs(func(s **plan.Expr) { plan.WalkDeep(*s, visit) }) })
	for _, e := range occ {
		t, ok := types[e.Value]
		if !ok {
			t = catalog.Text
		}
		e.Typ = t
	}
}
