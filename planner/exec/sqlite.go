package exec

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// SQLite's storage classes: a stored or computed value is NULL, INTEGER,
// REAL, TEXT or BLOB. In SQLite mode the executor keeps numbers as KInt or
// KFloat only (never KNumeric), booleans as KBool but treated as 0/1, and
// dates and timestamps as text, which is how SQLite stores them.

// affinity is a column's (or a CAST's) type affinity, which decides the
// conversions SQLite applies before a comparison.
type affinity uint8

const (
	affNone affinity = iota
	affNumeric
	affText
)

func typeAffinity(t catalog.Type) affinity {
	switch t {
	case catalog.Text:
		return affText
	case catalog.Int, catalog.Numeric, catalog.Float, catalog.Bool, catalog.Date, catalog.Timestamp:
		return affNumeric
	}
	return affNone
}

// exprAffinity: a base-table column has its declared affinity, a
// subquery's or compound's column the one derivedAffinity gives it, a
// CAST its target's, a scalar subquery its column's; every other
// expression (literals, arithmetic, aggregates) has none, as in SQLite.
func (x *executor) exprAffinity(e *plan.Expr) affinity {
	switch e.Kind {
	case plan.ColRef:
		return x.colAffinity(e.Col)
	case plan.Cast:
		return typeAffinity(e.Typ)
	case plan.Subquery:
		if cols := e.Sub.OutCols(); e.SubKind == plan.SubScalar && len(cols) == 1 {
			return x.colAffinity(cols[0])
		}
	}
	return affNone
}

func (x *executor) colAffinity(id plan.ColumnID) affinity {
	if int(id) >= len(x.meta.Columns) {
		return affNone
	}
	c := x.meta.Col(id)
	if c.Instance < 0 {
		if !x.lite {
			return affNone
		}
		return x.derivedAffinity(id) // affMixed: see liteCmp
	}
	return typeAffinity(c.Type)
}

// ParseSQLite reads the text form of a value as SQLite stores it in a
// column of type t: a column with numeric affinity keeps a well-formed
// number as INTEGER (also when it is a whole REAL, as NUMERIC affinity
// does) or REAL and anything else as TEXT; a text column keeps text.
func ParseSQLite(t catalog.Type, s string) (Value, error) {
	if typeAffinity(t) == affNumeric {
		if v, ok := liteNumber(s, true); ok {
			return liteStore(v), nil
		}
		if t == catalog.Bool {
			if b, err := Parse(catalog.Bool, s); err == nil {
				return Int(b2i(b.B)), nil
			}
		}
	}
	return Text(s), nil
}

// liteStore converts a number to its NUMERIC-affinity storage: a REAL
// without fractional part that fits becomes INTEGER.
func liteStore(v Value) Value {
	if v.K == KFloat && v.F == math.Trunc(v.F) && math.Abs(v.F) < 1<<62 {
		return Int(int64(v.F))
	}
	return v
}

// liteValue maps a value built for PostgreSQL's model onto SQLite's
// storage classes: numerics become INTEGER when whole, else REAL; dates
// and timestamps become their text ('2020-01-02 03:04:05'), which is how
// SQLite stores a DATE or DATETIME column's values.
func liteValue(v Value) Value {
	switch v.K {
	case KNumeric:
		if v.R.IsInt() && v.R.Num().IsInt64() {
			return Int(v.R.Num().Int64())
		}
		f, _ := v.R.Float64()
		return Float(f)
	case KDate:
		return Text(v.String())
	case KTimestamp:
		if !v.B { // a timestamptz's text depends on the session's TimeZone
			return Text(v.String())
		}
	}
	return v
}

// needsLite reports whether a stored row holds a value liteValue changes.
func needsLite(row []Value) bool {
	for _, v := range row {
		if v.K == KNumeric || v.K == KDate || v.K == KTimestamp {
			return true
		}
	}
	return false
}

// liteRow is row with every value in SQLite's storage classes.
func liteRow(row []Value) []Value {
	out := make([]Value, len(row))
	for i, v := range row {
		out[i] = liteValue(v)
	}
	return out
}

// ForSQLite returns db with its values in SQLite's storage classes, as
// every scan in SQLite mode would convert them: a database executed many
// times (a search runs two plans on it; a correlated subquery scans a
// table per outer row) is then converted once. Rows that need nothing are
// shared with db.
func ForSQLite(db Database) Database {
	out := make(Database, len(db))
	for name, rows := range db {
		var conv [][]Value
		var block []Value // the converted rows' values, one allocation
		for i, row := range rows {
			if !needsLite(row) {
				continue
			}
			if conv == nil {
				conv = append([][]Value(nil), rows...)
				block = make([]Value, 0, len(row)*(len(rows)-i))
			}
			if cap(block)-len(block) < len(row) {
				block = make([]Value, 0, len(row)*(len(rows)-i))
			}
			start := len(block)
			for _, v := range row {
				block = append(block, liteValue(v))
			}
			conv[i] = block[start:len(block):len(block)]
		}
		if conv == nil {
			conv = rows
		}
		out[name] = conv
	}
	return out
}

