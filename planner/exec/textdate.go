package exec

import (
	"math/big"
	"regexp"
	"strconv"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// pgSubstr is PostgreSQL's substr(text, from [, count]) on characters:
// positions before 1 are cut off rather than counted from the end, and a
// negative count is an error.
func pgSubstr(a []Value) (Value, error) {
	if len(a) < 2 || len(a) > 3 || a[0].K != KText || a[1].K != KInt || len(a) == 3 && a[2].K != KInt {
		// substring(text FROM pattern) and SIMILAR forms are regular
		// expressions, not modelled.
		return Null, cannot("substr of these arguments")
	}
	r := []rune(a[0].S)
	start := a[1].I
	end := int64(len(r)) + 1
	if len(a) == 3 {
		if a[2].I < 0 {
			return Null, queryErr("negative substring length not allowed")
		}
		if a[2].I < end-start {
			end = start + a[2].I
		}
	}
	start = max(start, 1)
	if end <= start {
		return Text(""), nil
	}
	return Text(string(r[start-1 : end-1])), nil
}

// liteSubstr is SQLite's substr(X, Y [, Z]) (func.c's substrFunc): a
// negative Y counts from the end, Y = 0 shortens the result by one, a
// negative Z takes the characters before Y.
func liteSubstr(a []Value) (Value, error) {
	if len(a) < 2 || len(a) > 3 || a[1].K != KInt || len(a) == 3 && a[2].K != KInt {
		return Null, cannot("SQLite substr of these arguments")
	}
	if a[0].K != KText && a[0].K != KInt && a[0].K != KFloat {
		return Null, cannot("SQLite substr of %s", kindName(a[0].K))
	}
	r := []rune(liteText(a[0]))
	n := int64(len(r))
	p1 := a[1].I
	p2 := n + 1 // no length: to the end
	neg := false
	if len(a) == 3 {
		p2 = a[2].I
		if p2 < 0 {
			p2, neg = -p2, true
		}
	}
	switch {
	case p1 < 0:
		p1 += n
		if p1 < 0 {
			p2 += p1
			if p2 < 0 {
				p2 = 0
			}
			p1 = 0
		}
	case p1 > 0:
		p1--
	case p2 > 0:
		p2--
	}
	if neg {
		p1 -= p2
		if p1 < 0 {
			p2 += p1
			p1 = 0
		}
	}
	if p1 >= n || p2 <= 0 {
		return Text(""), nil
	}
	end := min(p1+p2, n)
	return Text(string(r[p1:end])), nil
}

// pgDateText is the date input the executor reads exactly: an ISO date,
// optionally followed by a time zone, which a date ignores.
var pgDateText = regexp.MustCompile(`^\s*(\d{4}-\d{2}-\d{2})(\s+[+-]\d{2}(:?\d{2})?)?\s*$`)

// pgDate is date(x), PostgreSQL's cast to date.
func pgDate(a []Value) (Value, error) {
	if len(a) != 1 {
		return Null, cannot("date of %d arguments", len(a))
	}
	switch a[0].K {
	case KDate:
		return a[0], nil
	case KTimestamp:
		return temporalCast(a[0], catalog.Date)
	case KText:
		if m := pgDateText.FindStringSubmatch(a[0].S); m != nil {
			return ParseDate(m[1])
		}
		return ParseDate(a[0].S) // with a time of day; other forms cannot execute
	}
	return Null, cannot("date of %s", kindName(a[0].K))
}

// liteDateText is the time-value form liteDate reads: a date, optionally
// with a time of day.
var liteDateText = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$`)

// liteDate is SQLite's date(X) without modifiers for a valid date: its
// YYYY-MM-DD text. SQLite rolls impossible days over and reads numbers
// as Julian days; those are not modelled.
func liteDate(a []Value) (Value, error) {
	if len(a) != 1 || a[0].K != KText {
		return Null, cannot("SQLite date of these arguments")
	}
	m := liteDateText.FindStringSubmatch(a[0].S)
	if m == nil {
		return Null, cannot("SQLite date input %q", a[0].S)
	}
	if _, err := time.Parse("2006-01-02", m[1]); err != nil {
		return Null, cannot("SQLite date input %q", a[0].S)
	}
	if m[2] != "" && (m[2] > "23" || m[3] > "59" || m[4] > "59") {
		return Null, cannot("SQLite date input %q", a[0].S)
	}
	return Text(m[1]), nil
}

var typmodForm = regexp.MustCompile(`^(numeric|varchar)\((\d+)(?:,(\d+))?\)$`)

// castModified casts v to a type with a modifier as PostgreSQL does:
// numeric(p,s) rounds half away from zero to s digits and fails when the
// integer part needs more than p-s digits; varchar(n) truncates to n
// characters. Other modifiers (char(n) padding, time precision, ...) are
// not modelled.
func castModified(v Value, t catalog.Type, mod string) (Value, error) {
	m := typmodForm.FindStringSubmatch(mod)
	if m == nil {
		return Null, cannot("cast to %s", mod)
	}
	c, err := cast(v, t)
	if err != nil || c.IsNull() {
		return c, err
	}
	n, _ := strconv.Atoi(m[2])
	switch m[1] {
	case "varchar":
		if c.K != KText || m[3] != "" {
			return Null, cannot("cast to %s", mod)
		}
		if r := []rune(c.S); len(r) > n {
			return Text(string(r[:n])), nil
		}
		return c, nil
	}
	if c.K != KNumeric {
		return Null, cannot("cast to %s", mod)
	}
	scale := 0
	if m[3] != "" {
		scale, _ = strconv.Atoi(m[3])
	}
	if n < 1 || scale > n {
		return Null, cannot("cast to %s", mod)
	}
	r := roundRat(c.R, int32(scale))
	// |r| < 10^(p-s) or the value does not fit.
	limit := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n-scale)), nil))
	if new(big.Rat).Abs(r).Cmp(limit) >= 0 {
		return Null, queryErr("numeric field overflow")
	}
	return NumericRat(r, int32(scale)), nil
}
