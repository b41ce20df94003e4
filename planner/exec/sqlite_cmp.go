package exec

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// SQLite's text form of values and its comparisons under affinity.

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