// liteConst reads a literal as SQLite does: a number with a point or an
// exponent is REAL, other numbers INTEGER (REAL when too large).
func liteConst(t catalog.Type, s string) (Value, error) {
	switch t {
	case catalog.Int, catalog.Numeric, catalog.Float:
		if v, ok := liteNumber(s, true); ok {
			if v.K == KInt && strings.ContainsAny(s, ".eE") {
				return Float(float64(v.I)), nil
			}
			return v, nil
		}
	case catalog.Bool:
		b, err := Parse(t, s)
		if err != nil {
			return Null, err
		}
		return Int(b2i(b.B)), nil
	case catalog.Date, catalog.Timestamp:
		return Text(s), nil
	}
	return Parse(t, s)
}

// liteNumber parses s as a number. whole requires the entire text (less
// surrounding spaces) to be a number, as affinity conversion does;
// otherwise the longest numeric prefix counts, as arithmetic and CAST do.
func liteNumber(s string, whole bool) (Value, bool) {
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits, isReal := 0, false
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
		digits++
	}
	if i < len(t) && t[i] == '.' {
		isReal = true
		i++
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return Null, false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		j := i + 1
		if j < len(t) && (t[j] == '+' || t[j] == '-') {
			j++
		}
		k := j
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		if k > j {
			isReal, i = true, k
		}
	}
	num, rest := t[:i], t[i:]
	if whole && strings.TrimRight(rest, " \t\n\r\f\v") != "" {
		return Null, false
	}
	if !isReal {
		if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			return Int(n), true
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil && !math.IsInf(f, 0) {
		return Null, false
	}
	return Float(f), true
}

// liteNum converts an arithmetic operand to a number: booleans are 0/1,
// text its numeric prefix (0 when there is none).
func liteNum(v Value) (Value, error) {
	switch v.K {
	case KInt, KFloat, KNull:
		return v, nil
	case KNumeric, KDate:
		return liteNum(liteValue(v))
	case KBool:
		return Int(b2i(v.B)), nil
	case KText:
		if n, ok := liteNumber(v.S, false); ok {
			return n, nil
		}
		return Int(0), nil
	}
	return Null, cannot("SQLite number from %s", kindName(v.K))
}

// liteText is SQLite's text form of a value: REALs with 15 significant
// digits and always a point or exponent ("20.0", "1.0e+20").
func liteText(v Value) string {
	switch v.K {
	case KFloat:
		return liteFloatText(v.F)
	case KBool:
		return strconv.FormatInt(b2i(v.B), 10)
	case KNumeric, KDate:
		return liteText(liteValue(v))
	}
	return v.String()
}

func liteFloatText(f float64) string { return catalog.SQLiteRealText(f) }

// liteTextVaries says whether v is a number whose text SQLite versions
// write differently (catalog.SQLiteRealTextVaries): 0.1 + 0.2 is '0.3'
// in SQLite 3.40 and '0.30000000000000004' from 3.43 on, 1e16 '1.0e+16'
// and '10000000000000000.0'.
func liteTextVaries(v Value) bool {
	var f float64
	switch v.K {
	case KFloat:
		f = v.F
	case KNumeric:
		if v.R == nil || v.R.IsInt() {
			return false
		}
		f, _ = v.R.Float64()
	default:
		return false
	}
	return catalog.SQLiteRealTextVaries(f)
}

// liteTextOf is liteText(v) for x's result: where SQLite versions write
// v differently, the result is the version's choice, which makes it
// nondeterministic (a database it differs on shows no counterexample).
func (x *executor) liteTextOf(v Value) string {
	if v.K == KFloat {
		text, varies := catalog.SQLiteRealTextOf(v.F)
		x.nondet = x.nondet || varies
		return text
	}
	if liteTextVaries(v) {
		x.nondet = true
	}
	return liteText(v)
}

// noteTextAffinity marks x's result nondeterministic where SQLite would
// write one of a comparison's numbers as text (TEXT affinity on the
// other side) and versions write it differently.
func (x *executor) noteTextAffinity(aa, ab affinity, va, vb Value) {
	if (aa == affText && ab == affNone && liteTextVaries(vb)) || (ab == affText && aa == affNone && liteTextVaries(va)) {
		x.nondet = true
	}
}

// liteResultRow turns the booleans of a SQLite result row into the
// integers SQLite returns: it has no boolean storage class (TRUE is 1, a
// comparison yields 0 or 1), so SELECT a = b and SELECT CASE WHEN a = b
// THEN 1 ELSE 0 END return the same rows, and a counterexample shows what
// SQLite shows.
func liteResultRow(row []Value) {
	for i, v := range row {
		if v.K == KBool {
			row[i] = Int(b2i(v.B))
		}
	}
}

