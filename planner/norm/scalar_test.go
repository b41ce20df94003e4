package norm

import (
	"strconv"
	"testing"

	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// scalarEnv is a hand-built plan with two instances of one table, for
// calling scalar rules directly.
type scalarEnv struct {
	meta *plan.Metadata
	// a and b are two instances of t(i int, s text not null, d date, n numeric).
	ai, as, ad, an plan.ColumnID
	bi             plan.ColumnID
}

func newScalarEnv() *scalarEnv {
	t := &catalog.Table{Name: "t", Columns: []catalog.Column{
		{Name: "i", Type: catalog.Int}, {Name: "s", Type: catalog.Text, NotNull: true, Ordinal: 1},
		{Name: "d", Type: catalog.Date, Ordinal: 2}, {Name: "n", Type: catalog.Numeric, Ordinal: 3},
	}}
	m := &plan.Metadata{}
	var ids [2][]plan.ColumnID
	for inst := 0; inst < 2; inst++ {
		for i, c := range t.Columns {
			ids[inst] = append(ids[inst], m.AddColumn(plan.ColumnMeta{Name: c.Name, Type: c.Type, Instance: inst, Ordinal: i, NotNull: c.NotNull}))
		}
		m.Instances = append(m.Instances, plan.TableInstance{Table: t, Alias: "t", Cols: ids[inst]})
	}
	return &scalarEnv{meta: m, ai: ids[0][0], as: ids[0][1], ad: ids[0][2], an: ids[0][3], bi: ids[1][0]}
}

func (v *scalarEnv) col(id plan.ColumnID) *plan.Expr { return plan.NewCol(id, v.meta.Col(id).Type) }

// key is the anonymous sort key the normalizer uses.
func (v *scalarEnv) key(e *plan.Expr) string { return plan.NewFormatter(v.meta, nil, true).Expr(e) }

// text renders with instance numbers, to tell instances apart.
func (v *scalarEnv) text(e *plan.Expr) string { return plan.NewFormatter(v.meta, nil, false).Expr(e) }

func intc(s string) *plan.Expr  { return plan.NewConst(catalog.Int, s) }
func textc(s string) *plan.Expr { return plan.NewConst(catalog.Text, s) }
func op(name string, args ...*plan.Expr) *plan.Expr {
	return plan.NewOp(name, catalog.Bool, args...)
}

type scalarCase struct {
	name string
	in   *plan.Expr
	fire bool
	want string // rendered result (with instance numbers); "" to skip
}

func runScalar(t *testing.T, v *scalarEnv, rule func(*plan.Expr) (*plan.Expr, bool), cases []scalarCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := v.text(c.in)
			out, ok := rule(c.in)
			if ok != c.fire {
				t.Fatalf("fired=%v, want %v: %s => %s", ok, c.fire, before, v.text(out))
			}
			if !ok && v.text(out) != before {
				t.Errorf("did not fire but changed %s to %s", before, v.text(out))
			}
			if c.want != "" && v.text(out) != c.want {
				t.Errorf("%s => %s, want %s", before, v.text(out), c.want)
			}
		})
	}
}

func TestExpandBetween(t *testing.T) {
	v := newScalarEnv()
	runScalar(t, v, expandBetween, []scalarCase{
		{"between", op("between", v.col(v.ai), intc("1"), intc("5")), true, "((t1.i >= 1) and (t1.i <= 5))"},
		{"not-between", op("not between", v.col(v.ai), intc("1"), intc("5")), true, "((t1.i < 1) or (t1.i > 5))"},
		// SYMMETRIC swaps its bounds when needed; the plain expansion
		// would be wrong for BETWEEN SYMMETRIC 5 AND 1.
		{"symmetric-kept", op("between symmetric", v.col(v.ai), intc("5"), intc("1")), false, ""},
		{"other-op", op(plan.OpLt, v.col(v.ai), intc("1")), false, ""},
	})
}

