package build

import (
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// expr builds a scalar expression. st collects aggregate and window calls
// of the current query level; nil where they are not allowed.
func (b *builder) expr(n *pg.Node, sc *scope, st *aggState) (*plan.Expr, error) {
	if n == nil {
		return nil, b.errf(-1, "missing expression")
	}
	if err := b.spend(1); err != nil {
		return nil, err
	}
	switch v := n.Node.(type) {
	case *pg.Node_ColumnRef:
		return b.columnRef(v.ColumnRef, sc)
	case *pg.Node_AConst:
		if _, bits := v.AConst.Val.(*pg.A_Const_Bsval); bits && b.schema.Dialect != catalog.SQLite {
			// PostgreSQL's B'..' and X'..' are bit strings, a type the
			// catalog does not model (SQLite's X'..' is a blob).
			return nil, b.unsupported(v.AConst.Location, "bit-string literal")
		}
		return b.constant(v.AConst), nil
	case *pg.Node_TypeCast:
		return b.typeCast(v.TypeCast, sc, st)
	case *pg.Node_AExpr:
		return b.aExpr(v.AExpr, sc, st)
	case *pg.Node_BoolExpr:
		return b.boolExpr(v.BoolExpr, sc, st)
	case *pg.Node_NullTest:
		return b.nullTest(v.NullTest, sc, st)
	case *pg.Node_BooleanTest:
		return b.booleanTest(v.BooleanTest, sc, st)
	case *pg.Node_FuncCall:
		return b.funcCall(v.FuncCall, sc, st)
	case *pg.Node_CoalesceExpr:
		return b.coalesceExpr(v.CoalesceExpr, sc, st)
	case *pg.Node_MinMaxExpr:
		return b.minMaxExpr(v.MinMaxExpr, sc, st)
	case *pg.Node_CaseExpr:
		return b.caseExpr(v.CaseExpr, sc, st)
	case *pg.Node_SubLink:
		return b.subLink(v.SubLink, sc)
	case *pg.Node_RowExpr:
		args, err := b.exprs(v.RowExpr.Args, sc, st)
		if err != nil {
			return nil, err
		}
		return &plan.Expr{Kind: plan.Tuple, Args: args, Typ: catalog.Unknown, Pos: v.RowExpr.Location}, nil
	case *pg.Node_ParamRef:
		return &plan.Expr{Kind: plan.Param, Value: "$" + strconv.Itoa(int(v.ParamRef.Number)), Typ: catalog.Unknown, Pos: v.ParamRef.Location}, nil
	case *pg.Node_SqlvalueFunction:
		return sqlValueFunction(v.SqlvalueFunction), nil
	case *pg.Node_CollateClause:
		if e, ok, err := b.extCollate(v.CollateClause, sc, st); ok {
			return e, err
		}
		return nil, b.unsupported(v.CollateClause.Location, "COLLATE")
	case *pg.Node_AIndirection:
		return b.indirection(v.AIndirection, sc, st)
	case *pg.Node_GroupingFunc:
		return b.groupingFunc(v.GroupingFunc, sc, st)
	}
	return nil, b.unsupported(-1, "expression "+nodeKindName(n))
}

// boolExpr builds AND, OR and NOT.
func (b *builder) boolExpr(be *pg.BoolExpr, sc *scope, st *aggState) (*plan.Expr, error) {
	args, err := b.exprs(be.Args, sc, st)
	if err != nil {
		return nil, err
	}
	name := plan.OpAnd
	switch be.Boolop {
	case pg.BoolExprType_OR_EXPR:
		name = plan.OpOr
	case pg.BoolExprType_NOT_EXPR:
		name = plan.OpNot
	}
	e := plan.NewOp(name, catalog.Bool, args...)
	e.Pos = be.Location
	return e, nil
}

// nullTest builds x IS [NOT] NULL, over a whole row too.
func (b *builder) nullTest(nt *pg.NullTest, sc *scope, st *aggState) (*plan.Expr, error) {
	arg := b.wholeRow(nt.Arg, sc)
	if arg == nil {
		var err error
		if arg, err = b.expr(nt.Arg, sc, st); err != nil {
			return nil, err
		}
	}
	name := plan.OpIsNull
	if nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
		name = plan.OpIsNotNull
	}
	if arg.Kind == plan.Tuple && b.schema.Dialect == catalog.Postgres {
		return b.rowNullTest(arg, name, nt.Location)
	}
	return plan.NewOp(name, catalog.Bool, arg), nil
}

