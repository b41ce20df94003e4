package build

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

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
		return b.constant(v.AConst), nil
	case *pg.Node_TypeCast:
		return b.typeCast(v.TypeCast, sc, st)
	case *pg.Node_AExpr:
		return b.aExpr(v.AExpr, sc, st)
	case *pg.Node_BoolExpr:
		be := v.BoolExpr
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
	case *pg.Node_NullTest:
		arg, err := b.expr(v.NullTest.Arg, sc, st)
		if err != nil {
			return nil, err
		}
		name := plan.OpIsNull
		if v.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL {
			name = plan.OpIsNotNull
		}
		return plan.NewOp(name, catalog.Bool, arg), nil
	case *pg.Node_BooleanTest:
		arg, err := b.expr(v.BooleanTest.Arg, sc, st)
		if err != nil {
			return nil, err
		}
		names := map[pg.BoolTestType]string{
			pg.BoolTestType_IS_TRUE: plan.OpIsTrue, pg.BoolTestType_IS_NOT_TRUE: plan.OpIsNotTrue,
			pg.BoolTestType_IS_FALSE: plan.OpIsFalse, pg.BoolTestType_IS_NOT_FALSE: plan.OpIsNotFalse,
			pg.BoolTestType_IS_UNKNOWN: plan.OpIsNull, pg.BoolTestType_IS_NOT_UNKNOWN: plan.OpIsNotNull,
		}
		return plan.NewOp(names[v.BooleanTest.Booltesttype], catalog.Bool, arg), nil
	case *pg.Node_FuncCall:
		return b.funcCall(v.FuncCall, sc, st)
	case *pg.Node_CoalesceExpr:
		args, err := b.exprs(v.CoalesceExpr.Args, sc, st)
		if err != nil {
			return nil, err
		}
		return &plan.Expr{Kind: plan.Func, Name: "coalesce", Args: args, Typ: commonType(args), Pos: v.CoalesceExpr.Location}, nil
	case *pg.Node_MinMaxExpr:
		if b.schema.Dialect == catalog.SQLite {
			// GREATEST/LEAST syntax; SQLite's scalar max/min are calls.
			name := "greatest"
			if v.MinMaxExpr.Op == pg.MinMaxOp_IS_LEAST {
				name = "least"
			}
			return nil, b.sqliteErr(v.MinMaxExpr.Location, "no such function: %s", name)
		}
		args, err := b.exprs(v.MinMaxExpr.Args, sc, st)
		if err != nil {
			return nil, err
		}
		name := "greatest"
		if v.MinMaxExpr.Op == pg.MinMaxOp_IS_LEAST {
			name = "least"
		}
		return &plan.Expr{Kind: plan.Func, Name: name, Args: args, Typ: commonType(args), Pos: v.MinMaxExpr.Location}, nil
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
		name := strings.ToLower(strings.TrimPrefix(v.SqlvalueFunction.Op.String(), "SVFOP_"))
		t := catalog.Timestamp
		switch {
		case strings.HasPrefix(name, "current_date"):
			t = catalog.Date
		case strings.Contains(name, "time") && !strings.Contains(name, "stamp"):
			t = catalog.Time
		case strings.Contains(name, "user") || strings.Contains(name, "role") || strings.Contains(name, "catalog") || strings.Contains(name, "schema"):
			t = catalog.Text
		}
		return &plan.Expr{Kind: plan.Func, Name: name, Typ: t, Pos: v.SqlvalueFunction.Location}, nil
	case *pg.Node_CollateClause:
		if e, ok, err := b.extCollate(v.CollateClause, sc, st); ok {
			return e, err
		}
		return nil, b.unsupported(v.CollateClause.Location, "COLLATE")
	case *pg.Node_GroupingFunc:
		return b.groupingFunc(v.GroupingFunc, sc, st)
	}
	return nil, b.unsupported(-1, "expression "+nodeKindName(n))
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
					return nil, b.errf(cr.Location, "column reference %q is ambiguous", qual+"."+name)
				}
				return nil, b.errf(cr.Location, "column reference %q is ambiguous", name)
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
		if qual != "" && hasQual(b, s, qual) {
			return nil, b.errf(cr.Location, "column %q not found in table %s", name, qual)
		}
	}
	if len(parts) == 1 {
		if t := findTarget(b, sc.aliases, name); t != nil {
			return t.expr.Copy(), nil
		}
	}
	if len(parts) == 1 && b.schema.Dialect == catalog.SQLite && b.quotedAt(cr.Location) {
		// SQLite reads a double-quoted name that is no column as a string.
		e := plan.NewConst(catalog.Text, name)
		e.Pos = cr.Location
		return e, nil
	}
	if qual != "" {
		return nil, b.errf(cr.Location, "missing FROM-clause entry for table %q", qual)
	}
	return nil, b.errf(cr.Location, "column %q does not exist", name)
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