func TestExpandInList(t *testing.T) {
	v := newScalarEnv()
	runScalar(t, v, expandInList, []scalarCase{
		{"in", op("in", v.col(v.ai), intc("1"), intc("2")), true, "((t1.i = 1) or (t1.i = 2))"},
		{"not-in", op("not in", v.col(v.ai), intc("1"), intc("2")), true, "((t1.i <> 1) and (t1.i <> 2))"},
		// x NOT IN (1, NULL) is never true: the NULL must survive.
		{"not-in-null", op("not in", v.col(v.ai), intc("1"), plan.NewNull(catalog.Null)), true, "((t1.i <> 1) and (t1.i <> null))"},
		{"single", op("in", v.col(v.ai), intc("7")), true, "(t1.i = 7)"},
		{"other-op", op(plan.OpEq, v.col(v.ai), intc("1")), false, ""},
	})
}

func TestPushNot(t *testing.T) {
	v := newScalarEnv()
	gt := op(plan.OpGt, v.col(v.ai), intc("3"))
	like := op(plan.OpLike, v.col(v.as), textc("a%"))
	tuple := &plan.Expr{Kind: plan.Tuple, Args: []*plan.Expr{v.col(v.ai), v.col(v.as)}, Typ: catalog.Unknown, Pos: -1}
	runScalar(t, v, pushNot, []scalarCase{
		{"comparison", op(plan.OpNot, gt), true, "(t1.i <= 3)"},
		{"like", op(plan.OpNot, like), true, "(t1.s not like 'a%')"},
		{"double", op(plan.OpNot, op(plan.OpNot, gt.Copy())), true, "(t1.i > 3)"},
		{"de-morgan-and", op(plan.OpNot, op(plan.OpAnd, gt.Copy(), like.Copy())), true, "((t1.i <= 3) or (t1.s not like 'a%'))"},
		{"de-morgan-or", op(plan.OpNot, op(plan.OpOr, gt.Copy(), like.Copy())), true, "((t1.i <= 3) and (t1.s not like 'a%'))"},
		{"is-null", op(plan.OpNot, op(plan.OpIsNull, v.col(v.ai))), true, "(t1.i is not null)"},
		{"is-true", op(plan.OpNot, op(plan.OpIsTrue, gt.Copy())), true, "((t1.i > 3) is not true)"},
		{"is-distinct", op(plan.OpNot, op(plan.OpIsDistinct, v.col(v.ai), v.col(v.bi))), true, "(t1.i is not distinct from t2.i)"},
		{"constant", op(plan.OpNot, plan.NewBool(true)), true, "false"},
		// NOT NULL stays NULL; there is nothing to push into.
		{"null-constant", op(plan.OpNot, plan.NewNull(catalog.Bool)), false, ""},
		// NOT (ROW(a, b) IS NULL) is true for ROW(1, NULL) while
		// ROW(1, NULL) IS NOT NULL is false: no rewrite for rows.
		{"row-is-null", op(plan.OpNot, op(plan.OpIsNull, tuple)), false, ""},
		{"row-is-not-null", op(plan.OpNot, op(plan.OpIsNotNull, tuple.Copy())), false, ""},
		{"function", op(plan.OpNot, &plan.Expr{Kind: plan.Func, Name: "f", Typ: catalog.Bool, Pos: -1}), false, ""},
		{"not-a-not", gt.Copy(), false, ""},
	})
}

