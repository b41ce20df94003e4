package prove

import (
	"math/big"
	"sort"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "arithmetic": integer sums are put in one form before keying,
// so (3 + (x + 2)) + 12 and x + 17 read alike, and a column a conjunct pins
// to a constant (x = 3) is replaced by it in the other conjuncts.
// PostgreSQL raises "integer out of range" on the first partial sum out
// of range, so a sum is folded only where every partial sum of the
// written form is in range exactly when the folded sum is: one column
// term, added (never under a minus), and constants of one sign within
// int4 (so that every addition computes in the column's width or int4,
// as x + total does). (x + 10) - 5 fails on the largest x where x + 5
// does not, and (x + y) + 1 where x + (y + 1) does not: such sums only
// have the two operands of each addition put in one order.

// fold rewrites e (a private copy) bottom-up.
func fold(e *plan.Expr) *plan.Expr { return foldInts(e, nil) }

// foldInts is fold where ints (nil: every integer-typed expression)
// says which terms hold only integers: a sum is rewritten only when all
// its terms do. In SQLite an INTEGER column may hold 'abc' (x + 0 is 0,
// not x) or 0.1 (0.1 + 1 - 1 is not 0.1 in floating point).
func foldInts(e *plan.Expr, ints func(*plan.Expr) bool) *plan.Expr {
	return foldIntsBy(e, ints, nil)
}

// foldIntsBy is foldInts that orders a sum's terms by their keys under
// col (nil: each column its own ID). Two sides compared under a pairing
// must order alike: sorted by each side's own IDs, (x + y) + z and the
// same sum over columns numbered in another order came out (x + y) + z
// and (z + y) + x, whose keys differ (TPC-DS query 83 with its FROM
// lists and WHERE terms reordered). The order changes no value the fold
// does not already assume alike.
func foldIntsBy(e *plan.Expr, ints func(*plan.Expr) bool, col func(plan.ColumnID) (plan.ColumnID, bool)) *plan.Expr {
	if col == nil {
		col = func(c plan.ColumnID) (plan.ColumnID, bool) { return c, true }
	}
	return plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
		if x.Kind == plan.Func && x.Name == "concat" {
			return flattenConcat(x)
		}
		if x.Kind == plan.Cast && x.Typ == catalog.Int && (x.Value == "" || x.Value == "int4") && len(x.Args) == 1 && integralExtract(x.Args[0]) {
			// A whole number already: the cast changes no value (a
			// smallint could overflow on a year past 32767).
			return x.Args[0]
		}
		if x.Kind == plan.Subquery && x.SubKind == plan.SubScalar {
			if c := constSubquery(x); c != nil {
				return c
			}
		}
		if x.Kind == plan.Op && x.Typ == catalog.Numeric && len(x.Args) == 2 {
			return foldNumeric(x)
		}
		if x.Kind != plan.Op || x.Typ != catalog.Int || len(x.Args) != 2 {
			return x
		}
		switch x.Name {
		case plan.OpMul:
			a, oka := intConst(x.Args[0])
			b, okb := intConst(x.Args[1])
			if oka && okb {
				return intExpr(new(big.Int).Mul(a, b), x)
			}
		case plan.OpAdd, plan.OpSub:
			return sum(x, ints, col)
		}
		return x
	})
}

func intConst(e *plan.Expr) (*big.Int, bool) {
	if e.Kind != plan.Const || e.Null || e.Typ != catalog.Int {
		return nil, false
	}
	return new(big.Int).SetString(e.Value, 10)
}

func intExpr(v *big.Int, orig *plan.Expr) *plan.Expr {
	if !v.IsInt64() {
		return orig
	}
	return plan.NewConst(catalog.Int, v.String())
}

type addend struct {
	e   *plan.Expr
	neg bool
	key string
}

