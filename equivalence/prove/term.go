package prove

import (
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// A term is a scalar expression of the interpreted fragment, over
// variables. Variables are the columns of the plan (in the reference's
// namespace) and opaque subexpressions: anything outside the fragment
// (arithmetic, LIKE, function calls, ordered text comparisons) becomes one
// variable per distinct canonical text. Treating distinct opaque texts as
// independent values over-approximates the values a row can take, so a
// fact proved for every assignment holds for every row: the procedure is
// sound, and complete only for the interpreted fragment.
type term struct {
	op   string // var, const, and, or, not, cmp, isnull, notnull, distinct, notdistinct, istrue, isnottrue, isfalse, isnotfalse, case, coalesce, nullif, in, notin, castint
	cmp  string // for cmp: = <> < <= > >=
	cls  class  // the value class of the term's result
	v    int    // var index for var
	c    constVal
	args []*term
	// case: args are when1, then1, ..., [else]; hasElse says so.
	hasElse bool
	// strict opaque vars are NULL whenever one of strictArgs is NULL.
	strictArgs []*term
}

// class is a value class: values of one class compare with each other.
type class uint8

const (
	clsBool  class = iota
	clsNum         // int, numeric, float: ordered, compared as numbers
	clsDate        // dates: ordered, discrete (days)
	clsTime        // timestamps and times: ordered, treated as dense
	clsEq          // text and other types: only equality is interpreted
	clsCount       // number of classes
)

func classOf(t catalog.Type) (class, bool) {
	switch t {
	case catalog.Bool:
		return clsBool, true
	case catalog.Int, catalog.Numeric, catalog.Float:
		return clsNum, true
	case catalog.Date:
		return clsDate, true
	case catalog.Timestamp, catalog.Time:
		return clsTime, true
	case catalog.Text, catalog.UUID, catalog.Bytes, catalog.Interval, catalog.JSON:
		return clsEq, true
	}
	return 0, false
}

// constVal is a literal: num for clsNum and clsDate (days), str for the
// others. Bool constants are "true"/"false".
type constVal struct {
	null bool
	num  *big.Rat
	str  string
	// integral reports whether num is a whole number.
	integral bool
}

func (c constVal) key() string {
	switch {
	case c.null:
		return "null"
	case c.num != nil:
		return c.num.RatString()
	}
	return strconv.Quote(c.str)
}

// parseConst reads a literal of class cl; ok is false when its text is not
// understood, and the literal then stays opaque.
func parseConst(e *plan.Expr, cl class) (constVal, bool) {
	if e.Null {
		return constVal{null: true}, true
	}
	switch cl {
	case clsNum:
		r, ok := new(big.Rat).SetString(strings.TrimSpace(e.Value))
		if !ok {
			return constVal{}, false
		}
		return constVal{num: r, integral: r.IsInt()}, true
	case clsDate:
		d, err := time.Parse("2006-01-02", strings.TrimSpace(e.Value))
		if err != nil {
			return constVal{}, false
		}
		days := d.Unix() / 86400
		return constVal{num: new(big.Rat).SetInt64(days), integral: true}, true
	case clsBool:
		switch e.Value {
		case "true", "false":
			return constVal{str: e.Value}, true
		}
		return constVal{}, false
	case clsTime, clsEq:
		if cl == clsEq && strings.TrimRight(e.Value, " ") != e.Value {
			return constVal{}, false // equal to its trimmed self in char(n)
		}
		if !textIsValue(e) {
			return constVal{}, false
		}
		return constVal{str: e.Value}, true
	}
	return constVal{}, false
}

// textIsValue says whether constants of e's type whose texts differ hold
// different values, so that e's text may stand for its value: text (=
// under a deterministic collation compares the texts), and timestamps,
// times, uuids and bytea written the way PostgreSQL writes them (the
// planner rewrites the spellings it reads: '2020-1-1 1:00',
// 'A0EEBC99…'). An interval ('1 day' = '24 hours'), a json value or a
// spelling left as written may equal a constant of another text: it
// stays opaque (issue 33, item 4).
func textIsValue(e *plan.Expr) bool {
	switch e.Typ {
	case catalog.Text:
		return true
	case catalog.Timestamp, catalog.Time, catalog.UUID, catalog.Bytes:
		v, ok := exec.CanonicalLiteral(e.Typ, "", e.Value)
		return ok && v == e.Value
	}
	return false
}

// exprKey is the canonical text of e with columns renamed through col:
// equal keys mean equal values in every row. Commutative operators sort
// their operands. ok is false when e holds something the key cannot name
// (a subquery, a window call, an unmapped column).
func exprKey(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool)) (string, bool) {
	return exprKeySub(e, col, nil)
}