func TestFlattenAndOr(t *testing.T) {
	v := newScalarEnv()
	a := op(plan.OpGt, v.col(v.ai), intc("1"))
	b := op(plan.OpEq, v.col(v.as), textc("x"))
	c := op(plan.OpLt, v.col(v.ai), intc("9"))
	rule := func(e *plan.Expr) (*plan.Expr, bool) { return flattenAndOr(e, v.key) }
	runScalar(t, v, rule, []scalarCase{
		{"nested-and", op(plan.OpAnd, a, op(plan.OpAnd, b, c)), true, "((t1.i > 1) and (t1.s = 'x') and (t1.i < 9))"},
		{"nested-or", op(plan.OpOr, op(plan.OpOr, a.Copy(), b.Copy()), c.Copy()), true, "((t1.i > 1) or (t1.s = 'x') or (t1.i < 9))"},
		{"duplicate", op(plan.OpAnd, a.Copy(), b.Copy(), a.Copy()), true, "((t1.i > 1) and (t1.s = 'x'))"},
		{"duplicate-to-one", op(plan.OpOr, a.Copy(), a.Copy()), true, "(t1.i > 1)"},
		{"or-under-and-kept", op(plan.OpAnd, a.Copy(), op(plan.OpOr, b.Copy(), c.Copy())), false, ""},
		{"flat", op(plan.OpAnd, a.Copy(), b.Copy()), false, ""},
		// Same text without instance numbers, different instances.
		{"self-join-not-duplicate", op(plan.OpAnd, op(plan.OpEq, v.col(v.ai), intc("1")), op(plan.OpEq, v.col(v.bi), intc("1"))), false, ""},
	})
}

func TestOrientComparison(t *testing.T) {
	v := newScalarEnv()
	rule := func(e *plan.Expr) (*plan.Expr, bool) { return orientComparison(e, v.key) }
	runScalar(t, v, rule, []scalarCase{
		{"constant-left", op(plan.OpLt, intc("3"), v.col(v.ai)), true, "(t1.i > 3)"},
		{"constant-left-le", op(plan.OpLe, intc("3"), v.col(v.ai)), true, "(t1.i >= 3)"},
		{"constant-left-eq", op(plan.OpEq, intc("3"), v.col(v.ai)), true, "(t1.i = 3)"},
		{"columns-by-key", op(plan.OpGt, v.col(v.as), v.col(v.ai)), true, "(t1.i < t1.s)"},
		{"constant-right", op(plan.OpLt, v.col(v.ai), intc("3")), false, ""},
		{"columns-ordered", op(plan.OpLt, v.col(v.ai), v.col(v.as)), false, ""},
		// LIKE is not symmetric.
		{"like", op(plan.OpLike, textc("a"), v.col(v.as)), false, ""},
	})
}

func TestFoldConstants(t *testing.T) {
	v := newScalarEnv()
	x := op(plan.OpGt, v.col(v.ai), intc("1"))
	null := plan.NewNull(catalog.Null)
	runScalar(t, v, foldConstants, []scalarCase{
		{"int-eq", op(plan.OpEq, intc("1"), intc("1")), true, "true"},
		{"numeric-eq", op(plan.OpEq, intc("1"), plan.NewConst(catalog.Numeric, "1.0")), true, "true"},
		{"lt", op(plan.OpLt, intc("2"), intc("1")), true, "false"},
		{"text-ne", op(plan.OpNe, textc("a"), textc("b")), true, "true"},
		{"add", plan.NewOp(plan.OpAdd, catalog.Int, intc("2"), intc("3")), true, "5"},
		{"null-comparison", op(plan.OpEq, null, intc("1")), true, "null::bool"},
		{"and-true", op(plan.OpAnd, plan.NewBool(true), x), true, "(t1.i > 1)"},
		{"and-false", op(plan.OpAnd, x.Copy(), plan.NewBool(false)), true, "false"},
		{"or-true", op(plan.OpOr, x.Copy(), plan.NewBool(true)), true, "true"},
		{"or-false", op(plan.OpOr, plan.NewBool(false), x.Copy()), true, "(t1.i > 1)"},
		// NULL AND x is NULL or FALSE depending on x: not foldable.
		{"and-null", op(plan.OpAnd, plan.NewNull(catalog.Bool), x.Copy()), false, ""},
		{"or-null", op(plan.OpOr, plan.NewNull(catalog.Bool), x.Copy()), false, ""},
		// IS DISTINCT FROM NULL is not NULL.
		{"is-distinct-null", op(plan.OpIsDistinct, null.Copy(), intc("1")), false, ""},
		// Text order depends on the collation.
		{"text-lt", op(plan.OpLt, textc("a"), textc("b")), false, ""},
		// Numeric sums may be inexact; division may fail.
		{"numeric-add", plan.NewOp(plan.OpAdd, catalog.Numeric, plan.NewConst(catalog.Numeric, "0.1"), plan.NewConst(catalog.Numeric, "0.2")), false, ""},
		{"div-zero", plan.NewOp(plan.OpDiv, catalog.Int, intc("1"), intc("0")), false, ""},
		{"column", x.Copy(), false, ""},
	})
}

