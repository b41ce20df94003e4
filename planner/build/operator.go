package build

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// cmpOps maps PostgreSQL's comparison and LIKE operator names to the
// plan's operators.
var cmpOps = map[string]string{"=": plan.OpEq, "<>": plan.OpNe, "!=": plan.OpNe, "<": plan.OpLt, "<=": plan.OpLe, ">": plan.OpGt, ">=": plan.OpGe,
	"~~": plan.OpLike, "!~~": plan.OpNotLike, "~~*": plan.OpILike, "!~~*": plan.OpNotILike}

// aExpr builds an operator expression: IN, BETWEEN, prefix and binary
// operators, LIKE, IS [NOT] DISTINCT FROM and NULLIF.
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
		return b.inList(a, opName, l, sc, st)
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		return b.between(a, l, sc, st)
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return nil, b.unsupported(a.Location, "op ANY/ALL (array)")
	case pg.A_Expr_Kind_AEXPR_SIMILAR:
		return b.similar(a, opName, l, sc, st)
	}
	if r, err = b.expr(a.Rexpr, sc, st); err != nil {
		return nil, err
	}
	var e *plan.Expr
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if l == nil {
			return b.prefixOp(a, opName, r)
		}
		if e, err = b.binaryOp(a, opName, l, r); err != nil {
			return nil, err
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
		typeParam(l, catalog.Text)
		typeParam(r, catalog.Text)
		e = plan.NewOp(op, catalog.Bool, l, r)
	case pg.A_Expr_Kind_AEXPR_DISTINCT:
		typeParams(l, r)
		typeParams(r, l)
		e = plan.NewOp(plan.OpIsDistinct, catalog.Bool, l, r)
	case pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		typeParams(l, r)
		typeParams(r, l)
		e = plan.NewOp(plan.OpNotDistinc, catalog.Bool, l, r)
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		typeParams(l, r)
		typeParams(r, l)
		e = &plan.Expr{Kind: plan.Func, Name: "nullif", Typ: l.Typ, Args: []*plan.Expr{l, r}}
	default:
		return nil, b.unsupported(a.Location, "expression kind "+a.Kind.String())
	}
	e.Pos = a.Location
	return e, nil
}

// inList builds l [NOT] IN (items), counting the items against the size
// limit before building them.
func (b *builder) inList(a *pg.A_Expr, opName string, l *plan.Expr, sc *scope, st *aggState) (*plan.Expr, error) {
	items := a.Rexpr.GetList().GetItems()
	if l := b.lim; l.max >= 0 && l.used+len(items) > l.max {
		return nil, fmt.Errorf("build: IN list of %d items exceeds %d nodes: %w", len(items), l.max, ErrTooLarge)
	}
	args, err := b.exprs(items, sc, st)
	if err != nil {
		return nil, err
	}
	typeParamsAmong(append([]*plan.Expr{l}, args...)...)
	b.realLiterals(l, args)
	name := "in"
	if opName == "<>" {
		name = "not in"
	}
	e := plan.NewOp(name, catalog.Bool, append([]*plan.Expr{l}, args...)...)
	e.Pos = a.Location
	return e, nil
}

// between builds the four BETWEEN forms: [NOT] BETWEEN [SYMMETRIC].
func (b *builder) between(a *pg.A_Expr, l *plan.Expr, sc *scope, st *aggState) (*plan.Expr, error) {
	bounds, err := b.exprs(a.Rexpr.GetList().GetItems(), sc, st)
	if err != nil {
		return nil, err
	}
	name := map[pg.A_Expr_Kind]string{pg.A_Expr_Kind_AEXPR_BETWEEN: "between", pg.A_Expr_Kind_AEXPR_NOT_BETWEEN: "not between",
		pg.A_Expr_Kind_AEXPR_BETWEEN_SYM: "between symmetric", pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM: "not between symmetric"}[a.Kind]
	typeParamsAmong(append([]*plan.Expr{l}, bounds...)...)
	b.realLiterals(l, bounds)
	e := plan.NewOp(name, catalog.Bool, l, bounds[0], bounds[1])
	e.Pos = a.Location
	return e, nil
}