func (b *builder) typeCast(tc *pg.TypeCast, sc *scope, st *aggState) (*plan.Expr, error) {
	arg, err := b.expr(tc.Arg, sc, st)
	if err != nil {
		return nil, err
	}
	name := typeNameOf(tc.TypeName)
	t := catalog.TypeFromName(name)
	if len(tc.TypeName.Names) > 0 && name == "interval" {
		t = catalog.Interval
	}
	if e := b.extCast(name, arg); e != nil {
		return e, nil
	}
	if t == catalog.Unknown {
		return nil, b.errf(tc.Location, "type %q does not exist", name)
	}
	if len(tc.TypeName.Typmods) > 0 && b.schema.Dialect == catalog.Postgres {
		// A type modifier changes the value (numeric(10,2) rounds,
		// varchar(3) truncates, interval '3' month reads months), so it
		// is part of the cast. SQLite ignores modifiers.
		mod, folded, err := b.typmod(tc, name, arg)
		if err != nil {
			return nil, err
		}
		if folded != nil {
			arg = folded
		} else if mod != "" {
			return &plan.Expr{Kind: plan.Cast, Typ: t, Value: mod, Args: []*plan.Expr{arg}, Pos: tc.Location}, nil
		}
	}
	if b.schema.Dialect == catalog.Postgres {
		// A cast inside a family is an operation unless it is an
		// identity on the operand's exact type (exacttype.go).
		value, identity, foldable := b.exactCast(CanonicalType(name, false), arg)
		if identity {
			return arg, nil
		}
		if value != "" && !foldable {
			return &plan.Expr{Kind: plan.Cast, Typ: t, Value: value, Args: []*plan.Expr{arg}, Pos: tc.Location}, nil
		}
	}
	if arg.Kind == plan.Const {
		if c, ok := CoerceConst(arg, t); ok {
			c.Pos = tc.Location
			return c, nil
		}
	}
	if arg.Typ == t && (b.schema.Dialect != catalog.SQLite || b.sqliteCastIdentity(arg, t)) {
		return arg, nil
	}
	return &plan.Expr{Kind: plan.Cast, Typ: t, Args: []*plan.Expr{arg}, Pos: tc.Location}, nil
}

// sqliteCastIdentity says CAST(e AS t), e of t's family, returns e's
// value in SQLite. A column's type there is an affinity, not a
// guarantee: an INTEGER or REAL column of an ordinary table may hold
// 'abc' (CAST: 0) and an INTEGER one 5.5 (CAST AS INTEGER: 5). A TEXT
// column stores every number as text, so a cast to text keeps it.
func (b *builder) sqliteCastIdentity(e *plan.Expr, t catalog.Type) bool {
	switch t {
	case catalog.Text:
		return true
	case catalog.Int:
		return b.integerOnlyColumn(e)
	}
	return false
}

// integerOnlyColumn reports whether e is a base column the engine keeps
// to integers (catalog.Table.IntegerOnly). In SQLite CAST(x AS INTEGER)
// of any other integer-typed x is no identity: x may hold 5.5 (cast: 5)
// or 'abc' (cast: 0).
func (b *builder) integerOnlyColumn(e *plan.Expr) bool {
	if e.Kind != plan.ColRef {
		return false
	}
	m := b.meta.Col(e.Col)
	if m.Instance < 0 || m.Instance >= len(b.meta.Instances) || b.meta.Instances[m.Instance].Table == nil {
		return false
	}
	return b.meta.Instances[m.Instance].Table.IntegerOnly(b.schema.Dialect, m.Ordinal)
}

