package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "constants fixed by equalities" (issue 35, item 2), for a
// block's outputs: a conjunct col = c of the block holds in every row it
// keeps, so there col is c and an output reads c in its place
// (output-pinned): deptno + 1 is 11 under deptno = 10. Only where = is
// identity on col's values (pins: integers, dates, booleans, the
// constant of the column's own type; a column under a loose collation
// is left), and under SQLite only integer-valued expressions (a
// column's affinity may keep '10' or 10.0 that = 10 accepts).

// outputPins are the columns the block conjuncts preds pin, on a's side
// with onA.
func (p *prover) outputPins(s *space, preds []*plan.Expr, onA bool) map[plan.ColumnID]*plan.Expr {
	var cs []*plan.Expr
	for _, e := range preds {
		cs = append(cs, plan.Conjuncts(e)...)
	}
	pinned := pins(cs, p.intsFn(onA))
	col := p.colA
	if !onA {
		col = p.colB
	}
	for c, v := range pinned {
		if p.opts.SQLite && v.Typ != catalog.Int {
			// SQLite stores dates as text and booleans as numbers of
			// any spelling: only integer pins, checked by ints, stay.
			delete(pinned, c)
			continue
		}
		if r, ok := col(c); ok && s.nondet != nil && s.nondet(r) {
			delete(pinned, c)
		}
	}
	return pinned
}

// pinnedOutputsSame says whether the outputs ea and eb (of types ta and
// tb) read alike once each block's pinned columns are replaced by their
// constants and integer sums folded.
func (p *prover) pinnedOutputsSame(ea, eb *plan.Expr, pinA, pinB map[plan.ColumnID]*plan.Expr, ta, tb catalog.Type) (bool, error) {
	if len(pinA) == 0 && len(pinB) == 0 || ta != tb {
		return false, nil
	}
	xa := foldInts(substitute(ea.Copy(), pinA), p.intsFn(true))
	xb := foldInts(substitute(eb.Copy(), pinB), p.intsFn(false))
	ka, oka := exprKeySub(xa, p.colA, p.subA)
	kb, okb := exprKeySub(xb, p.colB, p.subB)
	if !oka || !okb || ka != kb {
		return false, nil
	}
	k0a, _ := exprKeySub(ea, p.colA, p.subA)
	k0b, _ := exprKeySub(eb, p.colB, p.subB)
	if k0a != ka || k0b != kb {
		p.rule(ruleOutputPinned)
	}
	return true, nil
}

// aggInputPins are the constants an aggregate's input n fixes: columns
// a filter pins (pinnedCols: identity = with a constant of the column's
// type), passed through a projection above it, and the projection's own
// constant columns.
func aggInputPins(n *plan.Node, m *plan.Metadata) map[plan.ColumnID]*plan.Expr {
	if n.Op == plan.OpFilter {
		return pinnedCols(n, m)
	}
	if n.Op != plan.OpProject {
		return nil
	}
	below := map[plan.ColumnID]*plan.Expr{}
	if n.Inputs[0].Op == plan.OpFilter {
		below = pinnedCols(n.Inputs[0], m)
	}
	out := constCols(n)
	for _, it := range n.Proj {
		if it.Expr.Kind == plan.ColRef && below[it.Expr.Col] != nil {
			out[it.ID] = below[it.Expr.Col]
		}
	}
	return out
}

// pinnedCall is aggregate call e with the columns pins fixes replaced
// by their constants, for MIN, MAX and ANY_VALUE (whose value is the
// argument's, of its type) and COUNT (bigint whatever it counts); other
// calls, whose result type follows the argument's exact type (SUM of a
// bigint is numeric, of an integer constant bigint), stay.
func pinnedCall(e *plan.Expr, pins map[plan.ColumnID]*plan.Expr) *plan.Expr {
	if len(pins) == 0 || e.Kind != plan.Agg {
		return e
	}
	switch e.Name {
	case "min", "max", "any_value", "count":
	default:
		return e
	}
	return plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
		if x.Kind == plan.ColRef {
			if c := pins[x.Col]; c != nil {
				return c.Copy()
			}
		}
		return x
	})
}
