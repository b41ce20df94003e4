package exec

import (
	"math"
	"math/big"
)

// arith applies + - * / % to two non-NULL values with PostgreSQL's typing:
// int op int stays integer (overflow and division by zero are errors,
// division truncates), a numeric operand makes the result numeric (exact,
// with PostgreSQL's result scale), a float operand makes it float, and
// dates combine with integers (date ± days, date − date = days).
func arith(op string, a, b Value) (Value, error) {
	switch {
	case a.K == KInt && b.K == KInt:
		return intArith(op, a.I, b.I)
	case a.K == KDate && b.K == KInt && (op == "+" || op == "-"):
		d, err := intArith(op, a.I, b.I)
		return Date(d.I), err
	case a.K == KInt && b.K == KDate && op == "+":
		return Date(a.I + b.I), nil
	case a.K == KDate && b.K == KDate && op == "-":
		return Int(a.I - b.I), nil
	case a.K == KFloat || b.K == KFloat:
		x, ok1 := a.float()
		y, ok2 := b.float()
		if !ok1 || !ok2 {
			break
		}
		if a.IsFloat4() && b.IsFloat4() {
			return float4Arith(op, x, y) // real op real is real; with anything else float8
		}
		return floatArith(op, x, y)
	case isNumber(a.K) && isNumber(b.K):
		return numArith(op, toNumeric(a), toNumeric(b))
	case a.K == KTimestamp || a.K == KInterval || b.K == KTimestamp || b.K == KInterval:
		return temporalArith(op, a, b)
	case a.K == KJSON && op == "-":
		return jsonbDelete(a, b) // jsonbdelete.go
	}
	return Null, cannot("operator %s on %s and %s", op, kindName(a.K), kindName(b.K))
}

func toNumeric(v Value) Value {
	if v.K == KInt {
		return NumericRat(new(big.Rat).SetInt64(v.I), 0)
	}
	return v
}

func intArith(op string, x, y int64) (Value, error) {
	overflow := func() (Value, error) { return Null, queryErr("integer out of range") }
	switch op {
	case "+":
		s := x + y
		if (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0) {
			return overflow()
		}
		return Int(s), nil
	case "-":
		s := x - y
		if (x >= 0 && y < 0 && s < 0) || (x < 0 && y > 0 && s >= 0) {
			return overflow()
		}
		return Int(s), nil
	case "*":
		if x == 0 || y == 0 {
			return Int(0), nil
		}
		p := x * y
		if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return overflow()
		}
		return Int(p), nil
	case "/", "%":
		if y == 0 {
			return Null, queryErr("division by zero")
		}
		if x == math.MinInt64 && y == -1 {
			if op == "%" {
				return Int(0), nil
			}
			return overflow()
		}
		if op == "/" {
			return Int(x / y), nil // Go truncates toward zero, as PostgreSQL does
		}
		return Int(x % y), nil
	}
	return Null, cannot("integer operator %s", op)
}

func floatArith(op string, x, y float64) (Value, error) {
	var r float64
	switch op {
	case "+":
		r = x + y
	case "-":
		r = x - y
	case "*":
		r = x * y
	case "/":
		if y == 0 {
			return Null, queryErr("division by zero")
		}
		r = x / y
	default:
		return Null, cannot("float operator %s", op)
	}
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return Null, queryErr("value out of range: overflow")
	}
	return Float(r), nil
}

func numArith(op string, a, b Value) (Value, error) {
	switch op {
	case "+":
		return NumericRat(new(big.Rat).Add(a.R, b.R), max(a.Scale, b.Scale)), nil
	case "-":
		return NumericRat(new(big.Rat).Sub(a.R, b.R), max(a.Scale, b.Scale)), nil
	case "*":
		return NumericRat(new(big.Rat).Mul(a.R, b.R), a.Scale+b.Scale), nil
	case "/":
		return numDiv(a, b)
	case "%":
		if b.R.Sign() == 0 {
			return Null, queryErr("division by zero")
		}
		q := new(big.Rat).Quo(a.R, b.R)
		t := new(big.Int).Quo(q.Num(), q.Denom()) // truncates toward zero
		r := new(big.Rat).Sub(a.R, new(big.Rat).Mul(new(big.Rat).SetInt(t), b.R))
		return NumericRat(r, max(a.Scale, b.Scale)), nil
	}
	return Null, cannot("numeric operator %s", op)
}

// numDiv divides as PostgreSQL's numeric_div: the quotient rounded (half
// away from zero) to select_div_scale's scale, which aims at 16
// significant digits and never below either operand's scale.
func numDiv(a, b Value) (Value, error) {
	if b.R.Sign() == 0 {
		return Null, queryErr("division by zero")
	}
	w1, d1 := weight(a.R)
	w2, d2 := weight(b.R)
	qweight := w1 - w2
	if d1 <= d2 {
		qweight--
	}
	rscale := int32(16 - qweight*4)
	rscale = max(rscale, a.Scale, b.Scale, 0)
	rscale = min(rscale, 1000)
	q := new(big.Rat).Quo(a.R, b.R)
	return NumericRat(roundRat(q, rscale), rscale), nil
}

// weight returns PostgreSQL's base-10000 weight of |r| and its first
// base-10000 digit (weight 0 and digit 0 for zero).
func weight(r *big.Rat) (int, int64) {
	if r.Sign() == 0 {
		return 0, 0
	}
	x := new(big.Rat).Abs(r)
	base := big.NewRat(10000, 1)
	w := 0
	for x.Cmp(base) >= 0 {
		x.Quo(x, base)
		w++
	}
	one := big.NewRat(1, 1)
	for x.Cmp(one) < 0 {
		x.Mul(x, base)
		w--
	}
	d := new(big.Int).Quo(x.Num(), x.Denom())
	return w, d.Int64()
}

// roundRat rounds r to scale decimal places, half away from zero, as
// PostgreSQL rounds numerics.
func roundRat(r *big.Rat, scale int32) *big.Rat {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	x := new(big.Rat).Mul(r, new(big.Rat).SetInt(p))
	neg := x.Sign() < 0
	x.Abs(x)
	x.Add(x, big.NewRat(1, 2))
	n := new(big.Int).Quo(x.Num(), x.Denom())
	if neg {
		n.Neg(n)
	}
	return new(big.Rat).SetFrac(n, p)
}

// negate returns −v.
func negate(v Value) (Value, error) {
	switch v.K {
	case KInt:
		if v.I == math.MinInt64 {
			return Null, queryErr("integer out of range")
		}
		return Int(-v.I), nil
	case KNumeric:
		return NumericRat(new(big.Rat).Neg(v.R), v.Scale), nil
	case KFloat:
		return Value{K: KFloat, F: -v.F, B: v.B}, nil
	case KInterval:
		return negInterval(v)
	}
	return Null, cannot("negation of %s", kindName(v.K))
}
