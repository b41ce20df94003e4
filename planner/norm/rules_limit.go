package norm

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// limitConstant: LIMIT and OFFSET constants in the form the engine runs
// them, so that spellings of one bound plan alike (issue 33: LIMIT 2
// OFFSET 0, OFFSET NULL, LIMIT 2.5, LIMIT (SELECT 2) were labelled
// different from the plain form although every engine returns the same
// rows):
//
//	PostgreSQL casts both bounds to bigint: LIMIT NULL ⇒ none,
//	  OFFSET NULL ⇒ 0, numeric 2.5 ⇒ 3 (numeric rounds half away from
//	  zero), float 2.5 ⇒ 2 (float rounds half to even);
//	SQLite: a negative LIMIT ⇒ none, a negative OFFSET ⇒ 0, an integral
//	  real ⇒ its integer (a NULL or fractional bound is an error there
//	  and stays);
//	both: (SELECT c) ⇒ c; OFFSET 0 ⇒ none; Limit with neither ⇒ input.
//
// A bound PostgreSQL refuses (a negative one) is left as written: the
// query errors, and that is not this rule's to decide.
func limitConstant(z *normalizer, n *plan.Node, _ flags) (*plan.Node, bool) {
	if n.Op != plan.OpLimit {
		return n, false
	}
	lite := z.p.Meta != nil && z.p.Meta.Dialect == catalog.SQLite
	changed := false
	for _, b := range []struct {
		e      **plan.Expr
		offset bool
	}{{&n.Limit, false}, {&n.Offset, true}} {
		e := *b.e
		if e == nil {
			continue
		}
		if c := constantScalarSubquery(e); c != nil {
			e, changed = c, true
		}
		v, ok := limitBoundValue(e, lite)
		switch {
		case !ok:
			*b.e = e
			continue
		case v.none || (b.offset && v.n == 0):
			*b.e, changed = nil, true
			continue
		}
		if e.Typ != catalog.Int || e.Value != strconv.FormatInt(v.n, 10) {
			e, changed = plan.NewConst(catalog.Int, strconv.FormatInt(v.n, 10)), true
		}
		*b.e = e
	}
	if n.Limit == nil && n.Offset == nil {
		return n.Inputs[0], true
	}
	return n, changed
}

// limitBound is a constant bound as the engine reads it: none means no
// bound at all (LIMIT NULL in PostgreSQL, a negative one in SQLite).
type limitBound struct {
	n    int64
	none bool
}

// limitBoundValue reads a constant LIMIT or OFFSET expression; ok is
// false where the engine would refuse it or the value is not certain.
func limitBoundValue(e *plan.Expr, lite bool) (limitBound, bool) {
	if e.Kind != plan.Const {
		return limitBound{}, false
	}
	if e.Null {
		// PostgreSQL reads a NULL bound as none (OFFSET NULL as 0);
		// SQLite refuses it ("datatype mismatch").
		return limitBound{none: true}, !lite
	}
	var n int64
	switch e.Typ {
	case catalog.Int:
		v, err := strconv.ParseInt(e.Value, 10, 64)
		if err != nil {
			return limitBound{}, false
		}
		n = v
	case catalog.Numeric, catalog.Float:
		v, ok := roundedBound(e.Value, e.Typ == catalog.Float, lite)
		if !ok {
			return limitBound{}, false
		}
		n = v
	default:
		return limitBound{}, false
	}
	if n < 0 {
		if lite {
			return limitBound{none: true}, true // a negative OFFSET is 0: none too
		}
		return limitBound{}, false // PostgreSQL: "must not be negative"
	}
	return limitBound{n: n}, true
}

// roundedBound converts a numeric or float literal to the bigint the
// engine uses: PostgreSQL's numeric→bigint rounds half away from zero,
// float8→bigint half to even; SQLite accepts only integral values.
func roundedBound(text string, float, lite bool) (int64, bool) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(text))
	if !ok {
		return 0, false
	}
	if r.IsInt() {
		if !r.Num().IsInt64() {
			return 0, false
		}
		return r.Num().Int64(), true
	}
	if lite {
		return 0, false
	}
	// Floor and the fraction left over decide the rounding.
	num, den := r.Num(), r.Denom()
	floor := new(big.Int).Div(num, den) // Euclidean: floor for den > 0
	frac := new(big.Rat).Sub(r, new(big.Rat).SetInt(floor))
	switch frac.Cmp(big.NewRat(1, 2)) {
	case 1:
		floor.Add(floor, big.NewInt(1))
	case 0:
		// A tie: numeric rounds away from zero, float to even.
		up := r.Sign() > 0
		if float {
			up = floor.Bit(0) == 1
		}
		if up {
			floor.Add(floor, big.NewInt(1))
		}
	}
	if float && !exactFloat(text) {
		// A float literal's decimal text is not the double the engine
		// rounds; near a tie the two can round apart.
		return 0, false
	}
	if !floor.IsInt64() {
		return 0, false
	}
	return floor.Int64(), true
}

// exactFloat reports whether the decimal text is exactly a double.
func exactFloat(text string) bool {
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		return false
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(text))
	if !ok {
		return false
	}
	fr := new(big.Rat)
	if fr.SetFloat64(f) == nil {
		return false
	}
	return fr.Cmp(r) == 0
}

// constantScalarSubquery returns c for (SELECT c): a scalar subquery
// whose plan projects one non-volatile constant over a single empty
// VALUES row, or nil.
func constantScalarSubquery(e *plan.Expr) *plan.Expr {
	if e.Kind != plan.Subquery || e.SubKind != plan.SubScalar || e.Sub == nil {
		return nil
	}
	p := e.Sub
	if p.Op != plan.OpProject || len(p.Proj) != 1 || len(p.Inputs) != 1 {
		return nil
	}
	v := p.Inputs[0]
	if v.Op != plan.OpValues || len(v.Rows) != 1 || len(v.Rows[0]) != 0 {
		return nil
	}
	c := p.Proj[0].Expr
	if c.Kind != plan.Const {
		return nil
	}
	return c.Copy()
}