// booleanTests are the operators of x IS [NOT] TRUE, FALSE, UNKNOWN.
var booleanTests = map[pg.BoolTestType]string{
	pg.BoolTestType_IS_TRUE: plan.OpIsTrue, pg.BoolTestType_IS_NOT_TRUE: plan.OpIsNotTrue,
	pg.BoolTestType_IS_FALSE: plan.OpIsFalse, pg.BoolTestType_IS_NOT_FALSE: plan.OpIsNotFalse,
	pg.BoolTestType_IS_UNKNOWN: plan.OpIsNull, pg.BoolTestType_IS_NOT_UNKNOWN: plan.OpIsNotNull,
}

// booleanTest builds x IS [NOT] TRUE, FALSE or UNKNOWN.
func (b *builder) booleanTest(bt *pg.BooleanTest, sc *scope, st *aggState) (*plan.Expr, error) {
	arg, err := b.expr(bt.Arg, sc, st)
	if err != nil {
		return nil, err
	}
	if t := bt.Booltesttype; b.schema.Dialect == catalog.SQLite && t != pg.BoolTestType_IS_UNKNOWN && t != pg.BoolTestType_IS_NOT_UNKNOWN && arg.Kind != plan.Op {
		// SQLite reads x IS TRUE as "x is a non-zero number": a
		// column holding 2 is TRUE there, though 2 = TRUE is false
		// (issue 33 campaign, seed 11). The planner's IS TRUE is
		// PostgreSQL's boolean test; only a comparison's 0/1 result
		// reads alike.
		return nil, b.unsupported(bt.Location, "IS [NOT] TRUE/FALSE over a value (SQLite tests it for a non-zero number)")
	}
	return plan.NewOp(booleanTests[bt.Booltesttype], catalog.Bool, arg), nil
}

// coalesceExpr builds COALESCE, of its arguments' common type.
func (b *builder) coalesceExpr(ce *pg.CoalesceExpr, sc *scope, st *aggState) (*plan.Expr, error) {
	return b.commonTypeCall("coalesce", ce.Args, ce.Location, sc, st)
}

// minMaxExpr builds GREATEST and LEAST, of their arguments' common type.
func (b *builder) minMaxExpr(mm *pg.MinMaxExpr, sc *scope, st *aggState) (*plan.Expr, error) {
	name := "greatest"
	if mm.Op == pg.MinMaxOp_IS_LEAST {
		name = "least"
	}
	if b.schema.Dialect == catalog.SQLite {
		// GREATEST/LEAST syntax; SQLite's scalar max/min are calls.
		return nil, b.sqliteErr(mm.Location, "no such function: %s", name)
	}
	return b.commonTypeCall(name, mm.Args, mm.Location, sc, st)
}

// commonTypeCall builds a call of name over nodes, typed as their
// common type, its untyped literals read as that type.
func (b *builder) commonTypeCall(name string, nodes []*pg.Node, loc int32, sc *scope, st *aggState) (*plan.Expr, error) {
	args, err := b.exprs(nodes, sc, st)
	if err != nil {
		return nil, err
	}
	typeParamsAmong(args...)
	if err := b.resolveLiterals(nodes, args, sc, st); err != nil {
		return nil, err
	}
	return &plan.Expr{Kind: plan.Func, Name: name, Args: args, Typ: commonType(args), Pos: loc}, nil
}

// sqlValueFunction builds CURRENT_DATE, CURRENT_USER and the like, typed
// by name.
func sqlValueFunction(f *pg.SQLValueFunction) *plan.Expr {
	name := strings.ToLower(strings.TrimPrefix(f.Op.String(), "SVFOP_"))
	t := catalog.Timestamp
	switch {
	case strings.HasPrefix(name, "current_date"):
		t = catalog.Date
	case strings.Contains(name, "time") && !strings.Contains(name, "stamp"):
		t = catalog.Time
	case strings.Contains(name, "user") || strings.Contains(name, "role") || strings.Contains(name, "catalog") || strings.Contains(name, "schema"):
		t = catalog.Text
	}
	return &plan.Expr{Kind: plan.Func, Name: name, Typ: t, Pos: f.Location}
}

