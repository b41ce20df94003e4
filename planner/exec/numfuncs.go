package exec

import "math/big"

// pgDiv is div(y, x): the integer quotient of two numerics, truncated
// towards zero, with scale 0 (numeric_div_trunc computes it at rscale
// 0, so div(1.333, 1.0) prints 1 and div(-1, 3) prints 0, never -0).
// Integer arguments are read as numerics, as PostgreSQL's only div is
// div(numeric, numeric); a float argument is not modelled (it would be
// converted to numeric first, with float8's rounding).
func pgDiv(a []Value) (Value, error) {
	if len(a) != 2 {
		return Null, cannot("div of %d arguments", len(a))
	}
	for _, v := range a {
		if v.K != KInt && v.K != KNumeric {
			return Null, cannot("div of %s", kindName(v.K))
		}
	}
	y, x := toNumeric(a[0]).R, toNumeric(a[1]).R
	if x.Sign() == 0 {
		return Null, queryErr("division by zero")
	}
	q := new(big.Rat).Quo(y, x)
	// Quo truncates towards zero, as numeric_div_trunc does.
	n := new(big.Int).Quo(q.Num(), q.Denom())
	return NumericRat(new(big.Rat).SetInt(n), 0), nil
}