// liteApply converts v as applying affinity a does before a comparison:
// numeric affinity turns well-formed numeric text into a number, text
// affinity turns numbers into text.
func liteApply(a affinity, v Value) Value {
	switch a {
	case affNumeric:
		if v.K == KText {
			if n, ok := liteNumber(v.S, true); ok {
				return n
			}
		}
	case affText:
		if v.K == KInt || v.K == KFloat || v.K == KBool {
			return Text(liteText(v))
		}
	}
	return v
}

// liteCmpOperands applies SQLite's comparison affinity rules: when one
// side has numeric affinity and the other text or none, the other gets
// numeric affinity; when one has text and the other none, the other gets
// text affinity.
func liteCmpOperands(aa, ab affinity, va, vb Value) (Value, Value) {
	switch {
	case aa == affNumeric && ab != affNumeric:
		vb = liteApply(affNumeric, vb)
	case ab == affNumeric && aa != affNumeric:
		va = liteApply(affNumeric, va)
	case aa == affText && ab == affNone:
		vb = liteApply(affText, vb)
	case ab == affText && aa == affNone:
		va = liteApply(affText, va)
	}
	return va, vb
}

// liteCompare orders two non-NULL values as SQLite does: numbers (and
// booleans as 0/1) before text, numbers numerically, text bytewise
// (BINARY collation).
func liteCompare(a, b Value) (int, error) {
	class := func(v Value) (Value, int, error) {
		switch v.K {
		case KInt, KFloat:
			return v, 1, nil
		case KBool, KNumeric:
			n, err := liteNum(v)
			return n, 1, err
		case KText:
			return v, 2, nil
		case KDate:
			return Text(v.String()), 2, nil
		}
		return v, 0, cannot("SQLite comparison of %s", kindName(v.K))
	}
	a, ca, err := class(a)
	if err != nil {
		return 0, err
	}
	b, cb, err := class(b)
	if err != nil {
		return 0, err
	}
	if ca != cb {
		return cmpInt(int64(ca), int64(cb)), nil
	}
	if ca == 2 {
		if c, ok, err := compareColl(a, b); ok {
			return c, err
		}
		return strings.Compare(a.S, b.S), nil
	}
	if a.K == KInt && b.K == KInt {
		return cmpInt(a.I, b.I), nil
	}
	// An INTEGER and a REAL compare exactly, as SQLite does: as floats
	// when both are exact in a float64 (the usual case, and no big.Rat
	// to allocate), else as rationals.
	if fa, ok := exactFloat(a); ok {
		if fb, ok := exactFloat(b); ok {
			return cmpFloat(fa, fb), nil
		}
	}
	ra, rb := liteRat(a), liteRat(b)
	if ra == nil || rb == nil {
		x, _ := a.float()
		y, _ := b.float()
		return cmpFloat(x, y), nil
	}
	return ra.Cmp(rb), nil
}

// exactFloat is a finite REAL, or an INTEGER a float64 holds exactly.
func exactFloat(v Value) (float64, bool) {
	switch v.K {
	case KFloat:
		return v.F, !math.IsInf(v.F, 0) && !math.IsNaN(v.F)
	case KInt:
		return float64(v.I), v.I >= -1<<53 && v.I <= 1<<53
	}
	return 0, false
}

func liteRat(v Value) *big.Rat {
	if v.K == KInt {
		return new(big.Rat).SetInt64(v.I)
	}
	if math.IsInf(v.F, 0) || math.IsNaN(v.F) {
		return nil
	}
	return new(big.Rat).SetFloat64(v.F)
}

// liteArith applies + - * / % as SQLite does: operands become numbers;
// INTEGER op INTEGER stays INTEGER (division truncates) unless + - *
// overflow, which yields REAL; division or remainder by zero is NULL; %
// works on the operands cast to INTEGER and is REAL if either was REAL.
func liteArith(op string, a, b Value) (Value, error) {
	a, err := liteNum(a)
	if err != nil {
		return Null, err
	}
	if b, err = liteNum(b); err != nil {
		return Null, err
	}
	if a.K == KInt && b.K == KInt {
		x, y := a.I, b.I
		switch op {
		case "/", "%":
			if y == 0 {
				return Null, nil
			}
			if x == math.MinInt64 && y == -1 {
				if op == "%" {
					return Int(0), nil
				}
				return Float(-float64(x)), nil
			}
			if op == "/" {
				return Int(x / y), nil
			}
			return Int(x % y), nil
		}
		v, err := intArith(op, x, y)
		if err == nil {
			return v, nil
		}
		fx, fy := float64(x), float64(y)
		return liteArith(op, Float(fx), Float(fy))
	}
	x, _ := a.float()
	y, _ := b.float()
	switch op {
	case "+":
		return Float(x + y), nil
	case "-":
		return Float(x - y), nil
	case "*":
		return Float(x * y), nil
	case "/":
		if y == 0 {
			return Null, nil
		}
		return Float(x / y), nil
	case "%":
		ix, okx := liteToInt(x)
		iy, oky := liteToInt(y)
		if !okx || !oky {
			return Null, cannot("SQLite remainder of out-of-range REAL")
		}
		if iy == 0 {
			return Null, nil
		}
		if iy == -1 {
			return Float(0), nil
		}
		return Float(float64(ix % iy)), nil
	}
	return Null, cannot("SQLite operator %s", op)
}

