package exec

import (
	"math"
	"strings"
	"unicode/utf8"
)

// liteFuncs are the scalar functions modelled with SQLite's behaviour;
// like strictFuncs they return NULL on any NULL argument. Arguments of
// another storage class are converted as SQLite converts them (numbers
// to text for text functions, text to numbers for numeric ones).
var liteFuncs = map[string]func([]Value) (Value, error){
	"lower": liteText1(asciiLower),
	"upper": liteText1(func(s string) string {
		b := []byte(s)
		for i, c := range b {
			if 'a' <= c && c <= 'z' {
				b[i] = c - 'a' + 'A'
			}
		}
		return string(b)
	}),
	"length": func(a []Value) (Value, error) {
		if len(a) != 1 {
			return Null, cannot("length of %d arguments", len(a))
		}
		return Int(int64(utf8.RuneCountInString(liteText(a[0])))), nil
	},
	"abs": func(a []Value) (Value, error) {
		if len(a) != 1 {
			return Null, cannot("abs of %d arguments", len(a))
		}
		v, err := liteNum(a[0])
		if err != nil {
			return Null, err
		}
		if v.K == KFloat {
			return Float(math.Abs(v.F)), nil
		}
		if v.I == math.MinInt64 {
			return Null, queryErr("integer overflow")
		}
		if v.I < 0 {
			return Int(-v.I), nil
		}
		return v, nil
	},
	"round":  liteRound,
	"substr": liteSubstr,
	"date":   liteDate,
	"replace": func(a []Value) (Value, error) {
		if len(a) != 3 {
			return Null, cannot("replace of %d arguments", len(a))
		}
		s, from, to := liteText(a[0]), liteText(a[1]), liteText(a[2])
		if from == "" {
			return Text(s), nil
		}
		return Text(strings.ReplaceAll(s, from, to)), nil
	},
}

func liteText1(f func(string) string) func([]Value) (Value, error) {
	return func(a []Value) (Value, error) {
		if len(a) != 1 {
			return Null, cannot("text function of %d arguments", len(a))
		}
		return Text(f(liteText(a[0]))), nil
	}
}

// liteSumVaries says whether SQLite versions sum vals to different
// REALs: 3.40 (liteReduce) adds them one by one, 3.43 and later with
// Kahan-Babuska-Neumaier compensation (sum(0.1, 0.2, 0.3) is
// 0.6000000000000001 against 0.6), which also changes avg() and total().
func liteSumVaries(name string, vals []Value) bool {
	if name != "sum" && name != "avg" && name != "total" {
		return false
	}
	var naive float64
	var k kbnSum
	var iexact int64
	approx := false
	for _, v := range vals {
		n, err := liteNum(v)
		if err != nil {
			return false
		}
		f, _ := n.float()
		naive += f
		isInt := v.K == KInt || v.K == KBool
		if !approx && isInt {
			if s, err := intArith("+", iexact, n.I); err == nil {
				iexact = s.I
				continue
			}
		}
		if !approx {
			// 3.43 starts compensating from the exact integer sum.
			approx = true
			k.init(iexact)
		}
		if isInt {
			k.addInt(n.I)
		} else {
			k.add(f)
		}
	}
	if !approx {
		return false // INTEGERs only: both versions sum exactly
	}
	if name == "avg" {
		return naive/float64(len(vals)) != k.value()/float64(len(vals))
	}
	return naive != k.value()
}

// kbnSum is SQLite 3.43's compensated sum (func.c's
// kahanBabuskaNeumaierStep): an integer beyond 2^52 is added as two
// parts, so that its low bits are not rounded away.
type kbnSum struct{ sum, err float64 }

const kbnBigInt = 4503599627370496 // 2^52

func (k *kbnSum) init(i int64) {
	k.sum, k.err = float64(i), 0
	if i <= -kbnBigInt || i >= kbnBigInt {
		sm := i % 16384
		k.sum, k.err = float64(i-sm), float64(sm)
	}
}

func (k *kbnSum) add(r float64) {
	t := k.sum + r
	if math.Abs(k.sum) > math.Abs(r) {
		k.err += (k.sum - t) + r
	} else {
		k.err += (r - t) + k.sum
	}
	k.sum = t
}

func (k *kbnSum) addInt(i int64) {
	if i <= -kbnBigInt || i >= kbnBigInt {
		sm := i % 16384
		k.add(float64(i - sm))
		k.add(float64(sm))
		return
	}
	k.add(float64(i))
}

func (k *kbnSum) value() float64 { return k.sum + k.err }

// liteReduce folds an aggregate's non-NULL values as SQLite does: sum of
// INTEGERs is an INTEGER (overflow is an error), otherwise REAL; avg is
// always REAL; min and max order across storage classes.
func liteReduce(name string, vals []Value) (Value, error) {
	switch name {
	case "count":
		return Int(int64(len(vals))), nil
	case "total":
		// total is sum as a REAL that is 0.0 over no values and never
		// overflows.
		var fsum float64
		for _, v := range vals {
			n, err := liteNum(v)
			if err != nil {
				return Null, err
			}
			f, _ := n.float()
			fsum += f
		}
		return Float(fsum), nil
	case "sum", "avg":
		if len(vals) == 0 {
			return Null, nil
		}
		allInt := true
		var isum int64
		var fsum float64
		for _, v := range vals {
			n, err := liteNum(v)
			if err != nil {
				return Null, err
			}
			if v.K != KInt && v.K != KBool {
				allInt = false
			}
			f, _ := n.float()
			fsum += f
			if allInt {
				s, err := intArith("+", isum, n.I)
				if err != nil {
					if name == "sum" {
						return Null, queryErr("integer overflow")
					}
					allInt = false
					continue
				}
				isum = s.I
			}
		}
		if name == "avg" {
			if allInt {
				return Float(float64(isum) / float64(len(vals))), nil
			}
			return Float(fsum / float64(len(vals))), nil
		}
		if allInt {
			return Int(isum), nil
		}
		return Float(fsum), nil
	case "min", "max", "any_value":
		if len(vals) == 0 {
			return Null, nil
		}
		best := vals[0]
		tie := false // best ties a different spelling (collation.go)
		for _, v := range vals[1:] {
			c, err := liteCompare(v, best)
			if err != nil {
				return Null, err
			}
			tie = tie || collTie(c, v, best)
			if name == "any_value" && c != 0 {
				return Null, cannot("any_value over differing values")
			}
			if (name == "max" && c > 0) || (name == "min" && c < 0) {
				best, tie = v, false
			}
		}
		if tie {
			return Null, cannot("min/max tie between values equal only under their collation")
		}
		return best, nil
	}
	return Null, cannot("SQLite aggregate %s", name)
}
