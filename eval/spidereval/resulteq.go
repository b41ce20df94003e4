package spidereval

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// The official comparison (test-suite-sql-eval's exec_eval.py,
// result_eq), in Go over the values Python's sqlite3 returns:
//   - two empty results are equal, whatever their columns;
//   - results of different sizes, or widths, differ;
//   - quick_rej: each row's values sorted by str(x)+str(type(x)) must
//     match row for row when order matters, as sets otherwise — a
//     necessary condition, and an artefact: 1 (int) and 1.0 (float) are
//     equal but sort apart beside 1.5, so (1, 1.5) and (1.0, 1.5) fail it;
//   - then some permutation of the second result's columns makes the
//     rows equal, in order when order matters, as multisets otherwise.
// Values compare as Python's ==: an int equals a float of the same value,
// a string never equals a number.

// pyKey is equal for values Python's == (and hash) treat as one.
func pyKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "N"
	case int64:
		return "n" + strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return "n" + strconv.FormatInt(int64(x), 10)
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return "s" + x
	case []byte:
		return "b" + string(x)
	}
	return "?"
}

// pyStr is str(x)+str(type(x)), unorder_row's sort key.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None<class 'NoneType'>"
	case int64:
		return strconv.FormatInt(x, 10) + "<class 'int'>"
	case float64:
		return pyFloatRepr(x) + "<class 'float'>"
	case string:
		return x + "<class 'str'>"
	case []byte:
		return pyBytesRepr(x) + "<class 'bytes'>"
	}
	return ""
}

// pyFloatRepr is Python's repr of a float: the shortest digits that read
// back, fixed notation when the decimal point falls within -4 < decpt <=
// 16, else d.ddde±XX.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := x + 1
	if decpt <= -4 || decpt > 16 {
		s := digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		es := "+"
		if x < 0 {
			es, x = "-", -x
		}
		xs := strconv.Itoa(x)
		if len(xs) < 2 {
			xs = "0" + xs
		}
		return sign + s + "e" + es + xs
	}
	switch {
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	}
	return sign + digits[:decpt] + "." + digits[decpt:]
}

// pyBytesRepr is repr(b) as Python writes it for ASCII-range bytes.
func pyBytesRepr(b []byte) string {
	var s strings.Builder
	s.WriteString("b'")
	for _, c := range b {
		switch {
		case c == '\\' || c == '\'':
			s.WriteByte('\\')
			s.WriteByte(c)
		case c == '\t':
			s.WriteString(`\t`)
		case c == '\n':
			s.WriteString(`\n`)
		case c == '\r':
			s.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			s.WriteString(`\x` + strconv.FormatUint(uint64(c)|0x100, 16)[1:])
		default:
			s.WriteByte(c)
		}
	}
	s.WriteByte('\'')
	return s.String()
}

func tupleKey(row []any) string {
	var b strings.Builder
	for _, v := range row {
		k := pyKey(v)
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
	}
	return b.String()
}

// unorderRow is unorder_row's key: the row's values sorted (stably) by
// pyStr, as a tuple key.
func unorderRow(row []any) string {
	vs := append([]any(nil), row...)
	sort.SliceStable(vs, func(i, j int) bool { return pyStr(vs[i]) < pyStr(vs[j]) })
	return tupleKey(vs)
}

// quickRej is quick_rej: true when the results may be equal.
func quickRej(r1, r2 [][]any, orderMatters bool) bool {
	if orderMatters {
		for i := range r1 {
			if unorderRow(r1[i]) != unorderRow(r2[i]) {
				return false
			}
		}
		return true
	}
	s1, s2 := map[string]bool{}, map[string]bool{}
	for _, r := range r1 {
		s1[unorderRow(r)] = true
	}
	for _, r := range r2 {
		s2[unorderRow(r)] = true
	}
	if len(s1) != len(s2) {
		return false
	}
	for k := range s1 {
		if !s2[k] {
			return false
		}
	}
	return true
}

// resultEq is result_eq. r1 is the gold query's result.
func resultEq(r1, r2 [][]any, orderMatters bool) bool {
	return resultEqWith(r1, r2, orderMatters, true)
}

// resultEqWith is result_eq, without quick_rej when quick is false (to
// tell its artefact apart).
func resultEqWith(r1, r2 [][]any, orderMatters, quick bool) bool {
	if len(r1) == 0 && len(r2) == 0 {
		return true
	}
	if len(r1) != len(r2) {
		return false
	}
	n := len(r1[0])
	if len(r2[0]) != n {
		return false
	}
	if quick && !quickRej(r1, r2, orderMatters) {
		return false
	}
	// allowed[i][j]: every value of r2's column j occurs in r1's column
	// i. A permutation outside it cannot make the rows equal; the
	// official script prunes with 20 sampled rows, which keeps the same
	// answer.
	allowed := make([][]bool, n)
	for i := range allowed {
		col := map[string]bool{}
		for _, row := range r1 {
			col[pyKey(row[i])] = true
		}
		allowed[i] = make([]bool, n)
		for j := 0; j < n; j++ {
			ok := true
			for _, row := range r2 {
				if !col[pyKey(row[j])] {
					ok = false
					break
				}
			}
			allowed[i][j] = ok
		}
	}
	want := make([]string, len(r1))
	for i, row := range r1 {
		want[i] = tupleKey(row)
	}
	perm := make([]int, n)
	used := make([]bool, n)
	var try func(i int) bool
	try = func(i int) bool {
		if i == n {
			return sameRows(want, r2, perm, orderMatters)
		}
		for j := 0; j < n; j++ {
			if !used[j] && allowed[i][j] {
				used[j], perm[i] = true, j
				if try(i + 1) {
					return true
				}
				used[j] = false
			}
		}
		return false
	}
	return try(0)
}

// sameRows compares r2, its columns permuted, with r1's row keys.
func sameRows(want []string, r2 [][]any, perm []int, orderMatters bool) bool {
	got := make([]string, len(r2))
	p := make([]any, len(perm))
	for i, row := range r2 {
		for k, j := range perm {
			p[k] = row[j]
		}
		got[i] = tupleKey(p)
	}
	if orderMatters {
		for i := range want {
			if want[i] != got[i] {
				return false
			}
		}
		return true
	}
	count := map[string]int{}
	for _, k := range want {
		count[k]++
	}
	for _, k := range got {
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// officialText is what the official script runs: postprocess (the
// spaced comparison operators joined), then DISTINCT removed unless kept.
func officialText(q string, keepDistinct bool) string {
	q = strings.NewReplacer("> =", ">=", "< =", "<=", "! =", "!=").Replace(q)
	if !keepDistinct {
		q = RemoveDistinct(q)
	}
	return q
}

// orderMatters is the official rule: the gold text contains "order by".
func orderMatters(gold string) bool { return strings.Contains(strings.ToLower(gold), "order by") }