// sum flattens an integer sum, adds its constants and orders its terms,
// where that keeps PostgreSQL's overflow errors (foldKeepsOverflow);
// otherwise it only orders the operands of an addition.
func sum(x *plan.Expr, ints func(*plan.Expr) bool, col func(plan.ColumnID) (plan.ColumnID, bool)) *plan.Expr {
	var terms []addend
	total := new(big.Int)
	ok := true
	var collect func(e *plan.Expr, neg bool)
	collect = func(e *plan.Expr, neg bool) {
		if e.Typ != catalog.Int {
			ok = false
			return
		}
		if e.Kind == plan.Op && len(e.Args) == 2 && (e.Name == plan.OpAdd || e.Name == plan.OpSub) {
			collect(e.Args[0], neg)
			collect(e.Args[1], neg != (e.Name == plan.OpSub))
			return
		}
		if c, isConst := intConst(e); isConst {
			if neg {
				total.Sub(total, c)
			} else {
				total.Add(total, c)
			}
			return
		}
		if ints != nil && !ints(e) {
			ok = false
			return
		}
		k, mapped := exprKey(e, col)
		if !mapped {
			// A column col does not map: its own ID orders it.
			k, _ = exprKey(e, func(c plan.ColumnID) (plan.ColumnID, bool) { return c, true })
		}
		terms = append(terms, addend{e: e, neg: neg, key: k})
	}
	collect(x, false)
	if !ok || !total.IsInt64() {
		return x
	}
	if !foldKeepsOverflow(x, terms) {
		return commuteAdd(x, col)
	}
	sort.SliceStable(terms, func(i, j int) bool {
		if terms[i].neg != terms[j].neg {
			return !terms[i].neg
		}
		return terms[i].key < terms[j].key
	})
	if len(terms) == 0 {
		return plan.NewConst(catalog.Int, total.String())
	}
	if terms[0].neg {
		return x // a leading negated term has no form without a unary minus
	}
	out := terms[0].e
	for _, t := range terms[1:] {
		op := plan.OpAdd
		if t.neg {
			op = plan.OpSub
		}
		out = plan.NewOp(op, catalog.Int, out, t.e)
	}
	switch total.Sign() {
	case 1:
		out = plan.NewOp(plan.OpAdd, catalog.Int, out, plan.NewConst(catalog.Int, total.String()))
	case -1:
		out = plan.NewOp(plan.OpSub, catalog.Int, out, plan.NewConst(catalog.Int, new(big.Int).Neg(total).String()))
	}
	return out
}

// pins finds conjuncts col = constant over integer, date and boolean
// columns: in every row they keep, col is that constant, whatever the
// expression around it. ints (nil: all) says which integer columns hold
// only integers: a SQLite computed column equal to 3 may be REAL 3.0,
// and 3.0 / 2 is not 3 / 2.
func pins(cs []*plan.Expr, ints func(*plan.Expr) bool) map[plan.ColumnID]*plan.Expr {
	out := map[plan.ColumnID]*plan.Expr{}
	for _, c := range cs {
		if !c.IsOp(plan.OpEq) || len(c.Args) != 2 {
			continue
		}
		a, b := c.Args[0], c.Args[1]
		if a.Kind != plan.ColRef {
			a, b = b, a
		}
		if a.Kind != plan.ColRef || b.Kind != plan.Const || b.Null || a.Typ != b.Typ {
			continue
		}
		switch a.Typ {
		case catalog.Int:
			if ints == nil || ints(a) {
				out[a.Col] = b
			}
		case catalog.Date, catalog.Bool:
			out[a.Col] = b
		}
	}
	return out
}

// substitute replaces pinned columns in e (a private copy) by their
// constants, except in the pinning conjunct itself.
func substitute(e *plan.Expr, pinned map[plan.ColumnID]*plan.Expr) *plan.Expr {
	if len(pinned) == 0 {
		return e
	}
	if e.IsOp(plan.OpEq) && len(e.Args) == 2 {
		for _, x := range e.Args {
			if x.Kind == plan.ColRef && pinned[x.Col] != nil {
				other := e.Args[0]
				if other == x {
					other = e.Args[1]
				}
				if other.Kind == plan.Const {
					return e
				}
			}
		}
	}
	return plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
		if x.Kind == plan.ColRef {
			if c := pinned[x.Col]; c != nil {
				return c.Copy()
			}
		}
		return x
	})
}

// flattenConcat: concat ignores NULL arguments and never returns NULL,
// so a nested concat's arguments join the outer call's.
func flattenConcat(x *plan.Expr) *plan.Expr {
	nested := false
	for _, a := range x.Args {
		if a.Kind == plan.Func && a.Name == "concat" {
			nested = true
		}
	}
	if !nested {
		return x
	}
	c := *x
	c.Args = nil
	for _, a := range x.Args {
		if a.Kind == plan.Func && a.Name == "concat" {
			c.Args = append(c.Args, a.Args...)
		} else {
			c.Args = append(c.Args, a)
		}
	}
	return &c
}

// constSubquery reads (SELECT constant) with no FROM as the constant.
func constSubquery(x *plan.Expr) *plan.Expr {
	n := x.Sub
	if n == nil || n.Op != plan.OpProject || len(n.Proj) != 1 || n.Proj[0].Expr.Kind != plan.Const || n.Proj[0].Expr.Typ != x.Typ {
		return nil
	}
	in := n.Inputs[0]
	if in.Op != plan.OpValues || len(in.Rows) != 1 || len(in.Cols) != 0 {
		return nil
	}
	return n.Proj[0].Expr.Copy()
}

