package prove

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "timestamptz-bound": a timestamptz holds whole microseconds,
// so a bound on one has a strict and an inclusive spelling a microsecond
// apart (Django's __year=2024 is BETWEEN '2024-01-01 00:00:00+00:00' AND
// '2024-12-31 23:59:59.999999+00:00', a hand-written range < '2025-01-01
// 00:00:00+00:00'). In a filter's comparisons of an expression with a
// timestamptz literal written with its offset, the literal is read as
// its instant and written in UTC, and the bound made canonical: upper
// bounds strict, lower bounds inclusive,
//
//	x <= c ⇒ x < c + 1µs        x > c ⇒ x >= c + 1µs
//
// (the mirrored forms alike). Only literals with an explicit numeric
// offset are read (no session time zone is involved), with six or fewer
// fractional digits (PostgreSQL rounds more) and fields PostgreSQL takes
// as they stand (no 24:00:00, no February 30). Infinity and NULL compare
// alike on both spellings.

var tzLiteral = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-])(\d{2})(?::?(\d{2}))?$`)

// parseTZLiteral reads text as PostgreSQL reads a timestamptz literal of
// the forms above; ok is false for any other text.
func parseTZLiteral(text string) (time.Time, bool) {
	m := tzLiteral.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	frac := m[7]
	for len(frac) < 6 {
		frac += "0"
	}
	off := n(m[9])*3600 + n(m[10])*60
	if m[8] == "-" {
		off = -off
	}
	y, mo, d, h, mi, s := n(m[1]), n(m[2]), n(m[3]), n(m[4]), n(m[5]), n(m[6])
	if y < 1 || n(m[9]) > 15 || n(m[10]) > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, n(frac)*1000, time.FixedZone("", off))
	// time.Date normalizes what PostgreSQL would refuse or read
	// otherwise (month 13, 24:00:00, second 60): take only fields that
	// come back as written.
	if t.Year() != y || int(t.Month()) != mo || t.Day() != d || t.Hour() != h || t.Minute() != mi || t.Second() != s {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// tzConst returns the instant of e when e is a timestamptz literal cast
// from text as parseTZLiteral reads it.
func tzConst(e *plan.Expr) (time.Time, bool) {
	if e.Kind != plan.Cast || e.Typ != catalog.Timestamp || e.Value != "timestamptz" || len(e.Args) != 1 {
		return time.Time{}, false
	}
	a := e.Args[0]
	if a.Kind != plan.Const || a.Null || a.Typ != catalog.Text {
		return time.Time{}, false
	}
	return parseTZLiteral(a.Value)
}

// tzCast is the timestamptz literal of t, written in UTC.
func tzCast(like *plan.Expr, t time.Time) *plan.Expr {
	c := like.Copy()
	c.Args[0] = plan.NewConst(catalog.Text, fmt.Sprintf("%s.%06d+00", t.Format("2006-01-02 15:04:05"), t.Nanosecond()/1000))
	return c
}

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{plan.OpLt: plan.OpGt, plan.OpLe: plan.OpGe, plan.OpGt: plan.OpLt, plan.OpGe: plan.OpLe, plan.OpEq: plan.OpEq, plan.OpNe: plan.OpNe}

// timestampBounds applies timestamptz-bound to filter n, or returns nil.
func timestampBounds(n *plan.Node) *plan.Node {
	if n.Op != plan.OpFilter {
		return nil
	}
	preds := make([]*plan.Expr, len(n.Preds))
	changed := false
	for i, e := range n.Preds {
		preds[i] = e
		if f := timestampBound(e); f != nil {
			preds[i], changed = f, true
		}
	}
	if !changed {
		return nil
	}
	c := *n
	c.Preds = preds
	return &c
}

// timestampBound returns e, a comparison of x with a timestamptz
// literal, with the literal in UTC and the bound canonical; nil where e
// is no such comparison or is canonical already.
func timestampBound(e *plan.Expr) *plan.Expr {
	if e.Kind != plan.Op || len(e.Args) != 2 {
		return nil
	}
	op, ok := flipped[e.Name]
	if !ok {
		return nil
	}
	x, c := e.Args[0], e.Args[1]
	t, ok := tzConst(c)
	if !ok {
		// c op' x: read as x op c.
		if t, ok = tzConst(x); !ok {
			return nil
		}
		x, c = c, x
	} else {
		op = e.Name
	}
	if _, both := tzConst(x); both {
		return nil
	}
	switch op {
	case plan.OpLe:
		op, t = plan.OpLt, t.Add(time.Microsecond)
	case plan.OpGt:
		op, t = plan.OpGe, t.Add(time.Microsecond)
	}
	out := plan.NewOp(op, e.Typ, x, tzCast(c, t))
	if out.Name == e.Name && sameTree(out.Args[0], e.Args[0]) && sameTree(out.Args[1], e.Args[1]) {
		return nil
	}
	out.Pos = e.Pos
	return out
}
