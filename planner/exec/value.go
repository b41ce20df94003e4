package exec

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// ErrCannotExecute reports a construct the executor does not model
// exactly. Callers must treat the query's result as unknown.
var ErrCannotExecute = errors.New("exec: cannot execute")

// ErrQuery reports an error the database itself would raise for this
// query and data (overflow, division by zero, a scalar subquery with more
// than one row). Two queries that both fail this way agree.
var ErrQuery = errors.New("exec: query error")

func cannot(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCannotExecute, fmt.Sprintf(format, args...))
}

func queryErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrQuery, fmt.Sprintf(format, args...))
}

// Kind is the runtime type of a Value.
type Kind uint8

// Value kinds.
const (
	KNull Kind = iota
	KInt
	KNumeric
	KFloat
	KText
	KBool
	KDate
	KTimestamp // see datetime.go
	KInterval
	KJSON // jsonb, see jsonb.go
)

// Value is one SQL value. Numeric values are exact rationals carrying the
// display scale PostgreSQL tracks, because division and AVG round to a
// scale derived from their operands' scales.
//
// The small fields come first so that they share one word: a Value is 48
// bytes instead of 64, and generated databases, intermediate relations
// and results are slices of them.
type Value struct {
	K     Kind
	B     bool     // KBool
	Scale int32    // KNumeric display scale
	I     int64    // KInt; KDate as days since 1970-01-01
	R     *big.Rat // KNumeric
	F     float64  // KFloat
	S     string   // KText
	// B on a KText value marks PostgreSQL's char(n) (bpchar): S is then
	// blank-padded, as stored (see bpchar.go).
}

// Null is the SQL NULL.
var Null = Value{}

// Int, Text, Bool, Float and Date build values of those kinds.
func Int(i int64) Value      { return Value{K: KInt, I: i} }
func Text(s string) Value    { return Value{K: KText, S: s} }
func Bool(b bool) Value      { return Value{K: KBool, B: b} }
func Float(f float64) Value  { return Value{K: KFloat, F: f} }
func Date(days int64) Value  { return Value{K: KDate, I: days} }
func (v Value) IsNull() bool { return v.K == KNull }

// Numeric parses a decimal literal such as "-3.50" keeping its scale.
func Numeric(s string) (Value, error) {
	s = strings.TrimSpace(s)
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return Null, queryErr("invalid input syntax for type numeric: %q", s)
	}
	scale := int32(0)
	if i := strings.IndexByte(s, '.'); i >= 0 && !strings.ContainsAny(s, "eE") {
		scale = int32(len(s) - i - 1)
	}
	return Value{K: KNumeric, R: r, Scale: scale}, nil
}

// NumericRat builds a numeric from a rational already rounded to scale.
func NumericRat(r *big.Rat, scale int32) Value { return Value{K: KNumeric, R: r, Scale: scale} }

var epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// ParseDate reads an ISO date (YYYY-MM-DD), optionally followed by a
// time of day or a time zone, which a date ignores, and the spellings
// CanonicalLiteral reads ('2020-1-1', 'epoch', 'Jan 1, 2020'). Other
// spellings PostgreSQL accepts are not modelled.
func ParseDate(s string) (Value, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err == nil {
		return Date(daysOf(t)), nil // t.Sub(epoch) overflows beyond 2262
	}
	if d, ok := literalDate(s); ok {
		return Date(d), nil // '2020-1-1', 'epoch', 'Jan 1, 2020' (literal.go)
	}
	ts, terr := ParseTimestamp(s)
	if terr != nil {
		if errors.Is(terr, ErrCannotExecute) {
			return Null, cannot("date input %q", s)
		}
		return Null, queryErr("invalid input syntax for type date: %q", s)
	}
	d, _ := civil(ts.I)
	return Date(d), nil
}

// Parse reads the text form of a value of type t, as a literal or a
// stored datum would be read.
func Parse(t catalog.Type, s string) (Value, error) {
	switch t {
	case catalog.Int:
		i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return Null, queryErr("invalid input syntax for type integer: %q", s)
		}
		return Int(i), nil
	case catalog.Numeric:
		return Numeric(s)
	case catalog.Float:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return Null, queryErr("invalid input syntax for type double precision: %q", s)
		}
		return Float(f), nil
	case catalog.Text:
		return Text(s), nil
	case catalog.Bool:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "t", "true", "yes", "y", "on", "1":
			return Bool(true), nil
		case "f", "false", "no", "n", "off", "0":
			return Bool(false), nil
		}
		return Null, queryErr("invalid input syntax for type boolean: %q", s)
	case catalog.Date:
		return ParseDate(s)
	case catalog.Timestamp:
		return ParseTimestamp(s)
	case catalog.Interval:
		return ParseInterval(s)
	case catalog.UUID:
		return ParseUUID(s)
	}
	return Null, cannot("values of type %s", t)
}

