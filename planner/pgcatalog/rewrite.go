package pgcatalog

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Clients' catalog queries use arrays and set-returning functions, which
// the planner does not model for judged queries. Rather than teach the
// planner (and risk a judged query reaching them), a catalog query's
// syntax tree is rewritten into constructs the planner has, over arrays
// held in their text form ({1,2}, or "1 2" for int2vector/oidvector):
//
//	x op ANY(ARRAY[a, b])      ⇒ x IN (a, b)          (= ANY; <> ALL: NOT IN)
//	x op ANY(arr)              ⇒ pgcat_any(x, 'op', arr)   (= and <> only)
//	arr[i]                     ⇒ pgcat_subscript(arr, i)
//	ARRAY(SELECT v ... ORDER BY 1) ⇒ pgcat_array_sorted((SELECT string_agg(pgcat_keyed(v, v), ...) FROM (...) _a(v)), ...)
//	array_agg(v ORDER BY k)    ⇒ pgcat_array_sorted(string_agg(pgcat_keyed(k, v), ...), ...)
//	'name'::regtype            ⇒ pgcat_regtype_in('name'), and x::regtype compared with it ⇒ x
//	arr1 || arr2               ⇒ pgcat_array_cat(arr1, arr2)
//	x::int2[]                  ⇒ x
//	SELECT f(arr) ... (an SRF) ⇒ SELECT ... FROM ..., pgequiv_series _srf WHERE _srf.n BETWEEN 1 AND len
//	FROM f(args) [WITH ORDINALITY] a(c) ⇒ FROM LATERAL (SELECT value, n FROM pgequiv_series ...) a(c)
//
// where the set-returning functions are unnest, generate_subscripts(arr,
// 1), generate_series(a, b) and pg_partition_ancestors, each seen as a
// length and the value at position n (1-based); several SRFs in one
// target list zip as in PostgreSQL 10+ (the longest sets the row count,
// the others pad with NULL). pgequiv_series holds 1..seriesMax, enough for
// any array of the catalog (a row has at most 1600 columns, and the
// schema's widest table sizes it); a longer series is an error, not a
// truncated answer.

// intArrayCols are the catalog's array columns of integers (attnums,
// OIDs): their elements read as integers, others as text.
var intArrayCols = map[string]bool{"conkey": true, "confkey": true, "indkey": true, "indclass": true, "indcollation": true,
	"indoption": true, "prattrs": true, "polroles": true, "proargtypes": true, "proallargtypes": true, "stxkeys": true,
	"tgattr": true, "conpfeqop": true, "conppeqop": true, "conffeqop": true, "conexclop": true, "confdelsetcols": true}

// rewriter rewrites one statement; err is sticky.
type rewriter struct {
	err  error
	srfs int // SRF sources added, for unique aliases
	// composites and intAliases are output names of subqueries' targets
	// (expand.go): _pg_expandarray's (x, n) rows, and integer arrays.
	composites, intAliases map[string]bool
}

// rewrite returns sql with the constructs above replaced, or sql itself
// when it has none.
func rewrite(sql string, params []*string) (string, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return "", fmt.Errorf("pgcatalog: %w", err)
	}
	r := &rewriter{}
	if params != nil {
		r.bind(tree, params)
	}
	r.scanAliases(tree)
	r.walk(tree.ProtoReflect())
	if r.err != nil {
		return "", r.err
	}
	joinCommaLists(tree)
	out, err := pg.Deparse(tree)
	if err != nil {
		return "", fmt.Errorf("pgcatalog: deparse: %w", err)
	}
	return out, nil
}

// bind replaces $n by the n-th parameter as a quoted literal (text form,
// as a server reads an untyped text parameter), NULL for nil.
func (r *rewriter) bind(tree *pg.ParseResult, params []*string) {
	each(tree.ProtoReflect(), func(n *pg.Node) {
		p := n.GetParamRef()
		if p == nil {
			return
		}
		k := int(p.Number) - 1
		if k < 0 || k >= len(params) {
			r.fail("there is no parameter $%d", p.Number)
			return
		}
		if params[k] == nil {
			replace(n, &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true}}})
			return
		}
		replace(n, pg.MakeAConstStrNode(*params[k], p.Location))
	})
}

