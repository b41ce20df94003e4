package norm

import (
	"math"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Built-in operators and functions of literals, evaluated by the
// executor (planner/exec), which computes them with PostgreSQL's
// semantics or refuses (ErrCannotExecute, ErrQuery): a call is folded
// only where the executor answers, so what it cannot model exactly (a
// regex feature RE2 reads otherwise, json rather than jsonb, a
// timestamptz, whose value depends on the session's TimeZone) stays.
// Each rule names the operators it folds; evalFold is their one
// evaluator, and the result is written back as the literal PostgreSQL
// reads as that value of the call's exact type.

// foldConstRegex: 'monday' SIMILAR TO '_onday' ⇒ TRUE; s ~ p, s ~* p of
// text literals ⇒ the match (the executor translates the ARE or refuses
// the pattern; !~ and NOT SIMILAR TO are NOT of these, folded after).
func foldConstRegex(e *plan.Expr) (*plan.Expr, bool) {
	if e.Kind != plan.Op || e.Typ != catalog.Bool || len(e.Args) < 2 {
		return e, false
	}
	switch e.Name {
	case plan.OpRegex, plan.OpIRegex, plan.OpSimilar:
		return evalFold(e)
	}
	return e, false
}

// foldConstJSONB: '{"a": 1}'::jsonb -> 'a' ⇒ '1'::jsonb, and ->>, @>,
// <@, ? and - (an element removed by index) of jsonb literals; a jsonb literal is respelled as jsonb_out
// prints it ('[1,2]' ⇒ '[1, 2]'), so that equal documents read as one
// literal. json (not jsonb) keeps its text and is left alone.
func foldConstJSONB(e *plan.Expr) (*plan.Expr, bool) {
	if jsonbLiteral(e) {
		v, err := exec.ParseJSONB(e.Args[0].Value)
		if err != nil || v.S == e.Args[0].Value {
			return e, false
		}
		return jsonbConst(v.S), true
	}
	if e.Kind != plan.Op || len(e.Args) != 2 || !jsonbLiteral(e.Args[0]) {
		return e, false
	}
	switch e.Name {
	case plan.OpJSONField, plan.OpJSONText, plan.OpContains, plan.OpContainedBy, plan.OpJSONExists:
		return evalFold(e)
	case plan.OpSub:
		// jsonb - integer: an element removed.
		if e.Args[1].Typ == catalog.Int {
			return evalFold(e)
		}
	}
	return e, false
}

// foldConstDatetime: timestamp '2000-05-05 10:00' - timestamp
// '2000-05-06 10:00' ⇒ interval '-1 days'; - interval '-1 days' ⇒
// interval '1 day'; date '2018-07-01' + interval '7 days' ⇒ timestamp
// '2018-07-08 00:00:00': + and - of date, timestamp (without time zone)
// and interval literals and integers; date('1994-09-01') of a text
// literal ⇒ date '1994-09-01'.
func foldConstDatetime(e *plan.Expr) (*plan.Expr, bool) {
	if intervalLiteral(e) && intervalSessionFree(e.Args[0].Value) {
		return foldIntervalLiteral(e)
	}
	if e.Kind == plan.Func && e.Name == "date" && e.Typ == catalog.Date && len(e.Args) == 1 && e.Args[0].Typ == catalog.Text {
		// date('1994-09-01 +08'): date input of a text literal, in the
		// spellings the executor reads (year first, the same under
		// every DateStyle; a time or zone after the date is ignored).
		return evalFold(e)
	}
	if e.Kind != plan.Op || e.Name != plan.OpAdd && e.Name != plan.OpSub && e.Name != plan.OpNeg {
		return e, false
	}
	temporal := false
	for _, a := range e.Args {
		switch a.Typ {
		case catalog.Date, catalog.Timestamp, catalog.Interval:
			temporal = true
		case catalog.Int:
		default:
			return e, false
		}
	}
	if !temporal {
		return e, false
	}
	switch e.Typ {
	case catalog.Date, catalog.Timestamp, catalog.Interval, catalog.Int:
		return evalFold(e)
	}
	return e, false
}

// foldIntervalLiteral respells an interval literal as PostgreSQL prints
// its value ('2 hours' ⇒ '02:00:00', '24 hours' stays apart from
// '1 day': they are other values), where the executor reads it and both
// spellings read alike under every IntervalStyle.
func foldIntervalLiteral(e *plan.Expr) (*plan.Expr, bool) {
	if !intervalLiteral(e) {
		return e, false
	}
	v, err := exec.ParseInterval(e.Args[0].Value)
	if err != nil || v.String() == e.Args[0].Value {
		return e, false
	}
	return literalOf(v, e)
}

// intervalSessionFree says interval_in reads s alike under every
// IntervalStyle: under sql_standard, a leading minus sign applies to
// every field when no later field has a sign of its own (DecodeInterval:
// '-1 days 02:00:00' is then -1 day -2 hours, under postgres -1 day +2
// hours). PostgreSQL's output always signs the fields after a negative
// one ('-1 days +02:00:00').
func intervalSessionFree(s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 || strings.Contains(s, "@") {
		return false
	}
	if !strings.HasPrefix(words[0], "-") {
		return true
	}
	numbers := 0
	for i, w := range words {
		if i > 0 && (w[0] == '-' || w[0] == '+') {
			return true
		}
		if w[0] >= '0' && w[0] <= '9' || w[0] == '-' {
			numbers++
		}
	}
	return numbers <= 1
}

// foldConstIntOps: ~500 ⇒ -501; 5 & 3 ⇒ 1 (and |, #) of integer
// literals; div(1.333, 1.0) ⇒ 1 of numeric literals.
func foldConstIntOps(e *plan.Expr) (*plan.Expr, bool) {
	switch {
	case e.Kind == plan.Op && e.Typ == catalog.Int && len(e.Args) == 1 && e.Name == plan.OpBitNot,
		e.Kind == plan.Op && e.Typ == catalog.Int && len(e.Args) == 2 &&
			(e.Name == plan.OpBitAnd || e.Name == plan.OpBitOr || e.Name == plan.OpBitXor),
		e.Kind == plan.Func && e.Name == "div" && e.Typ == catalog.Numeric && len(e.Args) == 2:
		return evalFold(e)
	}
	return e, false
}

// evalFold evaluates e, every operand a literal (evalOperand), with the
// executor, and returns the literal of its value; false where the
// executor refuses, the call raises (it must still raise), or the value
// has no literal of e's exact type here.
func evalFold(e *plan.Expr) (*plan.Expr, bool) {
	for _, a := range e.Args {
		if !evalOperand(a) {
			return e, false
		}
	}
	v, err := exec.EvalConst(e)
	if err != nil {
		return e, false
	}
	return literalOf(v, e)
}

// evalOperand says a is a literal the executor reads exactly as
// PostgreSQL does, with an exact type the plan knows: an integer of
// int4's range (int8 literals would make the call's result int8, which
// the literal of its value may not be), a numeric, a text or boolean, a
// date or timestamp (without time zone: the planner writes timestamptz
// literals as casts, never as constants), and the casts of text literals
// to jsonb and interval. NULL is left to the rules that fold strict
// calls; floats are left alone (their output follows
// extra_float_digits).
func evalOperand(a *plan.Expr) bool {
	switch a.Kind {
	case plan.Const:
		if a.Null {
			return false
		}
		switch a.Typ {
		case catalog.Int:
			i, err := strconv.ParseInt(a.Value, 10, 64)
			return err == nil && i >= math.MinInt32 && i <= math.MaxInt32
		case catalog.Numeric, catalog.Text, catalog.Bool, catalog.Date, catalog.Timestamp:
			return true
		}
	case plan.Cast:
		return jsonbLiteral(a) || intervalLiteral(a) && intervalSessionFree(a.Args[0].Value)
	}
	return false
}

// jsonbLiteral: CAST('…' AS jsonb) of a text literal.
func jsonbLiteral(a *plan.Expr) bool {
	return a.Kind == plan.Cast && a.Typ == catalog.JSON && a.Value == "jsonb" && len(a.Args) == 1 &&
		a.Args[0].Kind == plan.Const && !a.Args[0].Null && a.Args[0].Typ == catalog.Text
}

// intervalLiteral: CAST('…' AS interval) of a text literal, without a
// field qualifier.
func intervalLiteral(a *plan.Expr) bool {
	return a.Kind == plan.Cast && a.Typ == catalog.Interval && a.Value == "" && len(a.Args) == 1 &&
		a.Args[0].Kind == plan.Const && !a.Args[0].Null && a.Args[0].Typ == catalog.Text
}

func jsonbConst(text string) *plan.Expr {
	return &plan.Expr{Kind: plan.Cast, Typ: catalog.JSON, Value: "jsonb", Args: []*plan.Expr{plan.NewConst(catalog.Text, text)}, Pos: -1}
}

// literalOf writes v, the value of e, as a literal of e's exact type,
// spelled as PostgreSQL prints that value (the spelling the planner
// gives a literal written that way). A timestamp with time zone, a
// char(n) text and a float have none here.
func literalOf(v exec.Value, e *plan.Expr) (*plan.Expr, bool) {
	switch {
	case v.K == exec.KBool && e.Typ == catalog.Bool:
		return plan.NewBool(v.B), true
	case v.K == exec.KInt && e.Typ == catalog.Int:
		// The operands are int4 (evalOperand), so the call is int4 (or
		// raised on overflow, which the executor reports); so is the
		// literal of a value in int4's range.
		if v.I < math.MinInt32 || v.I > math.MaxInt32 {
			return e, false
		}
		return plan.NewConst(catalog.Int, v.String()), true
	case v.K == exec.KNumeric && e.Typ == catalog.Numeric:
		return plan.NewConst(catalog.Numeric, v.String()), true
	case v.K == exec.KText && e.Typ == catalog.Text && !v.B:
		return plan.NewConst(catalog.Text, v.S), true
	case v.K == exec.KDate && e.Typ == catalog.Date:
		return plan.NewConst(catalog.Date, v.String()), true
	case v.K == exec.KTimestamp && !v.B && e.Typ == catalog.Timestamp:
		return plan.NewConst(catalog.Timestamp, v.String()), true
	case v.K == exec.KInterval && e.Typ == catalog.Interval:
		s := v.String()
		// The output text must read back as the value (interval_in of
		// IntervalStyle postgres's output), under every IntervalStyle.
		if back, err := exec.ParseInterval(s); err != nil || back.String() != s || !intervalSessionFree(s) {
			return e, false
		}
		return &plan.Expr{Kind: plan.Cast, Typ: catalog.Interval, Args: []*plan.Expr{plan.NewConst(catalog.Text, s)}, Pos: -1}, true
	case v.K == exec.KJSON && e.Typ == catalog.JSON:
		return jsonbConst(v.S), true
	}
	return e, false
}
