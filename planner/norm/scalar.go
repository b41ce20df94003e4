package norm

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Scalar rules rewrite one expression node whose children are already
// normalized. Each returns the replacement and whether it fired.

// expandIsDistinct: a IS DISTINCT FROM c ⇒ (a <> c OR a IS NULL) and
// a IS NOT DISTINCT FROM c ⇒ (a = c AND a IS NOT NULL), for a non-NULL
// literal c. Neither side is ever NULL, so this holds in every context.
func expandIsDistinct(e *plan.Expr) (*plan.Expr, bool) {
	if !(e.IsOp(plan.OpIsDistinct) || e.IsOp(plan.OpNotDistinc)) {
		return e, false
	}
	a, c := e.Args[0], e.Args[1]
	if a.Kind == plan.Const {
		a, c = c, a
	}
	if c.Kind != plan.Const || c.Null || a.Kind == plan.Const || !copyable(a) {
		return e, false
	}
	if e.Name == plan.OpIsDistinct {
		return plan.NewOp(plan.OpOr, catalog.Bool, plan.NewOp(plan.OpNe, catalog.Bool, a, c), plan.NewOp(plan.OpIsNull, catalog.Bool, a.Copy())), true
	}
	return plan.NewOp(plan.OpAnd, catalog.Bool, plan.NewOp(plan.OpEq, catalog.Bool, a, c), plan.NewOp(plan.OpIsNotNull, catalog.Bool, a.Copy())), true
}

// maxCopied bounds the size of an operand the expansions above repeat.
// Each expansion mentions its operand more than once, so nesting them
// (((a IS DISTINCT FROM 0) IS DISTINCT FROM 1) ...) doubled the
// expression per level. Past the bound the operator stays unexpanded,
// which is sound, only less canonical.
const maxCopied = 24

// copyable reports whether e is small enough to repeat and holds no
// subquery, whose plan a copy would duplicate.
func copyable(e *plan.Expr) bool {
	n := 0
	var count func(x *plan.Expr) bool
	count = func(x *plan.Expr) bool {
		n++
		if n > maxCopied || x.Kind == plan.Subquery {
			return false
		}
		ok := true
		x.Children(func(s **plan.Expr) {
			if ok && *s != nil {
				ok = count(*s)
			}
		})
		return ok
	}
	return count(e)
}

// integerBound: for an integer-valued x and integer literal c, x > c ⇒
// x >= c+1 and x < c ⇒ x <= c-1, so equal bounds read alike. intValued
// says x holds only integers: in SQLite an INTEGER column of an ordinary
// table may hold 5.5, which is > 5 and not >= 6.
func integerBound(e *plan.Expr, intValued func(*plan.Expr) bool) (*plan.Expr, bool) {
	if !(e.IsOp(plan.OpGt) || e.IsOp(plan.OpLt)) || len(e.Args) != 2 {
		return e, false
	}
	x, c := e.Args[0], e.Args[1]
	if x.Typ != catalog.Int || c.Kind != plan.Const || c.Null || c.Typ != catalog.Int || x.Kind == plan.Const || !intValued(x) {
		return e, false
	}
	v, ok := new(big.Int).SetString(c.Value, 10)
	if !ok {
		return e, false
	}
	if e.Name == plan.OpGt {
		return plan.NewOp(plan.OpGe, catalog.Bool, x, plan.NewConst(catalog.Int, v.Add(v, big.NewInt(1)).String())), true
	}
	return plan.NewOp(plan.OpLe, catalog.Bool, x, plan.NewConst(catalog.Int, v.Sub(v, big.NewInt(1)).String())), true
}

// expandBetween: a BETWEEN x AND y ⇒ a >= x AND a <= y;
// a NOT BETWEEN x AND y ⇒ a < x OR a > y.
func expandBetween(e *plan.Expr) (*plan.Expr, bool) {
	if e.Kind != plan.Op {
		return e, false
	}
	a, lo, hi := argsOf3(e)
	if (e.Name == "between" || e.Name == "not between") && !copyable(a) {
		return e, false
	}
	switch e.Name {
	case "between":
		return plan.NewOp(plan.OpAnd, catalog.Bool, plan.NewOp(plan.OpGe, catalog.Bool, a, lo), plan.NewOp(plan.OpLe, catalog.Bool, a.Copy(), hi)), true
	case "not between":
		return plan.NewOp(plan.OpOr, catalog.Bool, plan.NewOp(plan.OpLt, catalog.Bool, a, lo), plan.NewOp(plan.OpGt, catalog.Bool, a.Copy(), hi)), true
	}
	return e, false
}