// prefixOp builds a prefix operator: unary minus folds into a numeric
// literal, unary plus is the operand itself.
func (b *builder) prefixOp(a *pg.A_Expr, opName string, r *plan.Expr) (*plan.Expr, error) {
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
		e := plan.NewOp(plan.OpNeg, r.Typ, r)
		e.Pos = a.Location
		return e, nil
	case "+":
		return r, nil
	}
	if e, ok, err := b.pgPrefixOp(opName, r, a.Location); ok {
		if e != nil {
			e.Pos = a.Location
		}
		return e, err
	}
	return nil, b.unsupported(a.Location, "prefix operator "+opName)
}

// binaryOp builds l op r for comparisons, arithmetic, || and the
// extension operators; the caller sets the position.
func (b *builder) binaryOp(a *pg.A_Expr, opName string, l, r *plan.Expr) (*plan.Expr, error) {
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
		typeParams(l, r)
		typeParams(r, l)
		if err := b.checkTextNumber(opName, l, r, a.Location); err != nil {
			return nil, err
		}
		pair := []*plan.Expr{l, r}
		b.realLiterals(l, pair[1:])
		b.realLiterals(r, pair[:1])
		return plan.NewOp(op, catalog.Bool, pair[0], pair[1]), nil
	}
	switch opName {
	case "+", "-", "*", "/", "%":
		typeParams(l, r)
		typeParams(r, l)
		return plan.NewOp(opName, arithType(opName, l.Typ, r.Typ), l, r), nil
	case "||":
		typeParam(l, catalog.Text)
		typeParam(r, catalog.Text)
		if err := b.concatOperands(l, r, a.Location); err != nil {
			return nil, err
		}
		return plan.NewOp(plan.OpConcat, catalog.Text, l, r), nil
	}
	if e := b.extOp(opName, l, r, a.Location); e != nil {
		return e, nil
	}
	if e, ok, err := b.pgBinaryOp(opName, l, r, a.Location); ok {
		return e, err
	}
	return nil, b.unsupported(a.Location, "operator "+opName)
}

func arithType(op string, l, r catalog.Type) catalog.Type {
	switch {
	// PostgreSQL's date ± interval is a timestamp (a date holds no time
	// of day: a cast of the sum back to date is no identity), interval
	// ± interval and interval × or ÷ a number an interval, jsonb -
	// integer a jsonb (an element removed), integer + date a date.
	case l == catalog.Date && r == catalog.Interval && (op == "+" || op == "-"),
		l == catalog.Interval && r == catalog.Date && op == "+":
		return catalog.Timestamp
	case l == catalog.Interval && r == catalog.Timestamp && op == "+":
		return catalog.Timestamp
	case l == catalog.Interval && r == catalog.Interval && (op == "+" || op == "-"),
		l == catalog.Interval && r.IsNumeric() && (op == "*" || op == "/"),
		l.IsNumeric() && r == catalog.Interval && op == "*":
		return catalog.Interval
	case l == catalog.JSON && r == catalog.Int && op == "-":
		return catalog.JSON
	case l == catalog.Int && r == catalog.Date && op == "+":
		return catalog.Date
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

// checkTextNumber refuses, in PostgreSQL, a comparison of a typed text
// (a column, a cast, an expression; not a quoted literal, whose type the
// other side gives) with a number: there is no such operator, and the
// query fails (issue 33 campaign: x::text = 2 over an always-empty
// table was proved equal to x = 2).
func (b *builder) checkTextNumber(op string, l, r *plan.Expr, loc int32) error {
	if b.schema.Dialect != catalog.Postgres {
		return nil
	}
	typedText := func(e *plan.Expr) bool { return e.Typ == catalog.Text && e.Kind != plan.Const && e.Kind != plan.Param }
	number := func(e *plan.Expr) bool { return e.Typ.IsNumeric() && e.Kind != plan.Param }
	switch {
	case typedText(l) && number(r):
		return b.errf(loc, "operator does not exist: text %s %s", op, typeWord(r.Typ))
	case number(l) && typedText(r):
		return b.errf(loc, "operator does not exist: %s %s text", typeWord(l.Typ), op)
	}
	return nil
}
