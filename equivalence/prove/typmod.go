package prove

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// A cast to numeric(p,s) rounds to s digits and fails past p-s whole
// digits, so it keeps its argument's value only when the argument's own
// type fits: a column declared numeric(p',s') with s' <= s and p'-s' <=
// p-s, or an integer (at most 19 digits) with p-s >= 19. Anything else
// (a computed value, a float, a narrower target) is an opaque value.

// numericTypmod reads "numeric(p,s)", "numeric(p)" or "decimal(...)";
// ok is false for an unconstrained numeric or another type.
func numericTypmod(t string) (p, s int, ok bool) {
	t = strings.ToLower(strings.ReplaceAll(t, " ", ""))
	for _, name := range []string{"numeric(", "decimal("} {
		if strings.HasPrefix(t, name) && strings.HasSuffix(t, ")") {
			args := strings.Split(t[len(name):len(t)-1], ",")
			var err error
			if p, err = strconv.Atoi(args[0]); err != nil {
				return 0, 0, false
			}
			if len(args) == 2 {
				if s, err = strconv.Atoi(args[1]); err != nil {
					return 0, 0, false
				}
			} else if len(args) != 1 {
				return 0, 0, false
			}
			return p, s, true
		}
	}
	return 0, 0, false
}

// castKeepsValue says whether e, a cast to numeric of a numeric or
// integer argument, keeps the argument's value. declared gives a
// reference column's declared type (nil: unknown). display is set when
// the value is kept but prints differently (a wider scale: 10.50 and
// 10.5000), a display-only difference the proof names.
func castKeepsValue(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), declared func(plan.ColumnID) string) (keeps bool, display string) {
	keeps, widens := castKeepsValueScale(e, col, declared)
	if keeps && widens {
		display = "numeric scale (cast to " + e.Value + ")"
	}
	return keeps, display
}

func castKeepsValueScale(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), declared func(plan.ColumnID) string) (keeps, widens bool) {
	if e.Typ != catalog.Numeric {
		// Widening to floating point is the documented assumption; a cast
		// naming an exact type (float4, int2, bpchar, ...: see
		// build/exacttype.go) changes values.
		return e.Value == "", false
	}
	p, s, ok := numericTypmod(e.Value)
	if !ok {
		return e.Value == "" || strings.EqualFold(strings.TrimSpace(e.Value), "numeric") || strings.EqualFold(strings.TrimSpace(e.Value), "decimal"), false
	}
	arg := e.Args[0]
	if arg.Typ == catalog.Int {
		return p-s >= 19, s > 0
	}
	if arg.Kind != plan.ColRef || declared == nil {
		return false, false
	}
	c, ok := col(arg.Col)
	if !ok {
		return false, false
	}
	ap, as, ok := numericTypmod(declared(c))
	return ok && as <= s && ap-as <= p-s, as < s
}

// declaredType is a reference column's declared type, "" when it is not
// a table's column.
func declaredType(m *plan.Metadata, c plan.ColumnID) string {
	meta := m.Col(c)
	if meta.Instance < 0 || meta.Instance >= len(m.Instances) {
		return ""
	}
	t := m.Instances[meta.Instance].Table
	if t == nil || meta.Ordinal < 0 || meta.Ordinal >= len(t.Columns) {
		return ""
	}
	return t.Columns[meta.Ordinal].TypeSQL
}