func argsOf3(e *plan.Expr) (*plan.Expr, *plan.Expr, *plan.Expr) {
	if len(e.Args) != 3 {
		return nil, nil, nil
	}
	return e.Args[0], e.Args[1], e.Args[2]
}

// expandInList: a IN (x, y) ⇒ a = x OR a = y; a NOT IN (x, y) ⇒
// a <> x AND a <> y. Both hold in three-valued logic.
func expandInList(e *plan.Expr) (*plan.Expr, bool) {
	if e.Kind != plan.Op || (e.Name != "in" && e.Name != "not in") {
		return e, false
	}
	if len(e.Args)-1 > maxExpandedIn && allConst(e.Args[1:]) {
		return e, false
	}
	if len(e.Args) > 2 && !copyable(e.Args[0]) {
		return e, false
	}
	cmp, join := plan.OpEq, plan.OpOr
	if e.Name == "not in" {
		cmp, join = plan.OpNe, plan.OpAnd
	}
	var terms []*plan.Expr
	for i, v := range e.Args[1:] {
		l := e.Args[0]
		if i > 0 {
			l = l.Copy()
		}
		terms = append(terms, plan.NewOp(cmp, catalog.Bool, l, v))
	}
	if len(terms) == 1 {
		return terms[0], true
	}
	return plan.NewOp(join, catalog.Bool, terms...), true
}

// maxExpandedIn bounds the IN lists expandInList turns into comparisons.
// A longer list of constants stays an IN list that sortInList puts in
// order without duplicates: one expression per item instead of three,
// and two such lists compare as sets in linear time. Lists this long are
// generated, never hand-written, and gain nothing from the rules that read
// single comparisons.
const maxExpandedIn = 1000

// sortInList: a IN (3, 1, 3) ⇒ a IN (1, 3) for a list of over
// maxExpandedIn constants, and the same for NOT IN. An IN list is an OR
// (NOT IN an AND) of comparisons, so order and repetition do not change
// its value in three-valued logic; only identical constants (same type,
// same canonical text, or both NULL) are merged.
func sortInList(e *plan.Expr) (*plan.Expr, bool) {
	if e.Kind != plan.Op || (e.Name != "in" && e.Name != "not in") || len(e.Args)-1 <= maxExpandedIn || !allConst(e.Args[1:]) {
		return e, false
	}
	items := e.Args[1:]
	inOrder := true
	for i := 1; i < len(items); i++ {
		if compareConst(items[i-1], items[i]) >= 0 {
			inOrder = false
			break
		}
	}
	if inOrder {
		return e, false
	}
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, compareConst)
	sorted = slices.CompactFunc(sorted, func(a, b *plan.Expr) bool { return compareConst(a, b) == 0 })
	return plan.NewOp(e.Name, e.Typ, append([]*plan.Expr{e.Args[0]}, sorted...)...), true
}

func allConst(es []*plan.Expr) bool {
	for _, x := range es {
		if x.Kind != plan.Const {
			return false
		}
	}
	return true
}

// compareConst orders constants by type, then NULL last, then canonical
// text: any total order serves, since it only decides where an item goes.
func compareConst(a, b *plan.Expr) int {
	if c := cmp.Compare(a.Typ, b.Typ); c != 0 {
		return c
	}
	if a.Null != b.Null {
		if a.Null {
			return 1
		}
		return -1
	}
	return strings.Compare(a.Value, b.Value)
}

