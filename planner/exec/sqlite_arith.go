package exec

import (
	"math"
	"math/big"
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// SQLite's arithmetic, truth values, CAST and ROUND.

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
