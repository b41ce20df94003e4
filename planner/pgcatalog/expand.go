package pgcatalog

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// information_schema._pg_expandarray(arr) returns the rows (x, n): the
// elements of arr with their positions. pgjdbc's getPrimaryKeys and
// getIndexInfo select it, and its fields, in a subquery's target list:
//
//	SELECT (_pg_expandarray(i.indkey)).n AS key_seq, _pg_expandarray(i.indkey) AS keys, ...
//	... WHERE result.a_attnum = (result.keys).x
//
// The planner has no composite values, so the call stands for its x
// (the element, as unnest does), (f(arr)).x is the call, (f(arr)).n is
// pgcat_expandarray_n(arr) (the position), and a column a subquery
// names after the bare call is its x, so that (alias).x is the column.
// Both are set-returning functions rewritten like unnest (srf.go), and
// in one target list they zip as PostgreSQL 10+ does: row k has
// position k and element k.
const (
	expandArray  = "_pg_expandarray"
	expandArrayN = "pgcat_expandarray_n"
)

// scanAliases records the output names of targets that are the bare
// call (composites) or an integer array column (intAliases), before
// any rewriting.
func (r *rewriter) scanAliases(tree *pg.ParseResult) {
	r.composites, r.intAliases = map[string]bool{}, map[string]bool{}
	each(tree.ProtoReflect(), func(n *pg.Node) {
		rt := n.GetResTarget()
		if rt == nil || rt.Name == "" || rt.Val == nil {
			return
		}
		if fc := rt.Val.GetFuncCall(); fc != nil && funcName(fc) == expandArray {
			r.composites[rt.Name] = true
		}
		if intElems(rt.Val) {
			r.intAliases[rt.Name] = true
		}
	})
}

// intAlias says whether n names a subquery's column that is an integer
// array.
func (r *rewriter) intAlias(n *pg.Node) bool {
	cr := n.GetColumnRef()
	if cr == nil {
		return false
	}
	f := cr.Fields
	return r.intAliases[f[len(f)-1].GetString_().GetSval()]
}

// fieldSelect rewrites (f(arr)).x, (f(arr)).n and (alias).x; other
// field selections are left to the planner.
func (r *rewriter) fieldSelect(n *pg.Node, ind *pg.A_Indirection) {
	field := strings.ToLower(ind.Indirection[0].GetString_().GetSval())
	if fc := ind.Arg.GetFuncCall(); fc != nil && funcName(fc) == expandArray && len(fc.Args) == 1 {
		switch field {
		case "x":
			replace(n, ind.Arg)
		case "n":
			replace(n, fn(expandArrayN, fc.Args[0]))
		default:
			r.fail("_pg_expandarray has no field %s", field)
		}
		return
	}
	if cr := ind.Arg.GetColumnRef(); cr != nil {
		f := cr.Fields
		if r.composites[f[len(f)-1].GetString_().GetSval()] {
			if field != "x" {
				r.fail("the field %s of a _pg_expandarray column is not modelled", field)
				return
			}
			replace(n, ind.Arg)
		}
	}
}