// nodeKindName names a parse node's kind for messages: "Node_AIndirection"
// becomes "AIndirection".
func nodeKindName(n *pg.Node) string {
	if n == nil || n.Node == nil {
		return "(empty)"
	}
	s := fmt.Sprintf("%T", n.Node)
	return s[strings.LastIndex(s, "_")+1:]
}

func (b *builder) exprs(ns []*pg.Node, sc *scope, st *aggState) ([]*plan.Expr, error) {
	out := make([]*plan.Expr, 0, len(ns))
	for _, n := range ns {
		e, err := b.expr(n, sc, st)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (b *builder) columnRef(cr *pg.ColumnRef, sc *scope) (*plan.Expr, error) {
	var parts []string
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			return nil, b.errf(cr.Location, "a * is not allowed here")
		}
		parts = append(parts, s.Sval)
	}
	var qual, name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		qual, name = parts[0], parts[1]
	case 3:
		qual, name = parts[1], parts[2] // schema.table.column
	default:
		return nil, b.errf(cr.Location, "improper qualified name %q", strings.Join(parts, "."))
	}
	for s := sc; s != nil; s = s.parent {
		var found *scopeCol
		for i := range s.cols {
			c := &s.cols[i]
			if qual != "" {
				if !b.nameEq(c.qual, qual) || !b.nameEq(c.name, name) {
					continue
				}
			} else if c.hidden || !b.nameEq(c.name, name) {
				continue
			}
			if found != nil && found.id != c.id {
				if qual != "" {
					return nil, b.nameErrf(cr.Location, "column reference %q is ambiguous", qual+"."+name)
				}
				return nil, b.nameErrf(cr.Location, "column reference %q is ambiguous", name)
			}
			found = c
		}
		if found != nil {
			if s != sc {
				sc.correlated = true
			}
			e := plan.NewCol(found.id, found.typ)
			e.Pos = cr.Location
			return e, nil
		}
		if e, ok, err := b.sqliteRowid(s, sc, qual, name, cr.Location); ok || err != nil {
			return e, err
		}
		if qual != "" && hasQual(b, s, qual) {
			return nil, b.errf(cr.Location, "column %q not found in table %s", name, qual)
		}
		if t := findTarget(b, s.aliases, name); len(parts) == 1 && t != nil {
			// SQLite: a result column's alias, where no column of this
			// query has the name, before the enclosing queries' columns.
			if s != sc {
				sc.correlated = true
			}
			return b.cloneExpr(t.expr, map[plan.ColumnID]plan.ColumnID{}), nil
		}
	}
	if len(parts) == 1 && b.schema.Dialect == catalog.SQLite && b.quotedAt(cr.Location) {
		// SQLite reads a double-quoted name that is no column as a string.
		e := plan.NewConst(catalog.Text, name)
		e.Pos = cr.Location
		return e, nil
	}
	if qual != "" {
		return nil, b.nameErrf(cr.Location, "missing FROM-clause entry for table %q", qual)
	}
	return nil, b.nameErrf(cr.Location, "column %q does not exist", name)
}

func hasQual(b *builder, s *scope, qual string) bool {
	for _, c := range s.cols {
		if b.nameEq(c.qual, qual) {
			return true
		}
	}
	return false
}

func (b *builder) quotedAt(loc int32) bool {
	if loc < 0 || int(loc) >= len(b.text) || b.text[loc] != '"' {
		return false
	}
	// The SQLite rewrite turns `name` into "name"; only a double quote as
	// written makes a string.
	if b.posMap != nil && int(loc) < len(b.posMap) {
		src := int(b.posMap[loc])
		return src < len(b.src) && b.src[src] == '"'
	}
	return true
}