// liteToInt truncates a REAL toward zero as CAST(x AS INTEGER) does.
func liteToInt(f float64) (int64, bool) {
	if math.IsNaN(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

// liteTruth is a value's truth in a WHERE clause or a logical operator:
// numbers are true when non-zero, text by its numeric prefix.
func liteTruth(v Value) (b, null bool, err error) {
	switch v.K {
	case KNull:
		return false, true, nil
	case KBool:
		return v.B, false, nil
	}
	n, err := liteNum(v)
	if err != nil {
		return false, false, err
	}
	f, _ := n.float()
	return f != 0, false, nil
}

// liteCast converts v as SQLite's CAST does.
func liteCast(v Value, t catalog.Type) (Value, error) {
	if v.IsNull() {
		return Null, nil
	}
	switch t {
	case catalog.Text:
		return Text(liteText(v)), nil
	case catalog.Int:
		n, err := liteNum(v)
		if err != nil {
			return Null, err
		}
		if n.K == KFloat {
			if math.IsNaN(n.F) {
				return Int(0), nil
			}
			switch {
			case n.F <= math.MinInt64:
				return Int(math.MinInt64), nil
			case n.F >= math.MaxInt64:
				return Int(math.MaxInt64), nil
			}
			return Int(int64(n.F)), nil
		}
		return n, nil
	case catalog.Float:
		n, err := liteNum(v)
		if err != nil {
			return Null, err
		}
		f, _ := n.float()
		return Float(f), nil
	case catalog.Numeric:
		n, err := liteNum(v)
		if err != nil {
			return Null, err
		}
		return liteStore(n), nil
	}
	return Null, cannot("SQLite cast of %s to %s", kindName(v.K), t)
}

// liteRound is SQLite's round(x, n): always REAL, halves away from zero
// on the value's 15-significant-digit decimal form.
func liteRound(a []Value) (Value, error) {
	f, n, done, err := liteRoundArgs(a)
	if err != nil {
		return Null, err
	}
	return liteRoundText(f, n, done)
}

// liteRoundText is SQLite 3.40's rounding of f to n digits: of its
// 15-digit text; done (liteRoundArgs) returns f as it is.
func liteRoundText(f float64, n int32, done bool) (Value, error) {
	if done {
		return Float(f), nil
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', 15, 64))
	if !ok {
		return Null, cannot("round of %v", f)
	}
	out, _ := roundRat(r, n).Float64()
	return Float(out), nil
}

// liteRoundArgs reads round()'s arguments: the number and the digits;
// done says the number is its own rounding (infinite, NaN, or 1e15 and
// beyond, which SQLite returns as is).
func liteRoundArgs(a []Value) (f float64, n int32, done bool, err error) {
	if len(a) < 1 || len(a) > 2 {
		return 0, 0, true, cannot("round of %d arguments", len(a))
	}
	if len(a) == 2 {
		d, err := liteNum(a[1])
		if err != nil {
			return 0, 0, true, err
		}
		if d.K != KInt {
			return 0, 0, true, cannot("round to a REAL number of digits")
		}
		n = int32(max(min(d.I, 30), 0))
	}
	v, err := liteNum(a[0])
	if err != nil {
		return 0, 0, true, err
	}
	f, _ = v.float()
	return f, n, math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) >= 1e15, nil
}

// liteRoundVaries says whether SQLite versions round a differently:
// 3.40 (liteRound) rounds the number's 15-digit text, so round(2.675, 2)
// is 2.68; 3.43 and later round the binary value itself, 2.67499999...,
// to 2.67.
//
// 3.40 also returns a number from 1e15 on as it is, where 3.43 rounds it
// too (round(1e15 + 0.5) is 1000000000000001.0).
func liteRoundVaries(a []Value) bool {
	f, n, done, err := liteRoundArgs(a)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	v40, err := liteRoundText(f, n, done)
	if err != nil {
		return false
	}
	exact, _ := roundRat(new(big.Rat).SetFloat64(f), n).Float64()
	return v40.F != exact
}