// intervalFields are the INTERVAL_MASK values of PostgreSQL's
// single-field interval qualifiers (utils/datetime.h).
var intervalFields = map[int32]string{2: "month", 4: "year", 8: "day", 1 << 10: "hour", 1 << 11: "minute", 1 << 12: "second"}

// typmod reads the type modifiers of a cast to name. It returns either a
// literal that already carries the modifier's meaning (interval '3'
// month becomes '3 month'; a short enough text under varchar(n)), or the
// modified type's text for the Cast node, such as numeric(10,2).
func (b *builder) typmod(tc *pg.TypeCast, name string, arg *plan.Expr) (string, *plan.Expr, error) {
	mods := make([]int32, len(tc.TypeName.Typmods))
	for i, m := range tc.TypeName.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return "", nil, b.unsupported(tc.Location, "a type modifier that is not an integer")
		}
		mods[i] = c.GetIval().Ival
	}
	isText := arg.Kind == plan.Const && !arg.Null && arg.Typ == catalog.Text
	switch name {
	case "interval":
		unit, ok := intervalFields[mods[0]]
		if len(mods) == 1 && ok && isText {
			if _, err := strconv.ParseInt(strings.TrimSpace(arg.Value), 10, 64); err == nil {
				return "", plan.NewConst(catalog.Text, strings.TrimSpace(arg.Value)+" "+unit), nil
			}
		}
		return "", nil, b.unsupported(tc.Location, "this interval qualifier")
	case "varchar":
		if len(mods) == 1 && isText && int32(utf8.RuneCountInString(arg.Value)) <= mods[0] {
			return "", arg, nil
		}
	}
	parts := make([]string, len(mods))
	for i, m := range mods {
		parts[i] = strconv.Itoa(int(m))
	}
	return name + "(" + strings.Join(parts, ",") + ")", nil, nil
}

// CoerceConst converts a literal to type t when the conversion is exact;
// ok is false when it is not (the caller keeps an explicit cast).
func CoerceConst(c *plan.Expr, t catalog.Type) (*plan.Expr, bool) {
	if c.Null {
		return plan.NewNull(t), true
	}
	v := strings.TrimSpace(c.Value)
	switch t {
	case catalog.Int:
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			return plan.NewConst(t, strconv.FormatInt(i, 10)), true
		}
		if c.Typ == catalog.Text {
			return nil, false
		}
	case catalog.Numeric, catalog.Float:
		if c.Typ == catalog.Text || c.Typ.IsNumeric() {
			if f, ok := canonicalNumber(v); ok {
				return plan.NewConst(t, f), true
			}
		}
	case catalog.Text:
		if c.Typ == catalog.Text || c.Typ.IsNumeric() {
			return plan.NewConst(t, c.Value), true
		}
	case catalog.Bool:
		switch strings.ToLower(v) {
		case "t", "true", "yes", "y", "on", "1":
			return plan.NewBool(true), true
		case "f", "false", "no", "n", "off", "0":
			return plan.NewBool(false), true
		}
	case catalog.Date, catalog.Timestamp, catalog.Time:
		if c.Typ == catalog.Text || c.Typ == t {
			return plan.NewConst(t, v), true
		}
	}
	if c.Typ == t {
		return c, true
	}
	return nil, false
}

