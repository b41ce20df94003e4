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

// orderShows reports whether an ordered result's order is one a query
// without ORDER BY need not give: two different rows in different sort
// groups. Where every row ties, or the rows of different groups are
// alike, any order of the rows reads the same.
func orderShows(r *exec.Result) bool {
	if !r.Ordered || len(r.Ties) != len(r.Rows) || len(r.Rows) < 2 {
		return false
	}
	first := rowKey(r.Rows[0], nil)
	for p := 1; p < len(r.Rows); p++ {
		if r.Ties[p] != r.Ties[0] && rowKey(r.Rows[p], nil) != first {
			return true
		}
	}
	// Rows of other groups all equal the first: they differ, if at all,
	// among themselves, and a row of the first group against a later
	// one is the only other pair.
	for p := 1; p < len(r.Rows); p++ {
		if r.Ties[p] == r.Ties[0] {
			continue
		}
		for q := 1; q < p; q++ {
			if r.Ties[q] != r.Ties[p] && rowKey(r.Rows[q], nil) != rowKey(r.Rows[p], nil) {
				return true
			}
		}
	}
	return false
}

// ordersRows reports whether a result's ORDER BY orders anything: it is
// ordered and not every row ties (ORDER BY a constant orders nothing).
func ordersRows(r *exec.Result) bool {
	if !r.Ordered || len(r.Ties) != len(r.Rows) {
		return r.Ordered
	}
	for _, t := range r.Ties {
		if t != r.Ties[0] {
			return true
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

// What "the same result" means: two results are the same when their
// rows match as bags (in order, where both are ordered) with each value
// compared as the engine's IS NOT DISTINCT FROM compares it within its
// type family: 1, 1.0 and 1.00 are one number, -0 is 0, a real 0.1 is
// the float8 0.100000001490116 it widens to, '1 day' is '24:00:00'.
// Results that are the same this way but print differently are a
// display-only difference: never a counterexample, but reported
// (Result.DisplayOnly, and a note in the verdict) so that it is not
// hidden.

// displayDiffers returns a description of the first row whose printed
// text differs between two results that compare the same, or "" when
// they print alike (as bags of printed rows).
func displayDiffers(a, b *exec.Result) string {
	if a == nil || b == nil || len(a.Rows) != len(b.Rows) || !mayPrintApart(a) && !mayPrintApart(b) {
		return ""
	}
	text := func(row []exec.Value) string {
		parts := make([]string, len(row))
		for i, v := range row {
			parts[i] = v.String()
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	count := map[string]int{}
	for _, row := range a.Rows {
		count[text(row)]++
	}
	var extra []string
	for _, row := range b.Rows {
		t := text(row)
		if count[t] == 0 {
			extra = append(extra, t)
			continue
		}
		count[t]--
	}
	if len(extra) == 0 {
		return ""
	}
	for _, row := range a.Rows {
		t := text(row)
		if count[t] > 0 {
			return "the reference prints " + t + " where the candidate prints " + extra[0]
		}
	}
	return ""
}

// mayPrintApart says r holds a value that may equal another under = yet
// print differently (a numeric's scale, a float's -0, an interval's
// spelling): only then can two same results print apart. Integers, texts,
// booleans and dates print as they compare, and checking every row of
// every database the search runs for nothing was a tenth of its time.
func mayPrintApart(r *exec.Result) bool {
	for _, row := range r.Rows {
		for _, v := range row {
			switch v.K {
			case exec.KNumeric, exec.KFloat, exec.KInterval:
				return true
			}
		}
	}
	return false
}
