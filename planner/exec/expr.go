package exec

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// eval computes a scalar expression in environment e.
func (x *executor) eval(ex *plan.Expr, e *env) (Value, error) {
	switch ex.Kind {
	case plan.ColRef:
		v, ok := e.lookup(ex.Col)
		if !ok {
			return Null, cannot("column %d is not bound", ex.Col)
		}
		return v, nil
	case plan.Const:
		if ex.Null {
			return Null, nil
		}
		if x.lite {
			return liteConst(ex.Typ, ex.Value)
		}
		return Parse(ex.Typ, ex.Value)
	case plan.Op:
		if x.coll {
			v, err := x.op(ex, e)
			return x.exprColl(ex, v), err
		}
		return x.op(ex, e)
	case plan.Func:
		if x.coll {
			v, err := x.fn(ex, e)
			return x.exprColl(ex, v), err
		}
		v, err := x.fn(ex, e)
		if err != nil || x.lite {
			return v, err
		}
		return asTyped(ex.Typ, v)
	case plan.Case:
		if x.coll {
			v, err := x.caseExpr(ex, e)
			return x.exprColl(ex, v), err
		}
		v, err := x.caseExpr(ex, e)
		if err != nil || x.lite {
			return v, err
		}
		return asTyped(ex.Typ, v)
	case plan.Cast:
		v, err := x.eval(ex.Args[0], e)
		if err != nil {
			return Null, err
		}
		if x.coll && v.K == KText && ex.Typ == catalog.Text && ex.Value == "" && !v.B {
			// A cast keeps a column's collation (SQLite reads CAST(c AS
			// TEXT) as the column c; PostgreSQL keeps the collation of a
			// text value cast to text).
			return v, nil
		}
		if ex.Value != "" {
			if out, ok, err := castExact(v, ex.Typ, ex.Value); ok {
				return out, err
			}
			return castModified(v, ex.Typ, ex.Value)
		}
		if x.lite {
			if ex.Typ == catalog.Text && liteTextVaries(v) {
				x.nondet = true
			}
			return liteCast(v, ex.Typ)
		}
		return cast(v, ex.Typ)
	case plan.Subquery:
		return x.subquery(ex, e)
	case plan.Param:
		// Callers bind parameters (refute substitutes a value for each
		// before executing); one left here has none.
		return Null, cannot("parameter %s has no value", ex.Value)
	}
	return Null, cannot("%s expression", ex.Kind)
}

// operands evaluates a binary operator's arguments. A quoted literal next
// to a typed operand takes that operand's type, as PostgreSQL resolves an
// untyped literal ('3' compared with an integer is the integer 3).
func (x *executor) operands(a, b *plan.Expr, e *env) (Value, Value, error) {
	va, err := x.eval(a, e)
	if err != nil {
		return Null, Null, err
	}
	vb, err := x.eval(b, e)
	if err != nil {
		return Null, Null, err
	}
	if x.lite {
		return va, vb, nil
	}
	if va, err = adaptLiteral(a, va, b.Typ); err != nil {
		return Null, Null, err
	}
	if vb, err = adaptLiteral(b, vb, a.Typ); err != nil {
		return Null, Null, err
	}
	// A quoted literal beside a real takes type real (rounded to single
	// precision): r = '0.1' holds for the stored 0.1, r = 0.1 does not.
	if va, err = float4Literal(a, va, vb); err != nil {
		return Null, Null, err
	}
	if vb, err = float4Literal(b, vb, va); err != nil {
		return Null, Null, err
	}
	return va, vb, nil
}

func float4Literal(lit *plan.Expr, v, other Value) (Value, error) {
	if lit.Kind != plan.Const || lit.Typ != catalog.Text || v.K != KFloat || v.B || !other.IsFloat4() {
		return v, nil
	}
	return toFloat4(Text(lit.Value))
}

func adaptLiteral(lit *plan.Expr, v Value, other catalog.Type) (Value, error) {
	if lit.Kind != plan.Const || v.K != KText || other == catalog.Text || other == catalog.Unknown || other == catalog.Null {
		return v, nil
	}
	return Parse(other, v.S)
}

// cmpOperands evaluates a comparison's arguments, applying SQLite's
// affinity conversions in SQLite mode.
func (x *executor) cmpOperands(a, b *plan.Expr, e *env) (Value, Value, error) {
	va, vb, err := x.operands(a, b, e)
	if err != nil {
		return va, vb, err
	}
	if !x.lite {
		if va, err = x.bpLiteral(a, va, vb); err != nil {
			return Null, Null, err
		}
		if vb, err = x.bpLiteral(b, vb, va); err != nil {
			return Null, Null, err
		}
		return va, vb, nil
	}
	va, vb = x.liteCmp(x.exprAffinity(a), x.exprAffinity(b), va, vb)
	return va, vb, nil
}

func (x *executor) boolVal(v Value) (b, null bool, err error) {
	if x.lite {
		return liteTruth(v)
	}
	return boolVal(v)
}

