package exec

import (
	"math"
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