// foldNumeric adds, subtracts or multiplies two exact numeric (or integer)
// literals. The result is written without redundant zeros, as the
// planner writes numeric literals; only its value counts.
func foldNumeric(x *plan.Expr) *plan.Expr {
	var v [2]*big.Rat
	for i, a := range x.Args {
		if a.Kind != plan.Const || a.Null || (a.Typ != catalog.Numeric && a.Typ != catalog.Int) {
			return x
		}
		r, ok := new(big.Rat).SetString(a.Value)
		if !ok {
			return x
		}
		v[i] = r
	}
	var r *big.Rat
	switch x.Name {
	case plan.OpAdd:
		r = new(big.Rat).Add(v[0], v[1])
	case plan.OpSub:
		r = new(big.Rat).Sub(v[0], v[1])
	case plan.OpMul:
		r = new(big.Rat).Mul(v[0], v[1])
	default:
		return x
	}
	// Sums and products of decimals are decimals: 40 digits hold them.
	txt := r.FloatString(40)
	if back, ok := new(big.Rat).SetString(txt); !ok || back.Cmp(r) != 0 {
		return x
	}
	txt = strings.TrimRight(strings.TrimRight(txt, "0"), ".")
	if txt == "-0" {
		txt = "0"
	}
	return plan.NewConst(catalog.Numeric, txt)
}

// integralFields are the fields EXTRACT returns as whole numbers (numeric
// of scale 0 in PostgreSQL), whose text is that of the integer.
var integralFields = map[string]bool{"year": true, "month": true, "day": true, "quarter": true, "dow": true, "doy": true, "week": true,
	"decade": true, "century": true, "millennium": true, "isodow": true, "isoyear": true, "hour": true, "minute": true}

// integralExtract says whether e is EXTRACT of a whole-number field from
// a date or timestamp.
func integralExtract(e *plan.Expr) bool {
	if e.Kind != plan.Func || e.Name != "extract" || e.Typ != catalog.Numeric || len(e.Args) != 2 {
		return false
	}
	f := e.Args[0]
	if f.Kind != plan.Const || f.Null || !integralFields[strings.ToLower(strings.Trim(f.Value, "' "))] {
		return false
	}
	t := e.Args[1].Typ
	return t == catalog.Date || t == catalog.Timestamp
}

// foldKeepsOverflow reports whether folding the integer sum x, whose
// non-constant terms are terms, into one column term plus one constant
// raises exactly where x does: at most one term, under no minus; constants
// (with their signs in x) all of one sign, so that the partial sums move
// one way and the last is out of range whenever one is; and each
// constant within int4, so that no addition computes in a width the
// folded one does not.
func foldKeepsOverflow(x *plan.Expr, terms []addend) bool {
	if len(terms) > 1 || len(terms) == 1 && terms[0].neg {
		return false
	}
	pos, neg := false, false
	inInt4 := true
	// underMinus: e is (within) the right operand of a subtraction,
	// where a column term would be negated on the way (0 - (0 - x)
	// fails on the smallest x, x does not).
	var walk func(e *plan.Expr, negated, underMinus bool)
	walk = func(e *plan.Expr, negated, underMinus bool) {
		if e.Kind == plan.Op && len(e.Args) == 2 && (e.Name == plan.OpAdd || e.Name == plan.OpSub) {
			walk(e.Args[0], negated, underMinus)
			walk(e.Args[1], negated != (e.Name == plan.OpSub), underMinus || e.Name == plan.OpSub)
			return
		}
		c, isConst := intConst(e)
		if !isConst {
			if underMinus {
				inInt4 = false // the folded sum would not fail where this does
			}
			return
		}
		if !c.IsInt64() || c.Int64() != int64(int32(c.Int64())) {
			inInt4 = false
		}
		switch sign := c.Sign(); {
		case sign > 0 && !negated, sign < 0 && negated:
			pos = true
		case sign != 0:
			neg = true
		}
	}
	walk(x, false, false)
	return inInt4 && !(pos && neg)
}

// commuteAdd orders the two operands of an integer addition by their
// keys under col: a + b and b + a raise alike, where regrouping a sum may
// not.
func commuteAdd(x *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool)) *plan.Expr {
	if x.Name != plan.OpAdd {
		return x
	}
	ka, _ := exprKey(x.Args[0], col)
	kb, _ := exprKey(x.Args[1], col)
	if kb < ka {
		return plan.NewOp(plan.OpAdd, x.Typ, x.Args[1], x.Args[0])
	}
	return x
}