func (r *rewriter) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("pgcatalog: "+format, args...)
	}
}

// replace overwrites n with m in place.
func replace(n, m *pg.Node) {
	m = proto.Clone(m).(*pg.Node)
	proto.Reset(n)
	proto.Merge(n, m)
}

// each calls f on every Node of m, children first.
func each(m protoreflect.Message, f func(*pg.Node)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for k := 0; k < l.Len(); k++ {
				each(l.Get(k).Message(), f)
			}
		case fd.Message() != nil && !fd.IsMap():
			each(v.Message(), f)
		}
		return true
	})
	if n, ok := m.Interface().(*pg.Node); ok {
		f(n)
	}
}

// eachSelect calls f on every SELECT of m (set operations' arms are
// SelectStmts, not Nodes), children first.
func eachSelect(m protoreflect.Message, f func(*pg.SelectStmt)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for k := 0; k < l.Len(); k++ {
				eachSelect(l.Get(k).Message(), f)
			}
		case fd.Message() != nil && !fd.IsMap():
			eachSelect(v.Message(), f)
		}
		return true
	})
	if s, ok := m.Interface().(*pg.SelectStmt); ok {
		f(s)
	}
}

// walk rewrites every node, children first.
func (r *rewriter) walk(m protoreflect.Message) {
	each(m, func(n *pg.Node) {
		if r.err != nil {
			return
		}
		switch v := n.Node.(type) {
		case *pg.Node_AExpr:
			r.aExpr(n, v.AExpr)
		case *pg.Node_AIndirection:
			r.indirection(n, v.AIndirection)
		case *pg.Node_SubLink:
			if v.SubLink.SubLinkType == pg.SubLinkType_ARRAY_SUBLINK {
				r.arraySublink(n, v.SubLink)
			}
		case *pg.Node_FuncCall:
			if funcName(v.FuncCall) == "array_agg" {
				r.arrayAgg(n, v.FuncCall)
			}
			if funcName(v.FuncCall) == "btrim" {
				v.FuncCall.Funcname = []*pg.Node{pg.MakeStrNode("pgcat_btrim")}
			}
		case *pg.Node_TypeCast:
			r.typeCast(n, v.TypeCast)
		}
	})
	// Set-returning functions last: their arguments are rewritten.
	eachSelect(m, func(sel *pg.SelectStmt) {
		if r.err == nil {
			r.targetSRFs(sel)
			r.fromSRFs(sel)
		}
	})
}

func funcName(fc *pg.FuncCall) string {
	return strings.ToLower(fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval())
}

func fn(name string, args ...*pg.Node) *pg.Node {
	return pg.MakeFuncCallNode([]*pg.Node{pg.MakeStrNode(name)}, args, -1)
}

func str(s string) *pg.Node { return pg.MakeAConstStrNode(s, -1) }
func num(i int64) *pg.Node  { return pg.MakeAConstIntNode(i, -1) }
func col(names ...string) *pg.Node {
	f := make([]*pg.Node, len(names))
	for k, n := range names {
		f[k] = pg.MakeStrNode(n)
	}
	return pg.MakeColumnRefNode(f, -1)
}

// isArray says whether an (already rewritten) expression is an array.
func isArray(n *pg.Node) bool {
	switch v := n.Node.(type) {
	case *pg.Node_ColumnRef:
		f := v.ColumnRef.Fields
		name := f[len(f)-1].GetString_().GetSval()
		return intArrayCols[name] || textArrayCols[name]
	case *pg.Node_FuncCall:
		switch funcName(v.FuncCall) {
		case "pgcat_array_sorted", "pgcat_array_cat", "current_schemas":
			return true
		}
	case *pg.Node_AArrayExpr:
		return true
	}
	return false
}

// textArrayCols are the catalog's arrays of text.
var textArrayCols = map[string]bool{"reloptions": true, "relacl": true, "datacl": true, "nspacl": true, "proargnames": true,
	"proargmodes": true, "attoptions": true, "stxkind": true, "spcoptions": true, "proconfig": true, "setconfig": true}