// String writes v in PostgreSQL's output form (NULL as "NULL").
func (v Value) String() string {
	switch v.K {
	case KInt:
		return strconv.FormatInt(v.I, 10)
	case KNumeric:
		return v.R.FloatString(int(v.Scale))
	case KFloat:
		if v.B {
			return float4String(v.F)
		}
		if s, ok := pgtypes.SpecialFloat(v.F); ok {
			return s
		}
		// float8out: the shortest exact digits, in exponent form only
		// below 1e-4 or from 1e15 (Go's shortest 'g' already from 1e6).
		if a := math.Abs(v.F); a != 0 && (a < 1e-4 || a >= 1e15) {
			return strconv.FormatFloat(v.F, 'e', -1, 64)
		}
		return strconv.FormatFloat(v.F, 'f', -1, 64)
	case KText:
		return v.S
	case KBool:
		if v.B {
			return "true"
		}
		return "false"
	case KDate:
		return epoch.AddDate(0, 0, int(v.I)).Format("2006-01-02")
	case KTimestamp:
		if v.B {
			// A timestamptz prints in the session's TimeZone; results
			// compare as instants, and shown they are in UTC.
			return timestampString(v.I) + "+00"
		}
		return timestampString(v.I)
	case KInterval:
		return intervalString(v)
	case KJSON:
		return v.S
	}
	return "NULL"
}

// rat returns a numeric-kind value as a rational; ok is false for other
// kinds.
func (v Value) rat() (*big.Rat, bool) {
	switch v.K {
	case KInt:
		return new(big.Rat).SetInt64(v.I), true
	case KNumeric:
		return v.R, true
	}
	return nil, false
}

func (v Value) float() (float64, bool) {
	switch v.K {
	case KInt:
		return float64(v.I), true
	case KNumeric:
		f, _ := v.R.Float64()
		return f, true
	case KFloat:
		return v.F, true
	}
	return 0, false
}

func isNumber(k Kind) bool { return k == KInt || k == KNumeric || k == KFloat }

// Compare orders two non-NULL values: numbers across kinds (as
// PostgreSQL's implicit casts do), text bytewise (C collation), false
// before true, dates by day. Values of unrelated kinds cannot be compared.
func Compare(a, b Value) (int, error) {
	switch {
	case a.K == KNull || b.K == KNull:
		return 0, cannot("comparison with NULL")
	case a.K == KInt && b.K == KInt:
		return cmpInt(a.I, b.I), nil
	case isNumber(a.K) && isNumber(b.K):
		if a.K == KFloat || b.K == KFloat {
			x, _ := a.float()
			y, _ := b.float()
			return cmpFloat(x, y), nil
		}
		x, _ := a.rat()
		y, _ := b.rat()
		return x.Cmp(y), nil
	case isTemporal(a.K) && isTemporal(b.K) && (a.K != b.K || a.K != KDate):
		return compareTemporal(a, b)
	case a.K != b.K:
		return 0, cannot("comparison of %s with %s", kindName(a.K), kindName(b.K))
	case a.K == KText:
		if c, ok, err := compareColl(a, b); ok {
			return c, err
		}
		if a.B || b.B {
			return compareBpchar(a, b)
		}
		return strings.Compare(a.S, b.S), nil
	case a.K == KBool:
		return cmpInt(b2i(a.B), b2i(b.B)), nil
	case a.K == KDate:
		return cmpInt(a.I, b.I), nil
	}
	return 0, cannot("comparison of %s", kindName(a.K))
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpFloat follows PostgreSQL: NaN equals NaN and sorts above every
// other value.
func cmpFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func kindName(k Kind) string {
	return [...]string{"null", "int", "numeric", "float", "text", "bool", "date", "timestamp", "interval", "jsonb"}[k]
}

// Key returns a string that is equal for two values exactly when SQL
// grouping (DISTINCT, GROUP BY, set operations) treats them as the same:
// NULLs group together and 1, 1.0 and 1.00 are one value.
func (v Value) Key() string {
	switch v.K {
	case KNull:
		return "N"
	case KInt, KNumeric:
		r, _ := v.rat()
		return "n" + r.RatString()
	case KFloat:
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
			return "f" + v.String()
		}
		return "n" + new(big.Rat).SetFloat64(v.F).RatString()
	case KText:
		if v.B {
			return "t" + stripBlanks(v.S)
		}
		if v.Scale == collNocase || v.Scale == collRtrim {
			return "t" + collKey(v.S, v.Scale)
		}
		return "t" + v.S
	case KBool:
		return "b" + v.String()
	case KDate:
		return "d" + strconv.FormatInt(v.I, 10)
	case KTimestamp, KInterval:
		return temporalKey(v)
	case KJSON:
		return jsonKey(v)
	}
	return "?"
}

// rowKey joins value keys unambiguously (each is length-prefixed).
func rowKey(vals []Value) string {
	var b strings.Builder
	for _, v := range vals {
		k := v.Key()
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
	}
	return b.String()
}
