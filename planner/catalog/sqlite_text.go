package catalog

import (
	"math"
	"strconv"
	"strings"
)

// SQLiteRealText is the text SQLite 3.40 makes of a REAL (CAST(r AS
// TEXT), TEXT affinity): 15 significant digits, at least one decimal
// (1.0), a two-digit exponent (1.0e+20). SQLite 3.43 and later write as
// many digits as the value needs to read back exactly; 3.40 is the
// version the sqlite dialect models.
func SQLiteRealText(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return ""
	}
	s := strconv.FormatFloat(f, 'g', 15, 64)
	mant, exp, hasExp := strings.Cut(s, "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(mant, "0")
		mant = strings.TrimSuffix(mant, ".")
	}
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	if !hasExp {
		return mant
	}
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	if len(exp) < 2 {
		exp = strings.Repeat("0", 2-len(exp)) + exp
	}
	return mant + "e" + string(sign) + exp
}

// SQLiteLiteralText is the text SQLite makes of a numeric literal when
// it applies TEXT affinity to it (CAST(x AS TEXT) = 1.50): the literal is
// an INTEGER when it is a decimal integer within 64 bits, otherwise a
// REAL, and either is written as its value, not as it was spelled (007
// is '7', 1.50 is '1.5', 1e2 is '100.0'). ok is false for text that is
// not a decimal number, and for a REAL whose text SQLite versions write
// differently (SQLiteRealTextVaries: 0.30000000000000004, 1e16).
func SQLiteLiteralText(lit string) (string, bool) {
	lit = strings.TrimSpace(lit)
	if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return "", false
	}
	if strings.ContainsAny(lit, "xXnN_") { // hex, Inf, NaN, digit separators: not SQLite decimal literals
		return "", false
	}
	text, varies := SQLiteRealTextOf(f)
	if varies {
		return "", false
	}
	return text, true
}

// SQLiteRealTextVaries says whether SQLite versions write REAL f as
// different text: 3.40 writes 15 significant digits and an exponent from
// 1e15 on (1.0e+15); 3.43 and later write the digits the value needs and
// an exponent from 1e17 on (1000000000000000.0). They agree on a value
// 15 digits write exactly below 1e15.
func SQLiteRealTextVaries(f float64) bool {
	_, varies := SQLiteRealTextOf(f)
	return varies
}

// SQLiteRealTextOf is SQLiteRealText(f) and SQLiteRealTextVaries(f),
// writing f once (the executor asks both of every REAL it writes as text).
func SQLiteRealTextOf(f float64) (text string, varies bool) {
	text = SQLiteRealText(f)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return text, false
	}
	if a := math.Abs(f); a >= 1e15 && a < 1e17 {
		return text, true
	}
	g, err := strconv.ParseFloat(text, 64)
	return text, err != nil || g != f
}
