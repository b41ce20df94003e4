package prove

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Display-only differences. pgequiv's results are the same when their
// values compare equal (IS NOT DISTINCT FROM within a type family), so
// 1.0 and 1.00 are one value; they print differently, and a proof that
// identifies them says so with a "display-only difference" rule rather
// than hiding it. Here: the numeric display scale of each output column,
// where the plan fixes it.

// outputScales is the numeric display scale of each output column of pl,
// -1 where it is not known (not numeric, or computed in a way not
// followed).
func outputScales(pl *plan.Plan) []int {
	defs := map[plan.ColumnID]*plan.Expr{}
	pl.Root.WalkNodes(func(n *plan.Node) {
		for _, it := range n.Proj {
			defs[it.ID] = it.Expr
		}
	})
	cols := pl.Root.OutCols()
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = -1
		if e, ok := defs[c]; ok {
			out[i] = displayScale(e, pl.Meta, defs, 0)
		}
	}
	return out
}

// displayScale is e's numeric display scale as PostgreSQL computes it
// for literals, declared columns, casts to numeric(p,s), + - and *; -1
// where not followed.
func displayScale(e *plan.Expr, m *plan.Metadata, defs map[plan.ColumnID]*plan.Expr, depth int) int {
	if e == nil || depth > 32 || e.Typ != catalog.Numeric && e.Typ != catalog.Int {
		return -1
	}
	if e.Typ == catalog.Int {
		return 0
	}
	switch e.Kind {
	case plan.Const:
		if e.Null || strings.ContainsAny(e.Value, "eE") {
			return -1
		}
		if i := strings.IndexByte(e.Value, '.'); i >= 0 {
			return len(strings.TrimSpace(e.Value)) - i - 1
		}
		return 0
	case plan.ColRef:
		if d, ok := defs[e.Col]; ok {
			return displayScale(d, m, defs, depth+1)
		}
		if _, s, ok := numericTypmod(declaredType(m, e.Col)); ok {
			return s
		}
	case plan.Cast:
		if _, s, ok := numericTypmod(e.Value); ok {
			return s
		}
	case plan.Op:
		if len(e.Args) != 2 {
			return -1
		}
		a := displayScale(e.Args[0], m, defs, depth+1)
		b := displayScale(e.Args[1], m, defs, depth+1)
		if a < 0 || b < 0 {
			return -1
		}
		switch e.Name {
		case plan.OpAdd, plan.OpSub:
			return max(a, b)
		case plan.OpMul:
			return a + b
		}
	}
	return -1
}

// nameDisplayOnly adds a display-only rule for each output column whose
// numeric display scale the two plans fix differently.
func (p *prover) nameDisplayOnly() {
	sa, sb := outputScales(p.a), outputScales(p.b)
	if len(sa) != len(sb) {
		return
	}
	for i := range sa {
		if sa[i] >= 0 && sb[i] >= 0 && sa[i] != sb[i] {
			p.displayOnly("numeric scale of an output column (" + strconv.Itoa(sa[i]) + " vs " + strconv.Itoa(sb[i]) + " digits)")
		}
	}
}
