package pgtypes

import (
	"math"
	"testing"
)

func TestSpecialFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
		ok   bool
	}{
		{math.NaN(), "NaN", true},
		{math.Inf(1), "Infinity", true},
		{math.Inf(-1), "-Infinity", true},
		{0, "", false},
		{-1.5e300, "", false},
	} {
		got, ok := SpecialFloat(c.f)
		if got != c.want || ok != c.ok {
			t.Errorf("SpecialFloat(%v) = %q, %v; want %q, %v", c.f, got, ok, c.want, c.ok)
		}
	}
}