func (b *builder) constant(c *pg.A_Const) *plan.Expr {
	if c.Isnull {
		e := plan.NewNull(catalog.Null)
		e.Pos = c.Location
		return e
	}
	var e *plan.Expr
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		e = plan.NewConst(catalog.Int, strconv.Itoa(int(v.Ival.Ival)))
	case *pg.A_Const_Fval:
		// Integers too big for int4 also arrive here.
		if _, err := strconv.ParseInt(v.Fval.Fval, 10, 64); err == nil {
			e = plan.NewConst(catalog.Int, v.Fval.Fval)
		} else {
			e = plan.NewConst(catalog.Numeric, v.Fval.Fval)
		}
	case *pg.A_Const_Sval:
		// A quoted literal has no type until context gives it one; text
		// is PostgreSQL's fallback.
		e = plan.NewConst(catalog.Text, v.Sval.Sval)
	case *pg.A_Const_Boolval:
		e = plan.NewBool(v.Boolval.Boolval)
	case *pg.A_Const_Bsval:
		e = plan.NewConst(catalog.Bytes, v.Bsval.Bsval)
	default:
		e = plan.NewNull(catalog.Null)
	}
	e.Pos = c.Location
	return e
}
func (b *builder) caseExpr(ce *pg.CaseExpr, sc *scope, st *aggState) (*plan.Expr, error) {
	e := &plan.Expr{Kind: plan.Case, Pos: ce.Location}
	if ce.Arg != nil {
		arg, err := b.expr(ce.Arg, sc, st)
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, arg)
		e.CaseHasOperand = true
	}
	var results []*plan.Expr
	var resultNodes []*pg.Node
	for _, wn := range ce.Args {
		w := wn.GetCaseWhen()
		cond, err := b.expr(w.Expr, sc, st)
		if err != nil {
			return nil, err
		}
		res, err := b.expr(w.Result, sc, st)
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, cond, res)
		results = append(results, res)
		resultNodes = append(resultNodes, w.Result)
	}
	if ce.Defresult != nil {
		d, err := b.expr(ce.Defresult, sc, st)
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, d)
		e.HasElse = true
		results = append(results, d)
		resultNodes = append(resultNodes, ce.Defresult)
	}
	typeParamsAmong(results...)
	if err := b.resolveLiterals(resultNodes, results, sc, st); err != nil {
		return nil, err
	}
	for i, k := 0, 0; i < len(e.Args); i++ { // the results typed in place
		if isResult := e.CaseHasOperand && i > 0 && i%2 == 0 || !e.CaseHasOperand && i%2 == 1 || e.HasElse && i == len(e.Args)-1; isResult {
			e.Args[i] = results[k]
			k++
		}
	}
	e.Typ = commonType(results)
	return e, nil
}

func (b *builder) subLink(sl *pg.SubLink, sc *scope) (*plan.Expr, error) {
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return nil, b.unsupported(sl.Location, "this subquery")
	}
	rel, err := b.buildSelect(sel, sc, sc.ctes)
	if err != nil {
		return nil, err
	}
	e := &plan.Expr{Kind: plan.Subquery, Sub: rel.node, Typ: catalog.Bool, Pos: sl.Location}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		e.SubKind = plan.SubExists
	case pg.SubLinkType_EXPR_SUBLINK:
		if len(rel.cols) != 1 {
			return nil, b.errf(sl.Location, "subquery must return only one column")
		}
		e.SubKind = plan.SubScalar
		e.Typ = b.typeOf(rel.cols[0])
		e.Args = nil
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
		e.SubKind = plan.SubAny
		if sl.SubLinkType == pg.SubLinkType_ALL_SUBLINK {
			e.SubKind = plan.SubAll
		}
		e.SubOp = plan.OpEq
		if len(sl.OperName) > 0 {
			op := sl.OperName[len(sl.OperName)-1].GetString_().GetSval()
			mapped, ok := cmpOps[op]
			if !ok {
				return nil, b.unsupported(sl.Location, "operator "+op+" with a subquery")
			}
			e.SubOp = mapped
		}
		left, err := b.expr(sl.Testexpr, sc, nil)
		if err != nil {
			return nil, err
		}
		if left.Kind == plan.Tuple {
			e.Args = left.Args
		} else {
			e.Args = []*plan.Expr{left}
		}
		if len(e.Args) != len(rel.cols) {
			return nil, b.errf(sl.Location, "subquery has %d columns but %d are compared", len(rel.cols), len(e.Args))
		}
	default:
		return nil, b.unsupported(sl.Location, "subquery kind "+sl.SubLinkType.String())
	}
	return e, nil
}