// canonicalNumber writes a decimal literal without redundant zeros, so
// 3.50 and 3.5 compare equal as numbers.
func canonicalNumber(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return "", false
	}
	if strings.ContainsAny(s, "eE") {
		f, _ := strconv.ParseFloat(s, 64)
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+"), "0")
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "" || s[0] == '.' {
		s = "0" + s
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s, true
}

var cmpOps = map[string]string{"=": plan.OpEq, "<>": plan.OpNe, "!=": plan.OpNe, "<": plan.OpLt, "<=": plan.OpLe, ">": plan.OpGt, ">=": plan.OpGe,
	"~~": plan.OpLike, "!~~": plan.OpNotLike, "~~*": plan.OpILike, "!~~*": plan.OpNotILike}

func (b *builder) aExpr(a *pg.A_Expr, sc *scope, st *aggState) (*plan.Expr, error) {
	opName := ""
	if len(a.Name) > 0 {
		opName = a.Name[len(a.Name)-1].GetString_().GetSval()
	}
	var l, r *plan.Expr
	var err error
	if a.Lexpr != nil {
		if l, err = b.expr(a.Lexpr, sc, st); err != nil {
			return nil, err
		}
	}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_IN:
		items := a.Rexpr.GetList().GetItems()
		if l := b.lim; l.max >= 0 && l.used+len(items) > l.max {
			return nil, fmt.Errorf("build: IN list of %d items exceeds %d nodes: %w", len(items), l.max, ErrTooLarge)
		}
		args, err := b.exprs(items, sc, st)
		if err != nil {
			return nil, err
		}
		b.realLiterals(l, args)
		name := "in"
		if opName == "<>" {
			name = "not in"
		}
		e := plan.NewOp(name, catalog.Bool, append([]*plan.Expr{l}, args...)...)
		e.Pos = a.Location
		return e, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		bounds, err := b.exprs(a.Rexpr.GetList().GetItems(), sc, st)
		if err != nil {
			return nil, err
		}
		name := map[pg.A_Expr_Kind]string{pg.A_Expr_Kind_AEXPR_BETWEEN: "between", pg.A_Expr_Kind_AEXPR_NOT_BETWEEN: "not between",
			pg.A_Expr_Kind_AEXPR_BETWEEN_SYM: "between symmetric", pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM: "not between symmetric"}[a.Kind]
		b.realLiterals(l, bounds)
		e := plan.NewOp(name, catalog.Bool, l, bounds[0], bounds[1])
		e.Pos = a.Location
		return e, nil
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return nil, b.unsupported(a.Location, "op ANY/ALL (array)")
	case pg.A_Expr_Kind_AEXPR_SIMILAR:
		return nil, b.unsupported(a.Location, "SIMILAR TO")
	}
	if r, err = b.expr(a.Rexpr, sc, st); err != nil {
		return nil, err
	}
	var e *plan.Expr
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if l == nil { // prefix operator
			switch opName {
			case "-":
				// -0 is a float (it prints as -0): kept as an operator.
				if r.Kind == plan.Const && r.Typ.IsNumeric() && !r.Null && !(r.Typ == catalog.Float && r.Value == "0") {
					v := r.Value
					if strings.HasPrefix(v, "-") {
						v = v[1:]
					} else if v != "0" {
						v = "-" + v
					}
					c := plan.NewConst(r.Typ, v)
					c.Pos = a.Location
					return c, nil
				}
				e = plan.NewOp(plan.OpNeg, r.Typ, r)
			case "+":
				return r, nil
			default:
				return nil, b.unsupported(a.Location, "prefix operator "+opName)
			}
			break
		}
		if op, ok := cmpOps[opName]; ok {
			if b.schema.Dialect == catalog.SQLite {
				// SQLite's LIKE ignores case (ASCII).
				switch op {
				case plan.OpLike:
					op = plan.OpILike
				case plan.OpNotLike:
					op = plan.OpNotILike
				}
			}
			pair := []*plan.Expr{l, r}
			b.realLiterals(l, pair[1:])
			b.realLiterals(r, pair[:1])
			e = plan.NewOp(op, catalog.Bool, pair[0], pair[1])
			break
		}
		switch opName {
		case "+", "-", "*", "/", "%":
			e = plan.NewOp(opName, arithType(opName, l.Typ, r.Typ), l, r)
		case "||":
			if err := b.concatOperands(l, r, a.Location); err != nil {
				return nil, err
			}
			e = plan.NewOp(plan.OpConcat, catalog.Text, l, r)
		default:
			if e = b.extOp(opName, l, r, a.Location); e == nil {
				return nil, b.unsupported(a.Location, "operator "+opName)
			}
		}
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		op := cmpOps[opName]
		if b.schema.Dialect == catalog.SQLite && a.Kind == pg.A_Expr_Kind_AEXPR_LIKE {
			if op == plan.OpLike {
				op = plan.OpILike
			} else {
				op = plan.OpNotILike
			}
		}
		e = plan.NewOp(op, catalog.Bool, l, r)
	case pg.A_Expr_Kind_AEXPR_DISTINCT:
		e = plan.NewOp(plan.OpIsDistinct, catalog.Bool, l, r)
	case pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		e = plan.NewOp(plan.OpNotDistinc, catalog.Bool, l, r)
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		e = &plan.Expr{Kind: plan.Func, Name: "nullif", Typ: l.Typ, Args: []*plan.Expr{l, r}}
	default:
		return nil, b.unsupported(a.Location, "expression kind "+a.Kind.String())
	}
	e.Pos = a.Location
	return e, nil
}