func boolVal(v Value) (b, null bool, err error) {
	switch v.K {
	case KNull:
		return false, true, nil
	case KBool:
		return v.B, false, nil
	}
	return false, false, cannot("boolean operator on %s", kindName(v.K))
}

// cmpOp applies a comparison with three-valued logic: NULL when either
// side is NULL.
func (x *executor) cmpOp(name string, a, b Value) (Value, error) {
	if a.IsNull() || b.IsNull() {
		return Null, nil
	}
	if x.coll && (name == plan.OpEq || name == plan.OpNe) && a.K == KText && b.K == KText && !a.B && !b.B &&
		(a.Scale == collPGOrder || b.Scale == collPGOrder) && a.Scale != collPGNondet && b.Scale != collPGNondet {
		// A deterministic collation's = is byte equality.
		return Bool((a.S == b.S) == (name == plan.OpEq)), nil
	}
	c, err := x.compare(a, b)
	if err != nil {
		return Null, err
	}
	switch name {
	case plan.OpEq:
		return Bool(c == 0), nil
	case plan.OpNe:
		return Bool(c != 0), nil
	case plan.OpLt:
		return Bool(c < 0), nil
	case plan.OpLe:
		return Bool(c <= 0), nil
	case plan.OpGt:
		return Bool(c > 0), nil
	case plan.OpGe:
		return Bool(c >= 0), nil
	}
	return Null, cannot("comparison %s", name)
}

func not(v Value) Value {
	if v.K == KBool {
		return Bool(!v.B)
	}
	return v
}

// op evaluates an operator; the longer cases are steps of their own,
// called directly.
func (x *executor) op(ex *plan.Expr, e *env) (Value, error) {
	switch ex.Name {
	case plan.OpAnd, plan.OpOr:
		return x.andOr(ex, e)
	case plan.OpNot:
		v, err := x.eval(ex.Args[0], e)
		if err != nil {
			return Null, err
		}
		b, null, err := x.boolVal(v)
		if err != nil || null {
			return Null, err
		}
		return Bool(!b), nil
	case plan.OpIsNull, plan.OpIsNotNull:
		v, err := x.eval(ex.Args[0], e)
		if err != nil {
			return Null, err
		}
		if ex.Args[0].Kind == plan.Tuple {
			return Null, cannot("IS NULL on a row")
		}
		return Bool(v.IsNull() == (ex.Name == plan.OpIsNull)), nil
	case plan.OpIsTrue, plan.OpIsNotTrue, plan.OpIsFalse, plan.OpIsNotFalse:
		return x.isTruth(ex, e)
	case plan.OpEq, plan.OpNe, plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe:
		a, b, err := x.cmpOperands(ex.Args[0], ex.Args[1], e)
		if err != nil {
			return Null, err
		}
		return x.cmpOp(ex.Name, a, b)
	case plan.OpIsDistinct, plan.OpNotDistinc:
		return x.isDistinct(ex, e)
	case plan.OpLike, plan.OpNotLike, plan.OpILike, plan.OpNotILike:
		return x.likeOp(ex, e)
	case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpMod:
		a, b, err := x.operands(ex.Args[0], ex.Args[1], e)
		if err != nil {
			return Null, err
		}
		if a.IsNull() || b.IsNull() {
			return Null, nil
		}
		if x.lite {
			return liteArith(ex.Name, a, b)
		}
		return arith(ex.Name, a, b)
	case plan.OpNeg:
		v, err := x.eval(ex.Args[0], e)
		if err != nil || v.IsNull() {
			return v, err
		}
		if x.lite {
			return liteArith("-", Int(0), v)
		}
		return negate(v)
	case plan.OpConcat:
		return x.concat(ex, e)
	case "in", "not in":
		return x.inList(ex, e)
	case "between", "not between", "between symmetric", "not between symmetric":
		return x.between(ex, e)
	}
	if v, ok, err := x.bitOp(ex, e); ok {
		return v, err
	}
	if v, ok, err := x.regexOp(ex, e); ok {
		return v, err
	}
	switch ex.Name {
	case plan.OpJSONField, plan.OpJSONText, plan.OpContains, plan.OpContainedBy, plan.OpJSONExists:
		if len(ex.Args) != 2 || x.lite {
			break
		}
		// Not operands: a key is text, never read as the document's type.
		a, err := x.eval(ex.Args[0], e)
		if err != nil {
			return Null, err
		}
		b, err := x.eval(ex.Args[1], e)
		if err != nil || a.IsNull() || b.IsNull() {
			return Null, err
		}
		return jsonbOp(ex.Name, a, b)
	}
	return Null, cannot("operator %q", ex.Name)
}

// andOr evaluates AND and OR: FALSE dominates AND and TRUE dominates OR;
// otherwise any NULL makes the result NULL.
func (x *executor) andOr(ex *plan.Expr, e *env) (Value, error) {
	isAnd := ex.Name == plan.OpAnd
	sawNull := false
	for _, a := range ex.Args {
		v, err := x.eval(a, e)
		if err != nil {
			return Null, err
		}
		b, null, err := x.boolVal(v)
		if err != nil {
			return Null, err
		}
		if null {
			sawNull = true
		} else if b != isAnd {
			return Bool(b), nil
		}
	}
	if sawNull {
		return Null, nil
	}
	return Bool(isAnd), nil
}

