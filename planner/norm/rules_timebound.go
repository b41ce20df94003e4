package norm

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Comparisons with a timestamp (without time zone) literal, spelled one
// way. PostgreSQL compares a date with a timestamp by reading the date
// as its midnight (date_lt_timestamp and its siblings, exact: 'infinity'
// reads as 'infinity'), and a timestamp holds whole microseconds.

const usPerDay = 86_400_000_000

// dateTimestampBound: d < '2018-07-08 00:00:00'::timestamp ⇒ d <
// '2018-07-08'::date, for d of type date; with a time of day after
// midnight T, d < T ⇒ d <= date(T), d >= T ⇒ d > date(T), and the
// like (no date lies strictly between date(T) and T). d is a column of
// a table, declared date: an expression the plan types date may hold a
// timestamp (the plan types date + interval date), and a comparison of
// it with a date literal would read as one between dates.
func dateTimestampBound(z *normalizer, e *plan.Expr) (*plan.Expr, bool) {
	x, c, us, ok := timestampBound(e)
	if !ok || x.Typ != catalog.Date || x.Kind != plan.ColRef || z.p.Meta == nil || z.p.Meta.Col(x.Col).Instance < 0 {
		return e, false
	}
	days, tod := us/usPerDay, us%usPerDay
	if tod < 0 {
		days, tod = days-1, tod+usPerDay
	}
	date := plan.NewConst(catalog.Date, exec.Date(days).String())
	if _, err := exec.ParseDate(date.Value); err != nil || c.Kind != plan.Const {
		return e, false
	}
	op := e.Name
	if tod != 0 {
		switch e.Name {
		case plan.OpLt:
			op = plan.OpLe
		case plan.OpGe:
			op = plan.OpGt
		case plan.OpLe, plan.OpGt:
		default:
			return e, false // d = T is FALSE or NULL: left to others
		}
	}
	return plan.NewOp(op, catalog.Bool, x, date), true
}

// timestampStrictBound: ts < T ⇒ ts <= T - 1µs; ts > T ⇒ ts >= T +
// 1µs, for ts a column declared timestamp (without time zone) and T a
// timestamp literal: no timestamp lies between T - 1µs and T. A bound
// past the type's range, or a T the executor does not read, stays.
func timestampStrictBound(z *normalizer, e *plan.Expr) (*plan.Expr, bool) {
	if e.Name != plan.OpLt && e.Name != plan.OpGt {
		return e, false
	}
	x, _, us, ok := timestampBound(e)
	if !ok || x.Kind != plan.ColRef || z.p.Meta == nil || z.p.Meta.Col(x.Col).Instance < 0 {
		return e, false
	}
	switch z.p.Meta.Domain(x.Col).Base {
	case "timestamp", "timestamp without time zone":
	default:
		return e, false
	}
	op := plan.OpGe
	if e.Name == plan.OpLt {
		op, us = plan.OpLe, us-1
	} else {
		us++
	}
	s := exec.Value{K: exec.KTimestamp, I: us}.String()
	if back, err := exec.ParseTimestamp(s); err != nil || back.I != us {
		return e, false
	}
	return plan.NewOp(op, catalog.Bool, x, plan.NewConst(catalog.Timestamp, s)), true
}

// timestampBound reads e as x op T, T a timestamp literal on the right
// (orient-comparison puts constants there) the executor reads, in
// microseconds since 1970; x is not a constant.
func timestampBound(e *plan.Expr) (x, c *plan.Expr, us int64, ok bool) {
	if e.Kind != plan.Op || len(e.Args) != 2 {
		return nil, nil, 0, false
	}
	switch e.Name {
	case plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe, plan.OpEq:
	default:
		return nil, nil, 0, false
	}
	x, c = e.Args[0], e.Args[1]
	if x.Kind == plan.Const || c.Kind != plan.Const || c.Null || c.Typ != catalog.Timestamp {
		return nil, nil, 0, false
	}
	v, err := exec.ParseTimestamp(c.Value)
	if err != nil || v.K != exec.KTimestamp || v.B || v.String() != c.Value {
		return nil, nil, 0, false
	}
	return x, c, v.I, true
}
