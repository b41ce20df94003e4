package exec

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// fn evaluates the scalar functions whose PostgreSQL behaviour is
// modelled exactly; any other is ErrCannotExecute.
func (x *executor) fn(ex *plan.Expr, e *env) (Value, error) {
	if f, ok := x.funcs[ex.Name]; ok {
		args := make([]Value, len(ex.Args))
		for i, a := range ex.Args {
			v, err := x.eval(a, e)
			if err != nil {
				return Null, err
			}
			args[i] = v
		}
		return f(args)
	}
	if sqltext.VolatileFuncs[ex.Name] {
		// Any value would be made up: a counterexample must not rest on
		// one (issue 18, cause 13).
		return Null, cannot("volatile function %s", ex.Name)
	}
	args := make([]Value, len(ex.Args))
	if x.bp && (ex.Name == "coalesce" || ex.Name == "greatest" || ex.Name == "least") {
		// The result type is resolved from every argument (see bpchar.go).
		for _, a := range ex.Args {
			if x.mentionsBp(a) {
				return Null, cannot("%s with a char(n) argument", ex.Name)
			}
		}
	}
	// coalesce evaluates lazily: later arguments may raise errors that
	// the database never reaches.
	if ex.Name == "coalesce" {
		for _, a := range ex.Args {
			v, err := x.eval(a, e)
			if err != nil || !v.IsNull() {
				return v, err
			}
		}
		return Null, nil
	}
	for i, a := range ex.Args {
		v, err := x.eval(a, e)
		if err != nil {
			return Null, err
		}
		args[i] = v
	}
	if x.bp && ex.Name != "nullif" {
		if v, done, err := bpFuncArgs(ex.Name, args); err != nil || done {
			return v, err
		}
	}
	switch ex.Name {
	case "nullif":
		if len(args) == 2 {
			return x.nullif(ex, e)
		}
	case "greatest", "least":
		return x.extremum(ex.Name, args)
	case "concat":
		return x.concatFunc(args), nil
	}
	for _, v := range args {
		if v.IsNull() {
			if _, known := strictFuncs[ex.Name]; known || x.lite && liteFuncs[ex.Name] != nil {
				return Null, nil
			}
			return Null, cannot("function %s", ex.Name)
		}
	}
	f, ok := strictFuncs[ex.Name]
	if x.lite {
		f, ok = liteFuncs[ex.Name]
		// SQLite's string functions read a number as its text (date()
		// as a day number, abs() and round() as a number).
		if ex.Name == "round" && liteRoundVaries(args) {
			x.nondet = true
		}
		if ex.Name != "abs" && ex.Name != "round" && ex.Name != "date" {
			for _, v := range args {
				if liteTextVaries(v) {
					x.nondet = true
				}
			}
		}
	}
	if !ok {
		return Null, cannot("function %s", ex.Name)
	}
	return f(args)
}

// nullif evaluates NULLIF(a, b): NULL when a = b, else a.
func (x *executor) nullif(ex *plan.Expr, e *env) (Value, error) {
	a, b, err := x.cmpOperands(ex.Args[0], ex.Args[1], e)
	if err != nil {
		return Null, err
	}
	if x.bp && a.K == KText && a.B && !x.bpNullifSecond(ex.Args[1]) {
		// NULLIF returns the = operator's first operand, which
		// PostgreSQL casts to text when the second is text.
		return Null, cannot("nullif of char(n) and another type")
	}
	eq, err := x.cmpOp(plan.OpEq, a, b)
	if err != nil {
		return Null, err
	}
	if eq.K == KBool && eq.B {
		return Null, nil
	}
	return a, nil
}

// extremum evaluates greatest and least. NULL arguments are ignored; the
// result is NULL only if all are. SQLite's scalar max/min (which the
// planner spells greatest and least) are NULL if any argument is.
func (x *executor) extremum(name string, args []Value) (Value, error) {
	var best Value
	for _, v := range args {
		if v.IsNull() && x.lite {
			return Null, nil
		}
		if v.IsNull() {
			continue
		}
		if best.IsNull() {
			best = v
			continue
		}
		c, err := x.compare(v, best)
		if err != nil {
			return Null, err
		}
		if (name == "greatest" && c > 0) || (name == "least" && c < 0) {
			best = v
		}
	}
	return best, nil
}

// concatFunc evaluates concat(...), which skips NULL arguments.
func (x *executor) concatFunc(args []Value) Value {
	var b strings.Builder
	for _, v := range args {
		if !v.IsNull() && x.lite {
			b.WriteString(x.liteTextOf(v))
		} else if !v.IsNull() {
			b.WriteString(v.String())
		}
	}
	return Text(b.String())
}