var negated = map[string]string{plan.OpEq: plan.OpNe, plan.OpNe: plan.OpEq, plan.OpLt: plan.OpGe, plan.OpGe: plan.OpLt,
	plan.OpGt: plan.OpLe, plan.OpLe: plan.OpGt, plan.OpLike: plan.OpNotLike, plan.OpNotLike: plan.OpLike,
	plan.OpILike: plan.OpNotILike, plan.OpNotILike: plan.OpILike, plan.OpIsNull: plan.OpIsNotNull, plan.OpIsNotNull: plan.OpIsNull,
	plan.OpIsDistinct: plan.OpNotDistinc, plan.OpNotDistinc: plan.OpIsDistinct, plan.OpIsTrue: plan.OpIsNotTrue,
	plan.OpIsNotTrue: plan.OpIsTrue, plan.OpIsFalse: plan.OpIsNotFalse, plan.OpIsNotFalse: plan.OpIsFalse}

// pushNot: NOT (a op b) ⇒ a op' b; NOT NOT x ⇒ x; De Morgan for AND/OR.
// NOT of a comparison is NULL exactly when the comparison is, so each
// step holds in three-valued logic.
func pushNot(e *plan.Expr) (*plan.Expr, bool) {
	if !e.IsOp(plan.OpNot) {
		return e, false
	}
	x := e.Args[0]
	switch {
	case x.IsOp(plan.OpNot):
		return x.Args[0], true
	case x.IsOp(plan.OpAnd) || x.IsOp(plan.OpOr):
		op := plan.OpOr
		if x.Name == plan.OpOr {
			op = plan.OpAnd
		}
		var args []*plan.Expr
		for _, a := range x.Args {
			n, _ := pushNot(plan.NewOp(plan.OpNot, catalog.Bool, a))
			args = append(args, n)
		}
		return plan.NewOp(op, catalog.Bool, args...), true
	case (x.IsOp(plan.OpIsNull) || x.IsOp(plan.OpIsNotNull)) && x.Args[0].Kind == plan.Tuple:
		// ROW(1, NULL) is neither NULL nor NOT NULL: for rows the two
		// tests are not each other's negation.
		return e, false
	case x.Kind == plan.Op:
		if n, ok := negated[x.Name]; ok {
			return plan.NewOp(n, catalog.Bool, x.Args...), true
		}
	case x.Kind == plan.Const && x.Typ == catalog.Bool && !x.Null:
		return plan.NewBool(x.Value != "true"), true
	}
	return e, false
}

// flattenAndOr: (a AND (b AND c)) ⇒ (a AND b AND c), and drops repeated
// operands (x AND x ⇒ x), which is sound for both connectives.
func flattenAndOr(e *plan.Expr, key func(*plan.Expr) string) (*plan.Expr, bool) {
	if !(e.IsOp(plan.OpAnd) || e.IsOp(plan.OpOr)) {
		return e, false
	}
	fired := false
	var args []*plan.Expr
	seen := map[string]bool{}
	var add func(a *plan.Expr)
	add = func(a *plan.Expr) {
		if a.IsOp(e.Name) {
			fired = true
			for _, x := range a.Args {
				add(x)
			}
			return
		}
		k := dedupKey(a, key)
		if seen[k] {
			fired = true
			return
		}
		seen[k] = true
		args = append(args, a)
	}
	for _, a := range e.Args {
		add(a)
	}
	if len(args) == 1 {
		return args[0], true
	}
	if !fired {
		return e, false
	}
	return plan.NewOp(e.Name, catalog.Bool, args...), true
}

// dedupKey extends the canonical key with the IDs of the columns e reads.
// The canonical key leaves out instance numbers, so a.x = 1 and b.x = 1 over
// two instances of one table share it, yet they are different predicates.
func dedupKey(e *plan.Expr, key func(*plan.Expr) string) string {
	k := key(e)
	buf := make([]byte, 0, len(k)+16)
	buf = append(buf, k...)
	plan.WalkDeep(e, func(x *plan.Expr) {
		if x.Kind == plan.ColRef {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(x.Col), 10)
		}
	})
	return string(buf)
}

var flipped = map[string]string{plan.OpEq: plan.OpEq, plan.OpNe: plan.OpNe, plan.OpLt: plan.OpGt, plan.OpGt: plan.OpLt,
	plan.OpLe: plan.OpGe, plan.OpGe: plan.OpLe, plan.OpIsDistinct: plan.OpIsDistinct, plan.OpNotDistinc: plan.OpNotDistinc}