// TestCoerceLiteralWithoutAffinity: in SQLite a literal beside an
// operand without affinity (an aggregate's output) is not converted;
// HAVING max(name) > 3 compares text with a number there. The truth of
// the pair is checked on SQLite in equivalence's
// TestSQLiteCoerceWithoutAffinity.
func TestCoerceLiteralWithoutAffinity(t *testing.T) {
	v := newScalarEnv()
	none := func(*plan.Expr) bool { return true }
	e := op(plan.OpGt, v.col(v.as), plan.NewConst(catalog.Int, "3"))
	if _, fired := coerceLiteral(e, none); fired {
		t.Error("coerced a number to text beside an operand without affinity")
	}
	if _, fired := coerceLiteral(e, func(*plan.Expr) bool { return false }); !fired {
		t.Error("did not coerce beside a text column")
	}
}

func TestCoerceLiteral(t *testing.T) {
	v := newScalarEnv()
	runScalar(t, v, func(e *plan.Expr) (*plan.Expr, bool) { return coerceLiteral(e, nil) }, []scalarCase{
		{"int-from-text", op(plan.OpEq, v.col(v.ai), textc("3")), true, "(t1.i = 3)"},
		{"int-left-literal", op(plan.OpLt, textc(" 3"), v.col(v.ai)), true, "(3 < t1.i)"},
		{"date-from-text", op(plan.OpGt, v.col(v.ad), textc("2020-01-01")), true, "(t1.d > '2020-01-01'::date)"},
		{"numeric-canonical", op(plan.OpEq, v.col(v.an), plan.NewConst(catalog.Numeric, "3.50")), true, "(t1.n = 3.5)"},
		{"int-from-fraction", op(plan.OpEq, v.col(v.ai), textc("3.5")), false, ""},
		{"int-from-word", op(plan.OpEq, v.col(v.ai), textc("x")), false, ""},
		{"int-from-numeric", op(plan.OpEq, v.col(v.ai), plan.NewConst(catalog.Numeric, "3.5")), false, ""},
		{"null-literal", op(plan.OpEq, v.col(v.ai), plan.NewNull(catalog.Null)), false, ""},
		{"text-text", op(plan.OpEq, v.col(v.as), textc("3")), false, ""},
		{"two-literals", op(plan.OpEq, intc("3"), textc("3")), false, ""},
		{"like-not-a-comparison", op(plan.OpLike, v.col(v.ai), textc("3")), false, ""},
	})
}

func TestSortCommutative(t *testing.T) {
	v := newScalarEnv()
	a := op(plan.OpGt, v.col(v.ai), intc("1"))
	b := op(plan.OpEq, v.col(v.as), textc("x"))
	rule := func(e *plan.Expr) (*plan.Expr, bool) { return sortCommutative(e, v.key) }
	runScalar(t, v, rule, []scalarCase{
		{"unsorted-and", op(plan.OpAnd, b, a), true, "((t1.i > 1) and (t1.s = 'x'))"},
		{"unsorted-or", op(plan.OpOr, b.Copy(), a.Copy()), true, "((t1.i > 1) or (t1.s = 'x'))"},
		{"sorted", op(plan.OpAnd, a.Copy(), b.Copy()), false, ""},
		// Only AND and OR commute here; LIKE operands do not.
		{"like", op(plan.OpLike, textc("b"), textc("a")), false, ""},
	})
}