func arithType(op string, l, r catalog.Type) catalog.Type {
	switch {
	case l == catalog.Float || r == catalog.Float:
		return catalog.Float
	case l == catalog.Numeric || r == catalog.Numeric:
		return catalog.Numeric
	case l == catalog.Int && r == catalog.Int:
		return catalog.Int
	case l == catalog.Date || l == catalog.Timestamp:
		if op == "-" && (r == catalog.Date || r == catalog.Timestamp) {
			if l == catalog.Date && r == catalog.Date {
				return catalog.Int
			}
			return catalog.Interval
		}
		return l
	}
	if l.IsNumeric() {
		return l
	}
	if r.IsNumeric() {
		return r
	}
	return catalog.Unknown
}

func commonType(args []*plan.Expr) catalog.Type {
	t := catalog.Null
	for _, a := range args {
		switch {
		case t == catalog.Null || t == catalog.Unknown:
			t = a.Typ
		case a.Typ == catalog.Null:
		case t != a.Typ && t.IsNumeric() && a.Typ.IsNumeric():
			t = arithType("+", t, a.Typ)
		}
	}
	return t
}

var aggFuncs = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "total": true,
	"group_concat": true, "string_agg": true, "array_agg": true, "bool_and": true, "bool_or": true, "every": true,
	"stddev": true, "stddev_pop": true, "stddev_samp": true, "variance": true, "var_pop": true, "var_samp": true, "any_value": true,
	"bit_and": true, "bit_or": true, "bit_xor": true, "corr": true, "covar_pop": true, "covar_samp": true,
	"regr_avgx": true, "regr_avgy": true, "regr_count": true, "regr_intercept": true, "regr_r2": true, "regr_slope": true,
	"regr_sxx": true, "regr_sxy": true, "regr_syy": true}

// sqliteAggs are the aggregates SQLite has; the others of aggFuncs are
// PostgreSQL's, and SQLite reports them as missing functions.
var sqliteAggs = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "total": true,
	"group_concat": true, "string_agg": true}

var winFuncs = map[string]catalog.Type{"row_number": catalog.Int, "rank": catalog.Int, "dense_rank": catalog.Int, "ntile": catalog.Int,
	"percent_rank": catalog.Float, "cume_dist": catalog.Float, "lag": catalog.Unknown, "lead": catalog.Unknown,
	"first_value": catalog.Unknown, "last_value": catalog.Unknown, "nth_value": catalog.Unknown}

