package plan_test

import (
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestCannotRaise: the forms PostgreSQL evaluates without an error on
// any row, and near misses that raise on some row (the largest integer,
// zero, a text no integer reads).
func TestCannotRaise(t *testing.T) {
	i, s := plan.NewCol(1, catalog.Int), plan.NewCol(2, catalog.Text)
	one := plan.NewConst(catalog.Int, "1")
	cases := []struct {
		name string
		e    *plan.Expr
		want bool
	}{
		{"column", i, true},
		{"constant", one, true},
		{"text concatenation", plan.NewOp(plan.OpConcat, catalog.Text, s, plan.NewConst(catalog.Text, "foo")), true},
		{"same-typed comparison", plan.NewOp(plan.OpLt, catalog.Bool, i, one), true},
		{"NULL test of a column", plan.NewOp(plan.OpIsNull, catalog.Bool, i), true},
		{"AND of comparisons", plan.NewOp(plan.OpAnd, catalog.Bool, plan.NewOp(plan.OpEq, catalog.Bool, i, one), plan.NewOp(plan.OpIsNotNull, catalog.Bool, s)), true},
		{"i + 1 overflows", plan.NewOp(plan.OpAdd, catalog.Int, i, one), false},
		{"i * 2 overflows", plan.NewOp(plan.OpMul, catalog.Int, i, plan.NewConst(catalog.Int, "2")), false},
		{"10 / i divides by zero", plan.NewOp(plan.OpDiv, catalog.Int, plan.NewConst(catalog.Int, "10"), i), false},
		{"-i overflows", plan.NewOp(plan.OpNeg, catalog.Int, i), false},
		{"s::int fails", &plan.Expr{Kind: plan.Cast, Typ: catalog.Int, Args: []*plan.Expr{s}, Pos: -1}, false},
		{"comparison over i + 1", plan.NewOp(plan.OpGt, catalog.Bool, plan.NewOp(plan.OpAdd, catalog.Int, i, one), one), false},
		{"comparison of two types", plan.NewOp(plan.OpEq, catalog.Bool, s, one), false},
		{"concatenation of an integer", plan.NewOp(plan.OpConcat, catalog.Text, s, one), false},
		{"function call", &plan.Expr{Kind: plan.Func, Name: "abs", Typ: catalog.Int, Args: []*plan.Expr{i}, Pos: -1}, false},
		{"lower of text", call("lower", catalog.Text, s), true},
		{"length of text", call("length", catalog.Int, s), true},
		{"lower of i + 1", call("lower", catalog.Text, plan.NewOp(plan.OpAdd, catalog.Int, i, one)), false},
		{"substr with a count", call("substr", catalog.Text, s, one, plan.NewConst(catalog.Int, "30")), true},
		{"substr from anywhere", call("substr", catalog.Text, s, plan.NewConst(catalog.Int, "-5")), true},
		{"substr with a negative count", call("substr", catalog.Text, s, one, plan.NewConst(catalog.Int, "-1")), false},
		{"substr with a column count", call("substr", catalog.Text, s, one, i), false},
	}
	for _, c := range cases {
		if got := plan.CannotRaise(c.e); got != c.want {
			t.Errorf("%s: CannotRaise = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDefsMayRaise follows a grouping column to the projection that
// computes it, through renames.
func TestDefsMayRaise(t *testing.T) {
	i := plan.NewCol(1, catalog.Int)
	scan := &plan.Node{Op: plan.OpScan}
	inner := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{scan}, Proj: []plan.ProjItem{
		{ID: 1, Expr: i},
		{ID: 2, Expr: plan.NewOp(plan.OpAdd, catalog.Int, i, plan.NewConst(catalog.Int, "1"))},
		{ID: 3, Expr: plan.NewOp(plan.OpEq, catalog.Bool, i, plan.NewConst(catalog.Int, "1"))},
	}}
	outer := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{inner}, Proj: []plan.ProjItem{
		{ID: 1, Expr: i},
		{ID: 4, Expr: plan.NewCol(2, catalog.Int)}, // a rename of i + 1
		{ID: 5, Expr: plan.NewCol(3, catalog.Bool)},
	}}
	cases := []struct {
		cols []plan.ColumnID
		want bool
	}{
		{[]plan.ColumnID{1}, false},
		{[]plan.ColumnID{1, 5}, false},
		{[]plan.ColumnID{1, 2}, true},
		{[]plan.ColumnID{1, 4}, true},
	}
	for _, c := range cases {
		if got := plan.DefsMayRaise(outer, c.cols); got != c.want {
			t.Errorf("DefsMayRaise(%v) = %v, want %v", c.cols, got, c.want)
		}
	}
}

func call(name string, typ catalog.Type, args ...*plan.Expr) *plan.Expr {
	return &plan.Expr{Kind: plan.Func, Name: name, Typ: typ, Args: args, Pos: -1}
}