// intElems says whether an array expression's elements are integers.
func intElems(n *pg.Node) bool {
	switch v := n.Node.(type) {
	case *pg.Node_ColumnRef:
		f := v.ColumnRef.Fields
		return intArrayCols[f[len(f)-1].GetString_().GetSval()]
	case *pg.Node_FuncCall:
		return funcName(v.FuncCall) == "pgcat_partition_ancestors"
	}
	return false
}

func (r *rewriter) aExpr(n *pg.Node, a *pg.A_Expr) {
	op := ""
	if len(a.Name) > 0 {
		op = a.Name[len(a.Name)-1].GetString_().GetSval()
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		// x::regtype = 'name'::regtype compares OIDs.
		if isRegtypeIn(a.Rexpr) {
			a.Lexpr = stripRegtype(a.Lexpr)
		}
		if isRegtypeIn(a.Lexpr) {
			a.Rexpr = stripRegtype(a.Rexpr)
		}
		if op == "||" && a.Lexpr != nil && (isArray(a.Lexpr) || isArray(a.Rexpr)) {
			replace(n, fn("pgcat_array_cat", a.Lexpr, a.Rexpr))
		}
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		any := a.Kind == pg.A_Expr_Kind_AEXPR_OP_ANY
		if op != "=" && op != "<>" {
			r.fail("%s ANY/ALL (array) is not modelled", op)
			return
		}
		if ae := a.Rexpr.GetAArrayExpr(); ae != nil && (any == (op == "=")) {
			kind := pg.A_Expr_Kind_AEXPR_IN
			name := "="
			if !any {
				name = "<>"
			}
			replace(n, pg.MakeAExprNode(kind, []*pg.Node{pg.MakeStrNode(name)}, a.Lexpr, pg.MakeListNode(ae.Elements), a.Location))
			return
		}
		f := "pgcat_any"
		if !any {
			f = "pgcat_all"
		}
		replace(n, fn(f, a.Lexpr, str(op), a.Rexpr))
	}
}

func (r *rewriter) indirection(n *pg.Node, ind *pg.A_Indirection) {
	if len(ind.Indirection) != 1 {
		r.fail("nested subscripts are not modelled")
		return
	}
	idx := ind.Indirection[0].GetAIndices()
	if idx == nil {
		r.fieldSelect(n, ind) // others are left to the planner
		return
	}
	if idx.IsSlice || idx.Uidx == nil {
		r.fail("array slices are not modelled")
		return
	}
	name := "pgcat_subscript"
	if !intElems(ind.Arg) && !r.intAlias(ind.Arg) {
		name = "pgcat_subscript_text"
	}
	replace(n, fn(name, ind.Arg, idx.Uidx))
}

// The planner has no ORDER BY inside an aggregate: an ordered array is
// aggregated as (key, element) pairs and sorted by pgcat_array_sorted.

// keyedAgg is string_agg(pgcat_keyed(key, pgcat_array_elem(v)), sep).
func keyedAgg(v, key *pg.Node) *pg.Node {
	if key == nil {
		key = &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true}}}
	}
	return pg.MakeFuncCallNode([]*pg.Node{pg.MakeStrNode("string_agg")},
		[]*pg.Node{fn("pgcat_keyed", key, fn("pgcat_array_elem", v)), str(keyedSep)}, -1)
}

// sortedArray wraps a keyed aggregate: pgcat_array_sorted(agg, desc,
// emptyIsArray).
func sortedArray(agg *pg.Node, desc, emptyIsArray bool) *pg.Node {
	d, e := "asc", "null"
	if desc {
		d = "desc"
	}
	if emptyIsArray {
		e = "empty"
	}
	return fn("pgcat_array_sorted", agg, str(d), str(e))
}