// scalarFuncTypes gives result types of known scalar functions; functions
// whose type follows their first argument are marked Unknown and resolved
// from it.
var scalarFuncTypes = map[string]catalog.Type{
	"lower": catalog.Text, "upper": catalog.Text, "substr": catalog.Text, "substring": catalog.Text, "trim": catalog.Text,
	"ltrim": catalog.Text, "rtrim": catalog.Text, "btrim": catalog.Text, "replace": catalog.Text, "concat": catalog.Text, "strftime": catalog.Text,
	"to_char": catalog.Text, "left": catalog.Text, "right": catalog.Text, "initcap": catalog.Text, "char": catalog.Text, "printf": catalog.Text,
	"length": catalog.Int, "char_length": catalog.Int, "instr": catalog.Int, "strpos": catalog.Int, "position": catalog.Int,
	"abs": catalog.Unknown, "round": catalog.Numeric, "ceil": catalog.Numeric, "ceiling": catalog.Numeric, "floor": catalog.Numeric,
	"coalesce": catalog.Unknown, "ifnull": catalog.Unknown, "nullif": catalog.Unknown, "iif": catalog.Unknown,
	"date": catalog.Text, "datetime": catalog.Text, "time": catalog.Text, "julianday": catalog.Float,
	"now": catalog.Timestamp, "date_part": catalog.Float, "extract": catalog.Numeric, "date_trunc": catalog.Timestamp, "age": catalog.Interval,
	"random": catalog.Float, "sqrt": catalog.Float, "power": catalog.Float, "exp": catalog.Float, "ln": catalog.Float, "log": catalog.Float,
	"mod": catalog.Unknown, "sign": catalog.Unknown, "typeof": catalog.Text, "greatest": catalog.Unknown, "least": catalog.Unknown,
}

