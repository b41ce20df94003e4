package refute

import (
	"math"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/exec"
)

// valueKey is equal for two result values the comparison treats as the
// same. Numbers compare by value across int/numeric/float (1, 1.0 and
// 1.00 are one value, as the judge ignores display scale), and
// non-integral numbers to 12 significant digits: float sums depend on
// the order rows are added in, which equivalent plans may change.
func valueKey(v exec.Value) string {
	switch v.K {
	case exec.KInt:
		return "n" + strconv.FormatInt(v.I, 10)
	case exec.KNumeric:
		if v.R.IsInt() && v.R.Num().IsInt64() {
			return "n" + v.R.Num().String()
		}
		f, _ := v.R.Float64()
		return "n" + strconv.FormatFloat(f, 'g', 12, 64)
	case exec.KFloat:
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
			return "f" + v.String()
		}
		if v.F == math.Trunc(v.F) && math.Abs(v.F) < 1<<53 {
			return "n" + strconv.FormatInt(int64(v.F), 10)
		}
		return "n" + strconv.FormatFloat(v.F, 'g', 12, 64)
	case exec.KText:
		// Output form: a char(n) value prints padded, and c differs
		// from c::text (Value.Key ignores the padding, as grouping does).
		return "t" + v.S
	}
	return v.Key()
}

func rowKey(row []exec.Value, perm []int) string {
	var b strings.Builder
	for i := range row {
		j := i
		if perm != nil {
			j = perm[i]
		}
		k := valueKey(row[j])
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
	}
	return b.String()
}

// differs reports whether two deterministic results tell the queries
// apart. Rows compare as bags; where both results are ordered, also
// segment by segment between positions that are sort-group boundaries in
// both, since rows never leave their peer group whatever order the
// database picks within it. An unordered candidate against an ordered
// reference compares as a bag: its row order is unspecified, and the
// judge flags the missing ORDER BY structurally.
func differs(a, b *exec.Result, ignoreColumnOrder bool) bool {
	if len(a.Rows) != len(b.Rows) {
		return true
	}
	if len(a.Rows) == 0 {
		return false
	}
	wa, wb := len(a.Rows[0]), len(b.Rows[0])
	if wa != wb {
		return true
	}
	if !ignoreColumnOrder || wa > 6 {
		return differsPerm(a, b, nil)
	}
	found := false
	permute(wa, func(p []int) bool {
		if !differsPerm(a, b, p) {
			found = true
		}
		return found
	})
	return !found
}

func differsPerm(a, b *exec.Result, perm []int) bool {
	cuts := []int{0, len(a.Rows)}
	if a.Ordered && b.Ordered && len(a.Ties) == len(a.Rows) && len(b.Ties) == len(b.Rows) {
		cuts = cuts[:1]
		for p := 1; p < len(a.Rows); p++ {
			if a.Ties[p] != a.Ties[p-1] && b.Ties[p] != b.Ties[p-1] {
				cuts = append(cuts, p)
			}
		}
		cuts = append(cuts, len(a.Rows))
	}
	for i := 1; i < len(cuts); i++ {
		count := map[string]int{}
		for _, row := range a.Rows[cuts[i-1]:cuts[i]] {
			count[rowKey(row, nil)]++
		}
		for _, row := range b.Rows[cuts[i-1]:cuts[i]] {
			k := rowKey(row, perm)
			if count[k] == 0 {
				return true
			}
			count[k]--
		}
	}
	return false
}

// permute calls f with each permutation of 0..n-1 until f returns true.
func permute(n int, f func([]int) bool) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == n {
			return f(p)
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			if rec(k + 1) {
				return true
			}
			p[k], p[i] = p[i], p[k]
		}
		return false
	}
	rec(0)
}
