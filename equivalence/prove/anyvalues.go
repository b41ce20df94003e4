package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "quantified comparisons over constants": a subquery that is a
// list of constant rows is that list, so
//
//	x op ANY (VALUES (v1), ..., (vk))  ⇒  x op v1 OR ... OR x op vk
//	x op ALL (VALUES (v1), ..., (vk))  ⇒  x op v1 AND ... AND x op vk
//
// exactly under three-valued logic: ANY is TRUE when some comparison is,
// FALSE when all are FALSE, else NULL, which is OR's truth table (ALL is
// AND's); k ≥ 1, so the empty list (ANY FALSE, ALL TRUE) never arises.
// The constants must be non-NULL and of x's type, so each comparison is
// the one the subquery's makes.

// anyValues rewrites every such comparison in e (a private copy); ok
// says whether one was.
func anyValues(e *plan.Expr) (*plan.Expr, bool) {
	changed := false
	out := plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
		if x.Kind != plan.Subquery || (x.SubKind != plan.SubAny && x.SubKind != plan.SubAll) || len(x.Args) != 1 || x.SubOp == "" {
			return x
		}
		if !comparisons[x.SubOp] {
			return x
		}
		vals := constColumn(x.Sub)
		if len(vals) == 0 {
			return x
		}
		arg := x.Args[0]
		var parts []*plan.Expr
		for _, v := range vals {
			if v.Typ != arg.Typ || arg.Typ == catalog.Unknown {
				return x
			}
			parts = append(parts, plan.NewOp(x.SubOp, catalog.Bool, arg.Copy(), v.Copy()))
		}
		changed = true
		if len(parts) == 1 {
			return parts[0]
		}
		join := plan.OpOr
		if x.SubKind == plan.SubAll {
			join = plan.OpAnd
		}
		return plan.NewOp(join, catalog.Bool, parts...)
	})
	return out, changed
}

// constColumn returns the values of the one column of n when n is a
// list of constant, non-NULL rows: VALUES, or a projection of one of its
// columns; nil otherwise.
func constColumn(n *plan.Node) []*plan.Expr {
	if n == nil {
		return nil
	}
	pick := -1
	v := n
	if n.Op == plan.OpProject {
		if len(n.Proj) != 1 || len(n.Inputs) != 1 || n.Proj[0].Expr.Kind != plan.ColRef {
			return nil
		}
		v = n.Inputs[0]
		for i, c := range v.Cols {
			if c == n.Proj[0].Expr.Col {
				pick = i
			}
		}
	} else if len(n.Cols) == 1 {
		pick = 0
	}
	if v.Op != plan.OpValues || pick < 0 || len(v.Rows) == 0 {
		return nil
	}
	var out []*plan.Expr
	for _, row := range v.Rows {
		if len(row) != len(v.Cols) || row[pick].Kind != plan.Const || row[pick].Null {
			return nil
		}
		out = append(out, row[pick])
	}
	return out
}
