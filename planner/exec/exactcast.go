package exec

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Casts to an exact type inside a family (the planner keeps them as a
// Cast whose Value names the target; see build/exacttype.go):
//
//	int2, int4        the integer cast, then PostgreSQL's range check (an error)
//	float4            rounded to single precision (strtof for text and numeric,
//	                  a C cast for float8), overflow and underflow errors; the
//	                  value is marked float4 (Value.B) and prints as float4out
//	float8            the float cast; a float4 widens exactly and prints in full
//	text, varchar     the text cast (a char(n) loses its padding)
//	"char"            the first byte (an ASCII one; a non-ASCII byte prints as
//	                  an octal escape: cannot execute)
//	name              the first 63 bytes, cut on a character boundary
//	timestamptz       text with an explicit UTC offset, read as that instant
//	                  (marked Value.B); anything else depends on the session's
//	                  TimeZone: cannot execute
//	jsonb             text read as jsonb_in reads it (jsonb.go); a jsonb kept
//	bpchar, timestamp and date of a timestamptz, json, timetz
//	                  cannot execute

// castExact applies a cast to the exact type target; ok is false when
// target is not one of these names (a modifier such as numeric(10,2)).
func castExact(v Value, t catalog.Type, target string) (out Value, ok bool, err error) {
	switch target {
	case "int2", "int4", "float4", "float8", "text", "varchar", "char", "name", "timestamptz",
		"bpchar", "timestamp", "date", "json", "jsonb", "timetz":
	default:
		return Null, false, nil
	}
	if v.IsNull() {
		return Null, true, nil
	}
	switch target {
	case "int2", "int4":
		c, err := cast(v, catalog.Int)
		if err != nil {
			return Null, true, err
		}
		if target == "int2" && (c.I < math.MinInt16 || c.I > math.MaxInt16) {
			return Null, true, queryErr("smallint out of range")
		}
		if c.I != int64(int32(c.I)) {
			return Null, true, queryErr("integer out of range")
		}
		return c, true, nil
	case "float4":
		f, err := toFloat4(v)
		return f, true, err
	case "float8":
		c, err := cast(v, catalog.Float)
		c.B = false
		return c, true, err
	case "text", "varchar":
		c, err := cast(v, catalog.Text)
		return c, true, err
	case "char", "name":
		c, err := cast(v, catalog.Text)
		if err != nil || c.K != KText {
			return c, true, err
		}
		if target == "name" {
			return Text(clipBytes(c.S, 63)), true, nil
		}
		if c.S == "" {
			return Text(""), true, nil
		}
		if c.S[0] >= 0x80 {
			return Null, true, cannot(`"char" of a non-ASCII byte (printed as an octal escape)`)
		}
		return Text(c.S[:1]), true, nil
	case "timestamptz":
		if v.K == KTimestamp && v.B {
			return v, true, nil
		}
		if v.K != KText {
			return Null, true, cannot("%s to timestamp with time zone (depends on the session's TimeZone)", kindName(v.K))
		}
		ts, err := ParseTimestamptz(v.S)
		return ts, true, err
	case "jsonb":
		switch {
		case v.K == KJSON:
			return v, true, nil
		case v.K == KText && !v.B:
			j, err := ParseJSONB(v.S)
			return j, true, err
		}
	}
	return Null, true, cannot("cast to %s", target)
}

// clipBytes cuts s to at most n bytes, on a character boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Float4 builds a real (float4) value: f rounded to single precision.
func Float4(f float32) Value { return Value{K: KFloat, F: float64(f), B: true} }

// IsFloat4 reports whether v is a real (float4) value.
func (v Value) IsFloat4() bool { return v.K == KFloat && v.B }

// toFloat4 is PostgreSQL's cast to real: text and numeric through
// strtof (one rounding from the decimal), integers and float8 by a C
// conversion, with its overflow and underflow errors.
func toFloat4(v Value) (Value, error) {
	var f float32
	switch v.K {
	case KFloat:
		if v.B {
			return v, nil
		}
		f = float32(v.F)
		if math.IsInf(float64(f), 0) && !math.IsInf(v.F, 0) {
			return Null, queryErr("value out of range: overflow")
		}
		if f == 0 && v.F != 0 {
			return Null, queryErr("value out of range: underflow")
		}
	case KInt:
		f = float32(v.I)
	case KNumeric:
		g, err := strconv.ParseFloat(v.R.FloatString(int(v.Scale)), 32)
		if err != nil {
			return Null, queryErr("value out of range for type real")
		}
		f = float32(g)
	case KText:
		s := strings.TrimSpace(v.S)
		g, err := strconv.ParseFloat(s, 32)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return Null, queryErr("%q is out of range for type real", s)
			}
			switch strings.ToLower(s) {
			case "nan", "infinity", "+infinity", "-infinity", "inf", "+inf", "-inf":
			default:
				return Null, queryErr("invalid input syntax for type real: %q", s)
			}
		}
		f = float32(g)
	case KBool:
		return Null, cannot("cast of boolean to real")
	default:
		return Null, cannot("cast of %s to real", kindName(v.K))
	}
	return Float4(f), nil
}

// float4String is float4out: the shortest digits that read back as the
// same float4, in exponent form below 1e-4 or from 1e6.
func float4String(f float64) string {
	if s, ok := pgtypes.SpecialFloat(f); ok {
		return s
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e6) {
		return strconv.FormatFloat(f, 'e', -1, 32)
	}
	return strconv.FormatFloat(f, 'f', -1, 32)
}