// subKeyer names a subquery expression for keys: equal names for
// subqueries proved to return the same value.
type subKeyer func(*plan.Expr) (string, bool)

// exprKeySub is exprKey that names subqueries through sub (none when nil).
func exprKeySub(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), sub subKeyer) (string, bool) {
	var b strings.Builder
	ok := writeKey(&b, e, col, sub)
	return b.String(), ok
}

func writeKey(b *strings.Builder, e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), sub subKeyer) bool {
	if e == nil {
		b.WriteString("nil")
		return true
	}
	switch e.Kind {
	case plan.ColRef:
		c, ok := col(e.Col)
		if !ok {
			return false
		}
		b.WriteString("#")
		b.WriteString(strconv.Itoa(int(c)))
		return true
	case plan.Const:
		if (e.Typ == catalog.Int || e.Typ == catalog.Numeric) && !e.Null {
			// 1 and 1.00 are one value; where the type shows (an output
			// column's), the column types are compared apart.
			if r, ok := new(big.Rat).SetString(strings.TrimSpace(e.Value)); ok {
				b.WriteString("num:" + r.RatString())
				return true
			}
		}
		b.WriteString(e.Typ.String())
		b.WriteString(":")
		if e.Null {
			b.WriteString("NULL")
		} else {
			b.WriteString(strconv.Quote(e.Value))
		}
		return true
	case plan.Param:
		// A parameter is one unknown value: equal only to itself, and
		// of its inferred type (the same $n typed apart in two queries
		// is not assumed to be one value).
		b.WriteString("param:" + e.Value + ":" + e.Typ.String())
		return true
	case plan.Subquery:
		if sub == nil {
			return false
		}
		k, ok := sub(e)
		b.WriteString(k)
		// The left operands of IN/ANY/ALL, keyed under the mapping.
		for _, a := range e.Args {
			b.WriteString(" ")
			if !writeKey(b, a, col, sub) {
				return false
			}
		}
		return ok
	case plan.WinFunc:
		return false
	}
	b.WriteString(strconv.Itoa(int(e.Kind)))
	b.WriteString(e.Name)
	b.WriteString(e.Typ.String())
	if e.Distinct {
		b.WriteString(" distinct")
	}
	if e.Star {
		b.WriteString("*")
	}
	if e.CaseHasOperand {
		b.WriteString(" operand")
	}
	if e.HasElse {
		b.WriteString(" else")
	}
	if e.Kind == plan.Cast && e.Value != "" {
		b.WriteString(" as " + e.Value) // numeric(10,2), float4: not the family's cast
	}
	b.WriteString("(")
	args := make([]string, 0, len(e.Args))
	for _, a := range e.Args {
		var ab strings.Builder
		if !writeKey(&ab, a, col, sub) {
			return false
		}
		args = append(args, ab.String())
	}
	if e.Kind == plan.Op && commutative(e.Name) {
		sort.Strings(args)
	}
	b.WriteString(strings.Join(args, ","))
	b.WriteString(")")
	if e.Filter != nil && !e.Filter.IsTrue() {
		b.WriteString(" filter ")
		if !writeKey(b, e.Filter, col, sub) {
			return false
		}
	}
	return true
}

func commutative(op string) bool {
	switch op {
	case plan.OpAnd, plan.OpOr, plan.OpEq, plan.OpNe, plan.OpAdd, plan.OpMul, plan.OpIsDistinct, plan.OpNotDistinc,
		plan.OpBitAnd, plan.OpBitOr, plan.OpBitXor:
		return true
	}
	return false
}

// volatile names functions whose value differs between calls, so two
// mentions are not the same value.
var volatile = sqltext.VolatileFuncs

// strictFuncs are functions that return NULL when any argument is NULL.
var strictFuncs = map[string]bool{"upper": true, "lower": true, "length": true, "char_length": true, "abs": true, "substring": true, "substr": true,
	"trim": true, "btrim": true, "ltrim": true, "rtrim": true, "extract": true, "date_part": true, "round": true, "floor": true, "ceil": true,
	"ceiling": true, "sqrt": true, "exp": true, "ln": true, "log": true, "power": true, "mod": true, "sign": true, "trunc": true, "date_trunc": true,
	"replace": true, "position": true, "strpos": true, "left": true, "right": true, "reverse": true, "initcap": true, "md5": true, "ascii": true,
	"timezone": true, "sin": true, "cos": true, "div": true, "lpad": true, "rpad": true, "encode": true, "decode": true}