// orderKey reads a one-key ORDER BY: the key and whether it is DESC.
func (r *rewriter) orderKey(order []*pg.Node) (*pg.Node, bool, bool) {
	if len(order) == 0 {
		return nil, false, true
	}
	if len(order) > 1 {
		r.fail("an array ordered by several keys is not modelled")
		return nil, false, false
	}
	sb := order[0].GetSortBy()
	if sb.SortbyNulls != pg.SortByNulls_SORTBY_NULLS_DEFAULT {
		r.fail("NULLS FIRST/LAST in an array's order is not modelled")
		return nil, false, false
	}
	return sb.Node, sb.SortbyDir == pg.SortByDir_SORTBY_DESC, true
}

// arraySublink: ARRAY(SELECT v ... [ORDER BY 1]) ⇒ the text form of
// the values in that order.
func (r *rewriter) arraySublink(n *pg.Node, sl *pg.SubLink) {
	sub := sl.Subselect.GetSelectStmt()
	if sub == nil || len(sub.TargetList) != 1 {
		r.fail("ARRAY(subquery) of one column only")
		return
	}
	key, desc, ok := r.orderKey(sub.SortClause)
	if !ok {
		return
	}
	if key != nil {
		if c := key.GetAConst(); c == nil || c.GetIval().GetIval() != 1 {
			r.fail("ARRAY(subquery ORDER BY an expression) is not modelled")
			return
		}
		key = col("_a", "v")
		sub.SortClause = nil
	}
	inner := &pg.SelectStmt{
		TargetList: []*pg.Node{pg.MakeResTargetNodeWithVal(keyedAgg(col("_a", "v"), key), -1)},
		FromClause: []*pg.Node{{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
			Subquery: sl.Subselect,
			Alias:    &pg.Alias{Aliasname: "_a", Colnames: []*pg.Node{pg.MakeStrNode("v")}},
		}}}},
	}
	scalar := &pg.Node{Node: &pg.Node_SubLink{SubLink: &pg.SubLink{SubLinkType: pg.SubLinkType_EXPR_SUBLINK,
		Subselect: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: inner}}}}}
	replace(n, sortedArray(scalar, desc, true))
}

// arrayAgg: array_agg(v [ORDER BY k]) ⇒ the text form of the values.
func (r *rewriter) arrayAgg(n *pg.Node, fc *pg.FuncCall) {
	if len(fc.Args) != 1 || fc.AggDistinct || fc.AggFilter != nil || fc.Over != nil {
		r.fail("array_agg with DISTINCT, FILTER or OVER is not modelled")
		return
	}
	key, desc, ok := r.orderKey(fc.AggOrder)
	if !ok {
		return
	}
	replace(n, sortedArray(keyedAgg(fc.Args[0], key), desc, false))
}

// typeCast: casts to array types are dropped (arrays stay in text
// form); 'name'::regtype is the type's OID.
func (r *rewriter) typeCast(n *pg.Node, tc *pg.TypeCast) {
	tn := tc.TypeName
	if tn == nil {
		return
	}
	if len(tn.ArrayBounds) > 0 {
		replace(n, tc.Arg)
		return
	}
	if typeNameIs(tn, "regtype") && tc.Arg.GetAConst() != nil && tc.Arg.GetAConst().GetSval() != nil {
		replace(n, fn("pgcat_regtype_in", tc.Arg))
	}
	if typeNameIs(tn, "regproc") && tc.Arg.GetAConst() != nil && tc.Arg.GetAConst().GetSval() != nil {
		replace(n, fn("pgcat_regproc_in", tc.Arg))
	}
}

func typeNameIs(tn *pg.TypeName, name string) bool {
	return len(tn.Names) > 0 && tn.Names[len(tn.Names)-1].GetString_().GetSval() == name
}

func isRegtypeIn(n *pg.Node) bool {
	fc := n.GetFuncCall()
	return fc != nil && funcName(fc) == "pgcat_regtype_in"
}

// stripRegtype is x for x::regtype: compared with a type's OID.
func stripRegtype(n *pg.Node) *pg.Node {
	if tc := n.GetTypeCast(); tc != nil && tc.TypeName != nil && typeNameIs(tc.TypeName, "regtype") {
		return tc.Arg
	}
	return n
}