// orientComparison: 3 < a ⇒ a > 3; between two non-constants the operand
// with the smaller canonical key goes left (b = a ⇒ a = b).
func orientComparison(e *plan.Expr, key func(*plan.Expr) string) (*plan.Expr, bool) {
	if e.Kind != plan.Op || len(e.Args) != 2 {
		return e, false
	}
	f, ok := flipped[e.Name]
	if !ok {
		return e, false
	}
	l, r := e.Args[0], e.Args[1]
	lc, rc := l.Kind == plan.Const, r.Kind == plan.Const
	swap := false
	switch {
	case lc && !rc:
		swap = true
	case lc == rc:
		swap = key(l) > key(r)
	}
	if !swap {
		return e, false
	}
	return plan.NewOp(f, catalog.Bool, r, l), true
}

// sortCommutative orders the operands of AND and OR by canonical key.
func sortCommutative(e *plan.Expr, key func(*plan.Expr) string) (*plan.Expr, bool) {
	if !(e.IsOp(plan.OpAnd) || e.IsOp(plan.OpOr)) {
		return e, false
	}
	keys := make([]string, len(e.Args))
	for i, a := range e.Args {
		keys[i] = key(a)
	}
	if sort.StringsAreSorted(keys) {
		return e, false
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	args := make([]*plan.Expr, len(idx))
	for i, j := range idx {
		args[i] = e.Args[j]
	}
	return plan.NewOp(e.Name, catalog.Bool, args...), true
}

// coerceLiteral: a literal compared with a typed expression takes that
// type when the conversion is exact (age = '3' ⇒ age = 3 for an integer
// age), as PostgreSQL resolves an unknown-typed literal.
func coerceLiteral(e *plan.Expr, noAffinity func(*plan.Expr) bool) (*plan.Expr, bool) {
	if e.Kind != plan.Op || len(e.Args) != 2 {
		return e, false
	}
	if _, ok := flipped[e.Name]; !ok {
		return e, false
	}
	fired := false
	args := []*plan.Expr{e.Args[0], e.Args[1]}
	for i := 0; i < 2; i++ {
		c, other := args[i], args[1-i]
		if c.Kind != plan.Const || c.Null || other.Kind == plan.Const {
			continue
		}
		t := other.Typ
		if t == catalog.Unknown || t == catalog.Null || t == c.Typ && (!t.IsNumeric() || t == catalog.Int && canonicalInt(c.Value)) {
			continue
		}
		if noAffinity != nil && (t == catalog.Text) != (c.Typ == catalog.Text) && noAffinity(other) {
			// SQLite converts a literal only beside an operand with an
			// affinity (a column, a CAST): MAX(name) > 3 compares text
			// with a number, which no text equals or undercuts.
			continue
		}
		nc, ok := build.CoerceConst(c, t)
		if noAffinity != nil && t == catalog.Text && c.Typ.IsNumeric() {
			// SQLite reads the literal as a number first: 1.50 becomes
			// '1.5', and 0.30000000000000004 '0.3'.
			text, isNum := catalog.SQLiteLiteralText(c.Value)
			nc, ok = plan.NewConst(catalog.Text, text), isNum
		}
		if !ok || (nc.Typ == c.Typ && nc.Value == c.Value) {
			continue
		}
		args[i] = nc
		fired = true
	}
	if !fired {
		return e, false
	}
	return plan.NewOp(e.Name, e.Typ, args...), true
}

// canonicalInt reports whether v is an integer literal as CoerceConst
// would write it (no sign but '-', no leading zeros, within int64), so
// coercing it to integer changes nothing. Large lists are mostly such
// literals; this spares building a copy of each to compare.
func canonicalInt(v string) bool {
	d := strings.TrimPrefix(v, "-")
	if d == "" || len(d) > 18 || d[0] == '0' && (len(d) > 1 || len(v) > 1) {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// foldConstants evaluates operators over literals and simplifies AND/OR
// with TRUE/FALSE operands.
func foldConstants(e *plan.Expr) (*plan.Expr, bool) {
	if e.Kind != plan.Op {
		return e, false
	}
	switch e.Name {
	case plan.OpAnd, plan.OpOr:
		absorb, identity := e.IsOp(plan.OpAnd) == false, e.IsOp(plan.OpAnd)
		// AND: FALSE absorbs, TRUE is the identity; OR the reverse.
		// args stays nil until an operand is dropped, so the common case
		// (nothing to fold) allocates nothing, however long the list.
		var args []*plan.Expr
		for i, a := range e.Args {
			if a.Kind == plan.Const && !a.Null && a.Typ == catalog.Bool {
				isTrue := a.Value == "true"
				if isTrue == absorb {
					return plan.NewBool(absorb), true
				}
				if isTrue == identity {
					if args == nil {
						args = append(make([]*plan.Expr, 0, len(e.Args)), e.Args[:i]...)
					}
					continue
				}
			}
			if args != nil {
				args = append(args, a)
			}
		}
		if args == nil {
			return e, false
		}
		switch len(args) {
		case 0:
			return plan.NewBool(identity), true
		case 1:
			return args[0], true
		}
		return plan.NewOp(e.Name, catalog.Bool, args...), true
	}
	if len(e.Args) != 2 || e.Args[0].Kind != plan.Const || e.Args[1].Kind != plan.Const {
		return e, false
	}
	l, r := e.Args[0], e.Args[1]
	if (l.Null || r.Null) && flipped[e.Name] != "" && e.Name != plan.OpIsDistinct && e.Name != plan.OpNotDistinc {
		return plan.NewNull(catalog.Bool), true
	}
	if l.Null || r.Null {
		return e, false
	}
	if l.Typ.IsNumeric() && r.Typ.IsNumeric() {
		a, ok1 := new(big.Rat).SetString(l.Value)
		b, ok2 := new(big.Rat).SetString(r.Value)
		if !ok1 || !ok2 {
			return e, false
		}
		c := a.Cmp(b)
		switch e.Name {
		case plan.OpEq:
			return plan.NewBool(c == 0), true
		case plan.OpNe:
			return plan.NewBool(c != 0), true
		case plan.OpLt:
			return plan.NewBool(c < 0), true
		case plan.OpLe:
			return plan.NewBool(c <= 0), true
		case plan.OpGt:
			return plan.NewBool(c > 0), true
		case plan.OpGe:
			return plan.NewBool(c >= 0), true
		case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpMod:
			if l.Typ != catalog.Int || r.Typ != catalog.Int || e.Typ != catalog.Int || !a.IsInt() || !b.IsInt() {
				return e, false
			}
			x, y := a.Num(), b.Num()
			z := new(big.Int)
			switch e.Name {
			case plan.OpAdd:
				z.Add(x, y)
			case plan.OpSub:
				z.Sub(x, y)
			case plan.OpMul:
				z.Mul(x, y)
			default:
				if y.Sign() == 0 {
					return e, false // division by zero fails
				}
				if e.Name == plan.OpDiv {
					z.Quo(x, y) // truncated toward zero, as PostgreSQL's
				} else {
					z.Rem(x, y) // the dividend's sign, as PostgreSQL's
				}
			}
			if !intResultFits(x, y, z) {
				return e, false // PostgreSQL fails: integer out of range
			}
			return plan.NewConst(catalog.Int, z.String()), true
		}
	}
	if l.Typ == catalog.Text && r.Typ == catalog.Text {
		switch e.Name {
		case plan.OpEq:
			return plan.NewBool(l.Value == r.Value), true
		case plan.OpNe:
			return plan.NewBool(l.Value != r.Value), true
		}
	}
	return e, false
}

// intResultFits says whether PostgreSQL computes z from integer literals
// x and y without overflow: literals that fit int4 are int4, so their
// result must too; a wider operand makes the operation int8's.
func intResultFits(x, y, z *big.Int) bool {
	fits32 := func(v *big.Int) bool { return v.IsInt64() && v.Int64() >= math.MinInt32 && v.Int64() <= math.MaxInt32 }
	if fits32(x) && fits32(y) {
		return fits32(z)
	}
	return z.IsInt64()
}