// float4Arith is an operator on two float4 values: PostgreSQL computes
// it in single precision (float4pl and the like).
func float4Arith(op string, x, y float64) (Value, error) {
	r, err := floatArith(op, x, y)
	if err != nil || r.K != KFloat {
		return r, err
	}
	f := float32(r.F)
	if math.IsInf(float64(f), 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return Null, queryErr("value out of range: overflow")
	}
	if f == 0 && r.F != 0 {
		return Null, queryErr("value out of range: underflow")
	}
	return Float4(f), nil
}

func isTimestamptz(v Value) bool { return v.K == KTimestamp && v.B }

// timestamptzOffset matches the explicit UTC offset ending a timestamptz
// literal: after a time of day, or after a blank.
var timestamptzOffset = regexp.MustCompile(`^(.*?\d(?::\d{2}(?::\d{2}(?:\.\d{1,6})?)?)?)\s*([+-])(\d{2})(?::?(\d{2}))?\s*$`)

// timestamptzUTC matches a timestamptz literal whose time of day is
// followed by a zone that is UTC in every setting.
var timestamptzUTC = regexp.MustCompile(`^(.*\d:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)\s*(?i:z|zulu|utc|gmt)\s*$`)

// ParseTimestamptz reads a timestamp with time zone literal that names
// its UTC offset ('2024-01-01 10:00+03') as that instant. Without an
// offset (or with a zone name) the instant depends on the session's
// TimeZone: cannot execute.
func ParseTimestamptz(s string) (Value, error) {
	if m := timestamptzUTC.FindStringSubmatch(s); m != nil {
		// Z, zulu, UTC and GMT name offset 0 whatever the session's
		// TimeZone and timezone_abbreviations ('...T10:00:00.000Z', as
		// JavaScript writes an instant).
		ts, err := ParseTimestamp(m[1])
		if err != nil {
			return Null, err
		}
		ts.B = true
		return ts, nil
	}
	m := timestamptzOffset.FindStringSubmatch(s)
	if m == nil || !strings.Contains(m[1], ":") {
		return Null, cannot("timestamp with time zone input %q without a UTC offset after a time of day (depends on the session's TimeZone)", s)
	}
	local, err := ParseTimestamp(m[1])
	if err != nil {
		return Null, err
	}
	h, _ := strconv.Atoi(m[3])
	mi := 0
	if m[4] != "" {
		mi, _ = strconv.Atoi(m[4])
	}
	if h > 15 || mi > 59 {
		return Null, cannot("timestamp with time zone offset in %q", s)
	}
	off := (int64(h)*3600 + int64(mi)*60) * usecPerSec
	if m[2] == "-" {
		off = -off
	}
	ts, err := checkTimestamp(local.I - off)
	if err != nil {
		return Null, err
	}
	ts.B = true
	return ts, nil
}

// reduceFloat4 is sum and avg of real values. avg accumulates in float8
// (float4_accum), as the float sum does. sum adds in single precision
// (float4pl), so the result depends on the order the rows are added in
// wherever a step rounds: such a sum cannot execute.
func reduceFloat4(name string, vals []Value) (Value, error) {
	exact, sum := 0.0, float32(0)
	for _, v := range vals {
		if !v.IsFloat4() {
			return Null, cannot("%s over real mixed with other values", name)
		}
		exact += v.F
		sum += float32(v.F)
		if float64(sum) != exact && !math.IsNaN(exact) {
			if name == "sum" {
				return Null, cannot("sum of real values that rounds in single precision (depends on the order of rows)")
			}
		}
	}
	if name == "avg" {
		return Float(exact / float64(len(vals))), nil
	}
	if math.IsInf(float64(sum), 0) && !math.IsInf(exact, 0) {
		return Null, queryErr("value out of range: overflow")
	}
	return Float4(sum), nil
}

// spelledApart refuses to pick one of two rows that group together
// (GROUP BY, DISTINCT) when they hold intervals equal under = but spelled
// apart ('1 day' and '24:00:00', '1 mon' and '30 days'), or jsonb
// documents ({"a": 1.0} and {"a": 1}): PostgreSQL keeps either, and
// date + interval (or the document's text) tells them apart. idx restricts the
// check to those positions (nil: all).
func spelledApart(idx []int, a, b []Value) error {
	check := func(x, y Value) error {
		if x.K == KJSON && y.K == KJSON && x.S != y.S {
			// jsonb documents equal under = but printed apart
			// ({"a": 1.0} and {"a": 1}).
			return cannot("jsonb %s and %s group together but differ (PostgreSQL keeps either)", x, y)
		}
		if x.K != KInterval || y.K != KInterval {
			return nil
		}
		m1, d1, u1 := x.interval()
		m2, d2, u2 := y.interval()
		if m1 != m2 || d1 != d2 || u1 != u2 {
			return cannot("intervals %s and %s group together but differ (PostgreSQL keeps either)", x, y)
		}
		return nil
	}
	if idx == nil {
		for i := range a {
			if err := check(a[i], b[i]); err != nil {
				return err
			}
		}
		return nil
	}
	for _, j := range idx {
		if err := check(a[j], b[j]); err != nil {
			return err
		}
	}
	return nil
}

// intervalsSpelledApart is spelledApart over the rows of a set
// operation's inputs: rows that match (UNION without ALL keeps one,
// INTERSECT the left one) must not hold equal intervals spelled apart.
func intervalsSpelledApart(sides ...[][]Value) error {
	has := false
	for _, rows := range sides {
		for _, row := range rows {
			for _, v := range row {
				has = has || v.K == KInterval || v.K == KJSON
			}
		}
	}
	if !has {
		return nil
	}
	first := map[string][]Value{}
	for _, rows := range sides {
		for _, row := range rows {
			k := rowKey(row)
			if f, ok := first[k]; ok {
				if err := spelledApart(nil, f, row); err != nil {
					return err
				}
				continue
			}
			first[k] = row
		}
	}
	return nil
}