// isTruth evaluates IS [NOT] TRUE and IS [NOT] FALSE, which are never
// NULL.
func (x *executor) isTruth(ex *plan.Expr, e *env) (Value, error) {
	v, err := x.eval(ex.Args[0], e)
	if err != nil {
		return Null, err
	}
	b, null, err := x.boolVal(v)
	if err != nil {
		return Null, err
	}
	var r bool
	switch ex.Name {
	case plan.OpIsTrue:
		r = !null && b
	case plan.OpIsNotTrue:
		r = null || !b
	case plan.OpIsFalse:
		r = !null && !b
	default:
		r = null || b
	}
	return Bool(r), nil
}

// isDistinct evaluates IS [NOT] DISTINCT FROM: a comparison in which two
// NULLs are the same and a NULL differs from any value.
func (x *executor) isDistinct(ex *plan.Expr, e *env) (Value, error) {
	a, b, err := x.cmpOperands(ex.Args[0], ex.Args[1], e)
	if err != nil {
		return Null, err
	}
	same := a.IsNull() && b.IsNull()
	if !a.IsNull() && !b.IsNull() {
		c, err := x.compare(a, b)
		if err != nil {
			return Null, err
		}
		same = c == 0
	}
	return Bool(same == (ex.Name == plan.OpNotDistinc)), nil
}

// concat evaluates ||: PostgreSQL's anynonarray || text and text ||
// anynonarray, where a quoted literal is text, never read as the other
// operand's type (1 || 'a' is '1a').
func (x *executor) concat(ex *plan.Expr, e *env) (Value, error) {
	a, err := x.eval(ex.Args[0], e)
	if err != nil {
		return Null, err
	}
	b, err := x.eval(ex.Args[1], e)
	if err != nil {
		return Null, err
	}
	if a.IsNull() || b.IsNull() {
		return Null, nil
	}
	if x.lite {
		return Text(x.liteTextOf(a) + x.liteTextOf(b)), nil
	}
	return Text(textOf(a) + textOf(b)), nil
}

// inList: a IN (x, y) is a = x OR a = y in three-valued logic; NOT IN is
// its negation.
func (x *executor) inList(ex *plan.Expr, e *env) (Value, error) {
	if x.coll && x.lite {
		if err := x.inListColl(ex, e); err != nil {
			return Null, err
		}
	}
	terms := make([]*plan.Expr, 0, len(ex.Args)-1)
	for _, it := range ex.Args[1:] {
		terms = append(terms, plan.NewOp(plan.OpEq, catalog.Bool, ex.Args[0], it))
	}
	v, err := x.eval(plan.NewOp(plan.OpOr, catalog.Bool, terms...), e)
	if err != nil || ex.Name == "in" {
		return v, err
	}
	return not(v), nil
}

func (x *executor) between(ex *plan.Expr, e *env) (Value, error) {
	a, lo, hi := ex.Args[0], ex.Args[1], ex.Args[2]
	in := plan.NewOp(plan.OpAnd, catalog.Bool, plan.NewOp(plan.OpGe, catalog.Bool, a, lo), plan.NewOp(plan.OpLe, catalog.Bool, a, hi))
	if strings.HasSuffix(ex.Name, "symmetric") {
		swapped := plan.NewOp(plan.OpAnd, catalog.Bool, plan.NewOp(plan.OpGe, catalog.Bool, a, hi), plan.NewOp(plan.OpLe, catalog.Bool, a, lo))
		in = plan.NewOp(plan.OpOr, catalog.Bool, in, swapped)
	}
	v, err := x.eval(in, e)
	if err != nil || !strings.HasPrefix(ex.Name, "not") {
		return v, err
	}
	return not(v), nil
}

func (x *executor) caseExpr(ex *plan.Expr, e *env) (Value, error) {
	args := ex.Args
	var operand *plan.Expr
	if ex.CaseHasOperand {
		operand, args = args[0], args[1:]
	}
	var elseExpr *plan.Expr
	if ex.HasElse {
		elseExpr, args = args[len(args)-1], args[:len(args)-1]
	}
	if x.bp {
		// The result type is resolved from every branch (see bpchar.go).
		bp := x.mentionsBp(elseExpr)
		for i := 1; i < len(args); i += 2 {
			bp = bp || x.mentionsBp(args[i])
		}
		if bp {
			return Null, cannot("CASE with a char(n) result")
		}
	}
	for i := 0; i+1 < len(args); i += 2 {
		cond := args[i]
		if operand != nil {
			cond = plan.NewOp(plan.OpEq, catalog.Bool, operand, cond)
		}
		v, err := x.eval(cond, e)
		if err != nil {
			return Null, err
		}
		if b, null, err := x.boolVal(v); err != nil {
			return Null, err
		} else if b && !null {
			return x.eval(args[i+1], e)
		}
	}
	if elseExpr != nil {
		return x.eval(elseExpr, e)
	}
	return Null, nil
}
