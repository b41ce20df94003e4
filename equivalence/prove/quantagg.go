package prove

import (
	"math"
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "quantified aggregates": optimizers encode a quantified
// comparison with an uncorrelated one-column S by aggregates over S,
//
//	x > ANY (S)  as  R × (SELECT MIN(y) m FROM S) WHERE x > m
//	x > ALL (S)  as  R × (SELECT MAX(y) m, COUNT(*) c, COUNT(y) ck FROM S)
//	                 WHERE c = 0 OR (ck = c AND x > m)
//
// (or CASE WHEN c = 0 THEN true WHEN ck < c THEN NULL ELSE x > m END).
// Rather than a pattern per encoding, quantAgg reads the join condition
// over the aggregate row as a function of what the aggregates can see of
// S: empty (c = 0, m NULL), only NULLs (c ≥ 1, ck = 0, m NULL), NULLs and
// values (1 ≤ ck < c), values only (ck = c ≥ 1), and in the last two the
// truth of x op m (TRUE, FALSE or NULL). Where the condition is TRUE on
// exactly the cases where x op ANY (S), or x op ALL (S), is TRUE, the
// join is that quantified comparison, read as any-semi-join and
// not-any-anti-join read it:
//
//	x op ANY (S): TRUE iff S holds a value and x op m is TRUE, m the
//	  extreme that is easiest to beat (MIN for > and >=, MAX for < <=);
//	x op ALL (S): TRUE iff S is empty, or S holds no NULL and x op m is
//	  TRUE, m the other extreme.
//
// Only TRUE counts: the condition is an inner join's, and the aggregate
// without GROUP BY returns one row exactly, so the join keeps each row of
// R once when the condition is TRUE and drops it when FALSE or NULL. The
// aggregate's columns must be read by that condition alone.

// tv is a truth value of three-valued logic.
type tv uint8

const (
	tvFalse tv = iota
	tvTrue
	tvNull
)

func tvAnd(a, b tv) tv {
	switch {
	case a == tvFalse || b == tvFalse:
		return tvFalse
	case a == tvNull || b == tvNull:
		return tvNull
	}
	return tvTrue
}

func tvOr(a, b tv) tv {
	switch {
	case a == tvTrue || b == tvTrue:
		return tvTrue
	case a == tvNull || b == tvNull:
		return tvNull
	}
	return tvFalse
}

func tvNot(a tv) tv {
	switch a {
	case tvTrue:
		return tvFalse
	case tvFalse:
		return tvTrue
	}
	return tvNull
}

// qcase is one shape of S as its aggregates see it.
type qcase struct {
	c, k    [2]int64 // COUNT(*) and COUNT(y) lie in [lo, hi]
	kLessC  bool     // COUNT(y) < COUNT(*); else they are equal
	extreme bool     // MIN(y) and MAX(y) are not NULL
	v       tv       // x op m, when extreme
}

const unbounded = math.MaxInt64

// qcases lists every shape S can take.
func qcases() []qcase {
	cs := []qcase{
		{c: [2]int64{0, 0}, k: [2]int64{0, 0}},
		{c: [2]int64{1, unbounded}, k: [2]int64{0, 0}, kLessC: true},
	}
	for _, v := range []tv{tvTrue, tvFalse, tvNull} {
		cs = append(cs,
			qcase{c: [2]int64{2, unbounded}, k: [2]int64{1, unbounded}, kLessC: true, extreme: true, v: v},
			qcase{c: [2]int64{1, unbounded}, k: [2]int64{1, unbounded}, extreme: true, v: v})
	}
	return cs
}

// aggRole is what one aggregate column of the encoding computes.
type aggRole uint8

const (
	roleMin aggRole = iota
	roleMax
	roleCountStar
	roleCount
)

// qform is the condition being read: the aggregate's columns and the
// compared expression x, found as the atoms are met.
type qform struct {
	roles  map[plan.ColumnID]aggRole
	x      *plan.Expr
	xKey   string
	op     string // x op m
	m      plan.ColumnID
	hasCmp bool
}

// readRoles gives each call of aggregate g its role, all over one y.
func readRoles(g *plan.Node) (map[plan.ColumnID]aggRole, *plan.Expr, bool) {
	roles := map[plan.ColumnID]aggRole{}
	var y *plan.Expr
	var yKey string
	for _, it := range g.Aggs {
		e := it.Expr
		if e.Kind != plan.Agg || e.Distinct || e.Filter != nil {
			return nil, nil, false
		}
		if e.Name == "count" && e.Star {
			roles[it.ID] = roleCountStar
			continue
		}
		if len(e.Args) != 1 || e.Args[0].HasSubquery() {
			return nil, nil, false
		}
		k, ok := exprKey(e.Args[0], identityCol)
		if !ok || y != nil && k != yKey {
			return nil, nil, false
		}
		y, yKey = e.Args[0], k
		switch e.Name {
		case "min":
			roles[it.ID] = roleMin
		case "max":
			roles[it.ID] = roleMax
		case "count":
			roles[it.ID] = roleCount
		default:
			return nil, nil, false
		}
	}
	return roles, y, y != nil
}

func identityCol(c plan.ColumnID) (plan.ColumnID, bool) { return c, true }

func isCmp(op string) bool {
	switch op {
	case plan.OpEq, plan.OpNe, plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe:
		return true
	}
	return false
}

var flippedCmp = map[string]string{plan.OpEq: plan.OpEq, plan.OpNe: plan.OpNe, plan.OpLt: plan.OpGt,
	plan.OpGt: plan.OpLt, plan.OpLe: plan.OpGe, plan.OpGe: plan.OpLe}

// role returns e's role when it is a column of the aggregate.
func (f *qform) role(e *plan.Expr) (aggRole, bool) {
	if e.Kind != plan.ColRef {
		return 0, false
	}
	r, ok := f.roles[e.Col]
	return r, ok
}

// eval is e's truth in case s; ok is false where e is not made of the
// atoms the cases decide.
func (f *qform) eval(e *plan.Expr, s qcase) (tv, bool) {
	switch e.Kind {
	case plan.Const:
		if e.Null {
			return tvNull, true
		}
		if e.Typ != catalog.Bool {
			return 0, false
		}
		if e.IsTrue() {
			return tvTrue, true
		}
		return tvFalse, e.IsFalse()
	case plan.Case:
		return f.evalCase(e, s)
	case plan.Op:
	default:
		return 0, false
	}
	switch e.Name {
	case plan.OpAnd, plan.OpOr:
		acc := tvTrue
		if e.Name == plan.OpOr {
			acc = tvFalse
		}
		for _, a := range e.Args {
			t, ok := f.eval(a, s)
			if !ok {
				return 0, false
			}
			if e.Name == plan.OpAnd {
				acc = tvAnd(acc, t)
			} else {
				acc = tvOr(acc, t)
			}
		}
		return acc, true
	}
	if len(e.Args) == 1 {
		if e.Name == plan.OpIsNull || e.Name == plan.OpIsNotNull {
			r, ok := f.role(e.Args[0])
			if !ok {
				return 0, false
			}
			isNull := (r == roleMin || r == roleMax) && !s.extreme
			if e.Name == plan.OpIsNotNull {
				isNull = !isNull
			}
			return boolTV(isNull), true
		}
		t, ok := f.eval(e.Args[0], s)
		if !ok {
			return 0, false
		}
		switch e.Name {
		case plan.OpNot:
			return tvNot(t), true
		case plan.OpIsTrue:
			return boolTV(t == tvTrue), true
		case plan.OpIsNotTrue:
			return boolTV(t != tvTrue), true
		case plan.OpIsFalse:
			return boolTV(t == tvFalse), true
		case plan.OpIsNotFalse:
			return boolTV(t != tvFalse), true
		}
		return 0, false
	}
	if len(e.Args) != 2 || !isCmp(e.Name) {
		return 0, false
	}
	return f.evalCmp(e.Name, e.Args[0], e.Args[1], s)
}

func boolTV(b bool) tv {
	if b {
		return tvTrue
	}
	return tvFalse
}

// evalCase reads a searched CASE: the first WHEN that is TRUE picks its
// THEN; none does: the ELSE, or NULL.
func (f *qform) evalCase(e *plan.Expr, s qcase) (tv, bool) {
	if e.CaseHasOperand {
		return 0, false
	}
	args := e.Args
	var els *plan.Expr
	if e.HasElse {
		if len(args) == 0 {
			return 0, false
		}
		els, args = args[len(args)-1], args[:len(args)-1]
	}
	if len(args)%2 != 0 {
		return 0, false
	}
	for i := 0; i < len(args); i += 2 {
		w, ok := f.eval(args[i], s)
		if !ok {
			return 0, false
		}
		if w == tvTrue {
			return f.eval(args[i+1], s)
		}
	}
	if els == nil {
		return tvNull, true
	}
	return f.eval(els, s)
}

// evalCmp decides a op b: x against an extreme, or counts against counts
// and integer constants.
func (f *qform) evalCmp(op string, a, b *plan.Expr, s qcase) (tv, bool) {
	ra, aAgg := f.role(a)
	rb, bAgg := f.role(b)
	if bAgg && (rb == roleMin || rb == roleMax) && !aAgg {
		return f.evalExtreme(op, a, b, s)
	}
	if aAgg && (ra == roleMin || ra == roleMax) && !bAgg {
		return f.evalExtreme(flippedCmp[op], b, a, s)
	}
	ia, ok := f.countRange(a, ra, aAgg, s)
	if !ok {
		return 0, false
	}
	ib, ok := f.countRange(b, rb, bAgg, s)
	if !ok {
		return 0, false
	}
	if aAgg && bAgg && ra != rb {
		// COUNT(y) against COUNT(*): their relation is the case's.
		less := s.kLessC
		if ra == roleCountStar {
			op = flippedCmp[op]
		}
		if !less {
			return boolTV(op == plan.OpEq || op == plan.OpLe || op == plan.OpGe), true
		}
		return boolTV(op == plan.OpNe || op == plan.OpLt || op == plan.OpLe), true
	}
	if aAgg && bAgg {
		return 0, false
	}
	// At most one side ranges; the truth of a comparison with a constant
	// changes only at the constant, so these points decide it.
	lo, hi, k := ia[0], ia[1], ib[0]
	if ib[0] != ib[1] {
		lo, hi, k, op = ib[0], ib[1], ia[0], flippedCmp[op]
	}
	big := hi
	if hi == unbounded {
		big = maxInt(lo, k) + 2 // beyond every point named
	}
	var got []bool
	for _, pt := range []int64{lo, big, k - 1, k, k + 1} {
		if pt >= lo && pt <= big {
			got = append(got, cmpInts(op, pt, k))
		}
	}
	for _, g := range got[1:] {
		if g != got[0] {
			return 0, false
		}
	}
	return boolTV(got[0]), true
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func cmpInts(op string, a, b int64) bool {
	switch op {
	case plan.OpEq:
		return a == b
	case plan.OpNe:
		return a != b
	case plan.OpLt:
		return a < b
	case plan.OpLe:
		return a <= b
	case plan.OpGt:
		return a > b
	}
	return a >= b
}

// countRange is the range of a count column or an integer constant.
func (f *qform) countRange(e *plan.Expr, r aggRole, isAgg bool, s qcase) ([2]int64, bool) {
	if isAgg {
		switch r {
		case roleCountStar:
			return s.c, true
		case roleCount:
			return s.k, true
		}
		return [2]int64{}, false
	}
	if e.Kind != plan.Const || e.Null || e.Typ != catalog.Int {
		return [2]int64{}, false
	}
	v, err := strconv.ParseInt(e.Value, 10, 64)
	if err != nil || v > 1<<40 || v < -(1<<40) {
		return [2]int64{}, false
	}
	return [2]int64{v, v}, true
}

// evalExtreme decides x op m, m an extreme column: one x, one op and one
// m throughout the condition.
func (f *qform) evalExtreme(op string, x, m *plan.Expr, s qcase) (tv, bool) {
	if op == plan.OpEq || op == plan.OpNe || x.HasSubquery() {
		return 0, false
	}
	xk, ok := exprKey(x, identityCol)
	if !ok {
		return 0, false
	}
	bad := false
	plan.Walk(x, func(y *plan.Expr) {
		if y.Kind == plan.ColRef {
			if _, in := f.roles[y.Col]; in {
				bad = true
			}
		}
	})
	if bad {
		return 0, false
	}
	if f.hasCmp && (xk != f.xKey || op != f.op || m.Col != f.m) {
		return 0, false
	}
	f.hasCmp, f.x, f.xKey, f.op, f.m = true, x, xk, op, m.Col
	if !s.extreme {
		return tvNull, true
	}
	return s.v, true
}

// quantTarget is the truth of x op ANY (S) (all false) or x op ALL (S) in
// case s, where m is the extreme the encoding compares with.
func quantTarget(all bool, s qcase) bool {
	if all {
		return s.c[1] == 0 || s.extreme && !s.kLessC && s.v == tvTrue
	}
	return s.extreme && s.v == tvTrue
}