// strictFuncs return NULL on any NULL argument (checked by the caller).
var strictFuncs = map[string]func([]Value) (Value, error){
	"lower": text1(asciiLower),
	"upper": text1(func(s string) string {
		b := []byte(s)
		for i, c := range b {
			if 'a' <= c && c <= 'z' {
				b[i] = c - 'a' + 'A'
			}
		}
		return string(b)
	}),
	"regexp_replace": pgRegexpReplace, // regex_funcs.go
	"regexp_like":    pgRegexpLike,
	"substring":      pgRegexSubstring,
	"length":         textLen,
	"char_length":    textLen,
	"substr":         pgSubstr,
	"date":           pgDate,
	"abs": func(a []Value) (Value, error) {
		if len(a) != 1 {
			return Null, cannot("abs of %d arguments", len(a))
		}
		v := a[0]
		switch v.K {
		case KInt:
			if v.I < 0 {
				return negate(v)
			}
			return v, nil
		case KNumeric:
			return NumericRat(new(big.Rat).Abs(v.R), v.Scale), nil
		case KFloat:
			return Value{K: KFloat, F: math.Abs(v.F), B: v.B}, nil // abs(real) is real
		}
		return Null, cannot("abs of %s", kindName(v.K))
	},
	"round": func(a []Value) (Value, error) {
		if len(a) < 1 || len(a) > 2 || a[0].K != KNumeric && a[0].K != KInt {
			return Null, cannot("round of these arguments")
		}
		scale := int64(0)
		if len(a) == 2 {
			if a[1].K != KInt || a[1].I < 0 || a[1].I > 1000 {
				return Null, cannot("round to this scale")
			}
			scale = a[1].I
		}
		v := toNumeric(a[0])
		return NumericRat(roundRat(v.R, int32(scale)), int32(scale)), nil
	},
	"strpos": func(a []Value) (Value, error) {
		if len(a) != 2 || a[0].K != KText || a[1].K != KText {
			return Null, cannot("strpos of these arguments")
		}
		i := strings.Index(a[0].S, a[1].S)
		if i < 0 {
			return Int(0), nil
		}
		return Int(int64(utf8.RuneCountInString(a[0].S[:i]) + 1)), nil
	},
	"replace": func(a []Value) (Value, error) {
		if len(a) != 3 || a[0].K != KText || a[1].K != KText || a[2].K != KText {
			return Null, cannot("replace of these arguments")
		}
		if a[1].S == "" {
			return a[0], nil
		}
		return Text(strings.ReplaceAll(a[0].S, a[1].S, a[2].S)), nil
	},
	"div": pgDiv, // numfuncs.go
	"mod": func(a []Value) (Value, error) {
		if len(a) != 2 {
			return Null, cannot("mod of %d arguments", len(a))
		}
		return arith("%", a[0], a[1])
	},
}

func text1(f func(string) string) func([]Value) (Value, error) {
	return func(a []Value) (Value, error) {
		if len(a) != 1 || a[0].K != KText {
			return Null, cannot("text function of these arguments")
		}
		return Text(f(a[0].S)), nil
	}
}

func textLen(a []Value) (Value, error) {
	if len(a) != 1 || a[0].K != KText {
		return Null, cannot("length of these arguments")
	}
	return Int(int64(utf8.RuneCountInString(a[0].S))), nil
}

// cast converts v to type t as PostgreSQL's casts do: numeric and float
// to integer round half away from zero (float: half to even), text parses
// as input, anything becomes text in its output form.
func cast(v Value, t catalog.Type) (Value, error) {
	if v.IsNull() {
		return Null, nil
	}
	if v.K == KText && v.B {
		if t != catalog.Text {
			return Null, cannot("cast of char(n) to %s", t)
		}
		return Text(stripBlanks(v.S)), nil
	}
	if v.K == KTimestamp && v.B {
		return Null, cannot("cast of timestamp with time zone to %s (depends on the session's TimeZone)", t)
	}
	if t == catalog.Timestamp || t == catalog.Interval || v.K == KTimestamp || v.K == KInterval {
		return temporalCast(v, t)
	}
	switch t {
	case catalog.Text:
		return Text(v.String()), nil
	case catalog.Int:
		switch v.K {
		case KInt:
			return v, nil
		case KNumeric:
			r := roundRat(v.R, 0)
			if !r.Num().IsInt64() {
				return Null, queryErr("integer out of range")
			}
			return Int(r.Num().Int64()), nil
		case KFloat:
			f := math.RoundToEven(v.F)
			if math.IsNaN(f) || f < math.MinInt64 || f >= math.MaxInt64 {
				return Null, queryErr("integer out of range")
			}
			return Int(int64(f)), nil
		case KText:
			return Parse(t, v.S)
		case KBool:
			return Int(b2i(v.B)), nil
		}
	case catalog.Numeric:
		switch v.K {
		case KInt, KNumeric:
			return toNumeric(v), nil
		case KFloat:
			if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
				return Null, cannot("non-finite float to numeric")
			}
			// float8 → numeric keeps 15 significant digits, float4 6.
			if v.B {
				return Numeric(strconv.FormatFloat(v.F, 'g', 6, 32))
			}
			return Numeric(strconv.FormatFloat(v.F, 'g', 15, 64))
		case KText:
			return Parse(t, v.S)
		}
	case catalog.Float:
		switch v.K {
		case KInt, KNumeric, KFloat:
			f, _ := v.float()
			return Float(f), nil // a real widens exactly
		case KText:
			return Parse(t, v.S)
		}
	case catalog.Bool:
		switch v.K {
		case KBool:
			return v, nil
		case KInt:
			return Bool(v.I != 0), nil
		case KText:
			return Parse(t, v.S)
		}
	case catalog.Date:
		switch v.K {
		case KDate:
			return v, nil
		case KText:
			return Parse(t, v.S)
		}
	case catalog.UUID:
		if v.K == KText {
			return ParseUUID(v.S) // a uuid is its canonical text (uuid.go)
		}
	}
	return Null, cannot("cast of %s to %s", kindName(v.K), t)
}