// strictOps are operators that are NULL when an operand is NULL.
var strictOps = map[string]bool{plan.OpAdd: true, plan.OpSub: true, plan.OpMul: true, plan.OpDiv: true, plan.OpMod: true, plan.OpNeg: true,
	plan.OpLike: true, plan.OpILike: true, plan.OpNotLike: true, plan.OpNotILike: true, plan.OpSimilar: true, plan.OpConcat: true,
	plan.OpLt: true, plan.OpLe: true, plan.OpGt: true, plan.OpGe: true, plan.OpEq: true, plan.OpNe: true,
	plan.OpBitAnd: true, plan.OpBitOr: true, plan.OpBitXor: true, plan.OpBitNot: true, plan.OpIRegex: true,
	plan.OpJSONField: true, plan.OpJSONText: true, plan.OpContains: true, plan.OpContainedBy: true, plan.OpSubscript: true}

// dateValue folds a date-valued constant expression: a date literal,
// date('YYYY-MM-DD [+tz]'), and such a date plus or minus a whole number of
// years, months or days. PostgreSQL's date + interval is a timestamp at
// midnight, which compares with dates as the date does.
func dateValue(e *plan.Expr) (int64, bool) {
	switch e.Kind {
	case plan.Const:
		if e.Null || e.Typ != catalog.Date {
			return 0, false
		}
		return parseDateText(e.Value)
	case plan.Func:
		if e.Name == "date" && len(e.Args) == 1 && e.Args[0].Kind == plan.Const && !e.Args[0].Null {
			return parseDateText(e.Args[0].Value)
		}
	case plan.Cast:
		// Not a cast naming timestamptz (or a date of one): its instant
		// depends on the offset and the session's TimeZone.
		if (e.Typ == catalog.Date || e.Typ == catalog.Timestamp) && e.Value == "" && len(e.Args) == 1 && e.Args[0].Kind == plan.Const && !e.Args[0].Null {
			return parseDateText(e.Args[0].Value)
		}
	case plan.Op:
		if (e.Name == plan.OpAdd || e.Name == plan.OpSub) && len(e.Args) == 2 {
			d, ok := dateValue(e.Args[0])
			if !ok {
				return 0, false
			}
			y, m, dd, ok := intervalValue(e.Args[1])
			if !ok {
				return 0, false
			}
			if e.Name == plan.OpSub {
				y, m, dd = -y, -m, -dd
			}
			t := time.Unix(d*86400, 0).UTC()
			if (y != 0 || m != 0) && t.Day() > 28 {
				return 0, false // PostgreSQL clamps to the month's end; Go does not
			}
			t = t.AddDate(y, m, 0).AddDate(0, 0, dd)
			return t.Unix() / 86400, true
		}
	}
	return 0, false
}

func parseDateText(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 {
		return 0, false
	}
	d, err := time.Parse("2006-01-02", s[:10])
	if err != nil {
		return 0, false
	}
	rest := strings.TrimSpace(s[10:])
	if rest != "" {
		// A time-zone offset only: a date ignores it.
		if rest[0] != '+' && rest[0] != '-' {
			return 0, false
		}
		for _, r := range rest[1:] {
			if (r < '0' || r > '9') && r != ':' {
				return 0, false
			}
		}
	}
	return d.Unix() / 86400, true
}

// intervalValue reads 'n year|month|day' (or an int number of days).
func intervalValue(e *plan.Expr) (y, m, d int, ok bool) {
	if e.Kind == plan.Const && e.Typ == catalog.Int && !e.Null {
		n, err := strconv.Atoi(e.Value)
		return 0, 0, n, err == nil
	}
	if e.Kind == plan.Cast && e.Typ == catalog.Interval && len(e.Args) == 1 {
		e = e.Args[0]
	}
	if e.Kind != plan.Const || e.Null || (e.Typ != catalog.Text && e.Typ != catalog.Interval) {
		return 0, 0, 0, false
	}
	f := strings.Fields(strings.ToLower(e.Value))
	if len(f) != 2 {
		return 0, 0, 0, false
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, 0, 0, false
	}
	switch strings.TrimSuffix(f[1], "s") {
	case "year":
		return n, 0, 0, true
	case "month", "mon":
		return 0, n, 0, true
	case "day":
		return 0, 0, n, true
	case "week":
		return 0, 0, 7 * n, true
	}
	return 0, 0, 0, false
}