// TestExpansionsBoundCopiedOperand: expansions that repeat their operand
// stop past maxCopied nodes, so nesting them stays linear in size.
func TestExpansionsBoundCopiedOperand(t *testing.T) {
	v := newScalarEnv()
	big := v.col(v.ai)
	for i := 0; i < 30; i++ {
		big = plan.NewOp(plan.OpAdd, catalog.Int, big, intc("1"))
	}
	runScalar(t, v, expandIsDistinct, []scalarCase{
		{name: "small-operand", in: op(plan.OpIsDistinct, v.col(v.ai), intc("3")), fire: true},
		{name: "large-operand", in: op(plan.OpIsDistinct, big, intc("3")), fire: false},
	})
	runScalar(t, v, expandBetween, []scalarCase{
		{name: "large-operand", in: op("between", big, intc("1"), intc("2")), fire: false},
	})
	runScalar(t, v, expandInList, []scalarCase{
		{name: "large-operand", in: op("in", big, intc("1"), intc("2")), fire: false},
		{name: "large-operand-one-item", in: op("in", big, intc("1")), fire: true},
	})
	// Nested IS DISTINCT FROM, 40 levels: bounded growth.
	e := v.col(v.ai)
	for i := 0; i < 40; i++ {
		e = op(plan.OpIsDistinct, e, intc("0"))
		if x, ok := expandIsDistinct(e); ok {
			e = x
		}
	}
	if n := len(v.text(e)); n > 4000 {
		t.Errorf("40 nested expansions render as %d bytes", n)
	}
}

func TestCanonicalInt(t *testing.T) {
	for v, want := range map[string]bool{"0": true, "7": true, "-7": true, "120": true, "-0": false, "007": false, "+1": false,
		"": false, "-": false, "1.5": false, "1e3": false, " 1": false, "123456789012345678": true, "1234567890123456789": false} {
		if got := canonicalInt(v); got != want {
			t.Errorf("canonicalInt(%q) = %v", v, got)
		}
		if want {
			if c, ok := build.CoerceConst(intc(v), catalog.Int); !ok || c.Value != v {
				t.Errorf("CoerceConst(%q) = %v, %v: not canonical after all", v, c, ok)
			}
		}
	}
}

// longList returns col IN (items...) with len(items) past maxExpandedIn
// by padding with distinct constants after the given ones.
func longList(v *scalarEnv, name string, items ...*plan.Expr) *plan.Expr {
	args := []*plan.Expr{v.col(v.ai)}
	args = append(args, items...)
	for i := 0; len(args)-1 <= maxExpandedIn; i++ {
		args = append(args, intc(strconv.Itoa(100000+i)))
	}
	return op(name, args...)
}

func TestSortInList(t *testing.T) {
	v := newScalarEnv()
	runScalar(t, v, expandInList, []scalarCase{
		{name: "long-constant-list-stays", in: longList(v, "in", intc("3"), intc("1")), fire: false},
		{name: "long-list-with-column-expands", in: longList(v, "in", v.col(v.ai)), fire: true},
	})
	runScalar(t, v, sortInList, []scalarCase{
		{name: "short-list", in: op("in", v.col(v.ai), intc("3"), intc("1")), fire: false},
		{name: "unsorted", in: longList(v, "in", intc("3"), intc("1")), fire: true},
		{name: "not-in-unsorted", in: longList(v, "not in", intc("3"), intc("1")), fire: true},
		{name: "sorted", in: func() *plan.Expr { e, _ := sortInList(longList(v, "in", intc("3"), intc("1"))); return e }(), fire: false},
	})
	// Duplicates go, NULL stays once, distinct constants all stay.
	e, ok := sortInList(longList(v, "in", intc("7"), plan.NewNull(catalog.Int), intc("7"), plan.NewNull(catalog.Int)))
	if !ok {
		t.Fatal("did not fire")
	}
	items := e.Args[1:]
	if want := maxExpandedIn + 1 - 2; len(items) != want { // two duplicates gone
		t.Errorf("%d items after sorting, want %d", len(items), want)
	}
	nulls, sevens := 0, 0
	for _, x := range items {
		switch {
		case x.Null:
			nulls++
		case x.Value == "7":
			sevens++
		}
	}
	if nulls != 1 || sevens != 1 {
		t.Errorf("nulls=%d sevens=%d, want 1 and 1", nulls, sevens)
	}
}