func (b *builder) funcCall(fc *pg.FuncCall, sc *scope, st *aggState) (*plan.Expr, error) {
	name := strings.ToLower(fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval())
	if len(fc.Funcname) == 2 && fc.Funcname[0].GetString_().GetSval() != "pg_catalog" {
		return nil, b.errf(fc.Location, "function %s.%s does not exist", fc.Funcname[0].GetString_().GetSval(), name)
	}
	if b.schema.Dialect == catalog.SQLite {
		if err := b.sqliteNoSuchFunc(name, fc.Location); err != nil {
			return nil, err
		}
	}
	if fc.AggWithinGroup || fc.FuncVariadic {
		return nil, b.unsupported(fc.Location, "WITHIN GROUP / VARIADIC")
	}
	// Arguments of an aggregate belong to the level below it: no nested
	// aggregates.
	argState := st
	if aggFuncs[name] || fc.Over != nil {
		argState = nil
	}
	// A window function's arguments, partition and order keys are read
	// after grouping: they may hold aggregates, but no window calls.
	var winArgs *aggState
	if fc.Over != nil && st != nil {
		winArgs = &aggState{}
		argState = winArgs
	}
	args, err := b.exprs(fc.Args, sc, argState)
	if err != nil {
		return nil, err
	}
	if b.schema.Dialect == catalog.SQLite && (name == "max" || name == "min") && len(args) > 1 {
		// SQLite's multi-argument max/min are scalar.
		n := map[string]string{"max": "greatest", "min": "least"}[name]
		return &plan.Expr{Kind: plan.Func, Name: n, Args: args, Typ: commonType(args), Pos: fc.Location}, nil
	}
	if fc.Over != nil {
		if st == nil {
			return nil, b.errf(fc.Location, "window functions are not allowed here")
		}
		t, ok := winFuncs[name]
		if !ok {
			if !aggFuncs[name] {
				return nil, b.errf(fc.Location, "function %s is not a window function", name)
			}
			t = aggType(name, args)
		}
		if t == catalog.Unknown && len(args) > 0 {
			t = args[0].Typ
		}
		w := &plan.Expr{Kind: plan.WinFunc, Name: name, Args: args, Typ: t, Star: fc.AggStar, Pos: fc.Location}
		if fc.Over.Name != "" || fc.Over.Refname != "" {
			return nil, b.unsupported(fc.Location, "named windows")
		}
		if w.Partition, err = b.exprs(fc.Over.PartitionClause, sc, winArgs); err != nil {
			return nil, err
		}
		for _, on := range fc.Over.OrderClause {
			sb := on.GetSortBy()
			e, err := b.expr(sb.Node, sc, winArgs)
			if err != nil {
				return nil, err
			}
			k, err := b.sortKey(sb, e)
			if err != nil {
				return nil, err
			}
			w.Order = append(w.Order, k)
		}
		if fc.Over.FrameOptions != 1058 { // 1058: the default frame
			w.Value = "frame=" + strconv.Itoa(int(fc.Over.FrameOptions))
			// N PRECEDING / FOLLOWING: the offsets are part of the frame.
			for _, off := range []*pg.Node{fc.Over.StartOffset, fc.Over.EndOffset} {
				if off == nil {
					continue
				}
				o, err := b.expr(off, sc, nil)
				if err != nil {
					return nil, err
				}
				if o.Kind != plan.Const {
					return nil, b.unsupported(fc.Location, "a window frame offset that is not a literal")
				}
				w.Value += " " + o.Value
			}
		}
		if len(winArgs.wins) > 0 {
			return nil, b.errf(fc.Location, "window function calls cannot be nested")
		}
		st.aggs = append(st.aggs, winArgs.aggs...)
		st.wins = append(st.wins, w)
		return w, nil
	}
	if aggFuncs[name] {
		if b.schema.Dialect == catalog.SQLite && !sqliteAggs[name] {
			return nil, b.errf(fc.Location, "no such function: %s", name)
		}
		if st == nil {
			return nil, b.errf(fc.Location, "aggregate function %s is not allowed here", name)
		}
		if len(fc.AggOrder) > 0 {
			return nil, b.unsupported(fc.Location, "ORDER BY inside an aggregate")
		}
		a := &plan.Expr{Kind: plan.Agg, Name: name, Args: args, Distinct: fc.AggDistinct, Star: fc.AggStar, Typ: aggType(name, args), Pos: fc.Location}
		if name == "count" && !fc.AggStar && len(args) == 0 {
			a.Star = true
		}
		if fc.AggFilter != nil {
			if a.Filter, err = b.expr(fc.AggFilter, sc, nil); err != nil {
				return nil, err
			}
		}
		st.aggs = append(st.aggs, a)
		return a, nil
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil {
		return nil, b.errf(fc.Location, "%s is not an aggregate function", name)
	}
	t, known := scalarFuncTypes[name]
	if !known {
		if e := b.extFunc(name, args, fc.Location); e != nil {
			return e, nil
		}
		switch {
		case plan.SideEffectFuncs[name]:
			return nil, b.sideEffects(fc.Location, "function "+name)
		case plan.VolatileFuncs[name]:
			return nil, b.unsupported(fc.Location, "volatile function "+name)
		}
		return nil, b.errf(fc.Location, "function %s does not exist", name)
	}
	switch name {
	case "ifnull":
		name = "coalesce"
	case "iif":
		if len(args) != 3 {
			return nil, b.errf(fc.Location, "iif takes 3 arguments, got %d", len(args))
		}
		return &plan.Expr{Kind: plan.Case, Args: args, HasElse: true, Typ: commonType(args[1:]), Pos: fc.Location}, nil
	case "substring":
		name = "substr"
	case "date":
		if b.schema.Dialect == catalog.Postgres {
			// PostgreSQL's date(x) is the cast to date; SQLite's date()
			// returns text.
			t = catalog.Date
		}
	}
	if t == catalog.Unknown {
		t = commonType(args)
	}
	return &plan.Expr{Kind: plan.Func, Name: name, Args: args, Typ: t, Pos: fc.Location}, nil
}

func aggType(name string, args []*plan.Expr) catalog.Type {
	switch name {
	case "count":
		return catalog.Int
	case "avg", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp":
		if len(args) > 0 && args[0].Typ == catalog.Float {
			return catalog.Float
		}
		return catalog.Numeric
	case "sum":
		if len(args) > 0 && args[0].Typ == catalog.Int {
			return catalog.Int
		}
		if len(args) > 0 {
			return args[0].Typ
		}
	case "total":
		return catalog.Float
	case "group_concat", "string_agg":
		return catalog.Text
	case "bool_and", "bool_or", "every":
		return catalog.Bool
	case "regr_count":
		return catalog.Int
	case "corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_intercept", "regr_r2", "regr_slope",
		"regr_sxx", "regr_sxy", "regr_syy":
		return catalog.Float
	}
	if len(args) > 0 {
		return args[0].Typ
	}
	return catalog.Unknown
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
	}
	if ce.Defresult != nil {
		d, err := b.expr(ce.Defresult, sc, st)
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, d)
		e.HasElse = true
		results = append(results, d)
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
