package refute

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

const usecPerDay = 86_400_000_000

// constAsColumn evaluates a constant expression compared with column c
// and returns the values of c's type at its boundary: a timestamp
// compared with a date column gives its day, and the next day when it is
// not a midnight; a date compared with a timestamp column its midnight.
// Expressions that read data, or that the executor cannot evaluate,
// give nothing.
func constAsColumn(c *catalog.Column, e *plan.Expr) []exec.Value {
	v, err := exec.EvalConst(e)
	if err != nil || v.IsNull() {
		return nil
	}
	if v.K == exec.KTimestamp && v.B {
		// An instant is a value of a timestamp with time zone column;
		// it is a timestamp or a date only in the session's TimeZone.
		if c.Type == catalog.Timestamp && isTimestamptz(specOf(*c)) {
			return []exec.Value{v}
		}
		return nil
	}
	switch {
	case c.Type == catalog.Date && v.K == exec.KTimestamp:
		day := floorDiv(v.I, usecPerDay)
		if v.I%usecPerDay == 0 {
			return []exec.Value{exec.Date(day)}
		}
		return []exec.Value{exec.Date(day), exec.Date(day + 1)}
	case c.Type == catalog.Timestamp && v.K == exec.KDate:
		return []exec.Value{exec.Timestamp(v.I * usecPerDay)}
	case v.K == kindOf(c.Type):
		return []exec.Value{v}
	}
	if out, err := exec.Parse(c.Type, v.String()); err == nil && v.K == exec.KText {
		return []exec.Value{out}
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// timestampNeighbours are the values just beside a timestamp: a second
// and a day either side, and its day's midnight.
func timestampNeighbours(v exec.Value) []exec.Value {
	const sec = 1_000_000
	out := []exec.Value{exec.Timestamp(v.I - sec), exec.Timestamp(v.I + sec), exec.Timestamp(v.I - usecPerDay), exec.Timestamp(v.I + usecPerDay)}
	if mid := floorDiv(v.I, usecPerDay) * usecPerDay; mid != v.I {
		out = append(out, exec.Timestamp(mid))
	}
	return out
}
