package build

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Arrays, in the postgres dialect. An array is none of the planner's
// type families (an array column is of type Unknown, its TypeSQL the
// element's name followed by []); the planner reads two forms of one:
//
//	a[i]                      one element (a an array column, a constructor
//	                          or array_agg(x)): plan.OpSubscript(a, i), of the
//	                          element's family; NULL when a or i is NULL or
//	                          i is out of range (strict)
//	CAST(ARRAY[e, ...] AS t[]) a constructor: Func "array:<t>" (t the
//	                          element's exact type), of type Unknown
//
// Neither is executed; a rule sees them as opaque values, equal only to
// themselves.

// arrayConstructorPrefix names the Func of CAST(ARRAY[...] AS t[]).
const arrayConstructorPrefix = "array:"

// indirection plans a[i] on an array column of a table; slices, field
// selections and stars are not planned.
func (b *builder) indirection(ind *pg.A_Indirection, sc *scope, st *aggState) (*plan.Expr, error) {
	if b.schema.Dialect != catalog.Postgres || len(ind.Indirection) != 1 {
		return nil, b.unsupported(-1, "this indirection (a field, a slice or several subscripts)")
	}
	idx := ind.Indirection[0].GetAIndices()
	if idx == nil || idx.IsSlice || idx.Lidx != nil || idx.Uidx == nil {
		return nil, b.unsupported(-1, "this indirection (a field, a slice or several subscripts)")
	}
	arr, err := b.expr(ind.Arg, sc, st)
	if err != nil {
		return nil, err
	}
	i, err := b.expr(idx.Uidx, sc, st)
	if err != nil {
		return nil, err
	}
	typeParam(i, catalog.Int)
	if isArrayAgg(arr) && arr.Args[0].Typ != catalog.Unknown && i.Typ == catalog.Int {
		// Its element is x, of x's family, exact type known or not.
		return plan.NewOp(plan.OpSubscript, arr.Args[0].Typ, arr, i), nil
	}
	elem := b.arrayElem(arr)
	if elem == "" || i.Typ != catalog.Int {
		return nil, b.unsupported(-1, "a subscript of anything but an array column by an integer")
	}
	return plan.NewOp(plan.OpSubscript, catalog.TypeFromName(elem), arr, i), nil
}

// arrayCast plans CAST(ARRAY[e, ...] AS t[]) when every element is a
// literal of t's family (or NULL) or a value of exact type t.
func (b *builder) arrayCast(tc *pg.TypeCast, ae *pg.A_ArrayExpr, sc *scope, st *aggState) (*plan.Expr, error) {
	name := typeNameOf(tc.TypeName)
	elem := CanonicalType(name, false)
	if b.schema.Dialect != catalog.Postgres || elem == "" || len(tc.TypeName.Typmods) > 0 || len(tc.TypeName.ArrayBounds) != 1 {
		return nil, b.unsupported(tc.Location, "a cast to an array type")
	}
	t := catalog.TypeFromName(elem)
	args, err := b.exprs(ae.Elements, sc, st)
	if err != nil {
		return nil, err
	}
	for k, a := range args {
		switch {
		case a.Kind == plan.Const && a.Null:
			args[k] = plan.NewNull(t)
		case b.exactType(a) == elem:
		case a.Kind == plan.Const && t == catalog.Int && a.Typ == catalog.Int && inRangeText(elem, a.Value):
			args[k] = plan.NewConst(t, a.Value)
		default:
			return nil, b.unsupported(tc.Location, "an array element that is not a literal of its type")
		}
	}
	return &plan.Expr{Kind: plan.Func, Name: arrayConstructorPrefix + elem, Typ: catalog.Unknown, Args: args, Pos: tc.Location}, nil
}

// inRangeText says whether the integer literal s fits the integer type t.
func inRangeText(t, s string) bool {
	if t != "int2" && t != "int4" && t != "int8" {
		return false
	}
	var i int64
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 18 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
		i = i*10 + int64(c-'0')
	}
	if neg {
		i = -i
	}
	return inRange(t, i)
}

// arrayElem is the element type (CanonicalType) of an array e is: a
// table's array column, an array constructor, or array_agg(x) of an x of
// known exact type; "" for anything else.
func (b *builder) arrayElem(e *plan.Expr) string {
	if e.Kind == plan.Func && strings.HasPrefix(e.Name, arrayConstructorPrefix) {
		return strings.TrimPrefix(e.Name, arrayConstructorPrefix)
	}
	if isArrayAgg(e) {
		return b.exactType(e.Args[0])
	}
	if e.Kind != plan.ColRef || e.Typ != catalog.Unknown {
		return ""
	}
	t := strings.TrimSpace(strings.ToLower(b.declaredType(e)))
	if !strings.HasSuffix(t, "[]") || strings.Count(t, "[") != 1 {
		return ""
	}
	return CanonicalType(strings.TrimSuffix(t, "[]"), true)
}

// isArrayAgg says whether e is array_agg(x): (array_agg(x))[i] is the
// i-th x in the order the group's rows arrive (NULL past the end and over
// no rows), an order-sensitive aggregate (plan.orderSensitiveAggs) under
// an opaque subscript, which nothing executes.
func isArrayAgg(e *plan.Expr) bool {
	return e.Kind == plan.Agg && e.Name == "array_agg" && len(e.Args) == 1 && !e.Star
}
