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

// outputPins are the columns blk's conjuncts pin, and those its ordered
// or limited derived tables' conjuncts pin (leafFacts: they hold on
// every row of the leaf), on a's side with onA.
func (p *prover) outputPins(s *space, blk *block, onA bool) map[plan.ColumnID]*plan.Expr {
	meta := p.b.Meta
	if onA {
		meta = p.a.Meta
	}
	var cs []*plan.Expr
	for _, e := range append(append([]*plan.Expr(nil), blk.preds...), p.leafFacts(blk, meta)...) {
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

// unionConstPull rewrites a UNION [ALL] whose column k holds one
// constant in every branch (projected, or pinned by the branch's filter
// with identity =; under SQLite projected only) as the projection of
// that constant over the union of the other columns (union-const-pull):
// each branch row has c there, and under UNION rows that agree on the
// rest agree on it too. It returns nil when no column, or every column,
// is such a constant.
func (p *prover) unionConstPull(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpSetOp || n.Set != plan.Union || len(n.Cols) < 2 || len(n.SetCols) != len(n.Inputs) {
		return nil
	}
	noCols := func(plan.ColumnID) (plan.ColumnID, bool) { return 0, false }
	branchConsts := make([]map[plan.ColumnID]*plan.Expr, len(n.Inputs))
	for i, in := range n.Inputs {
		if p.opts.SQLite {
			branchConsts[i] = nil
			if in.Op == plan.OpProject {
				branchConsts[i] = constCols(in)
			}
			continue
		}
		branchConsts[i] = aggInputPins(in, m)
	}
	consts := map[int]*plan.Expr{}
	for k, col := range n.Cols {
		var first *plan.Expr
		var firstKey string
		for i := range n.Inputs {
			c := branchConsts[i][n.SetCols[i][k]]
			if c == nil || c.Null || c.Typ != m.Col(col).Type {
				first = nil
				break
			}
			key, ok := exprKey(c, noCols)
			if !ok || (first != nil && key != firstKey) {
				first = nil
				break
			}
			if first == nil {
				first, firstKey = c, key
			}
		}
		if first != nil {
			consts[k] = first
		}
	}
	if len(consts) == 0 || len(consts) == len(n.Cols) {
		return nil
	}
	u := *n
	u.Cols = nil
	u.SetCols = make([][]plan.ColumnID, len(n.SetCols))
	proj := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{&u}}
	for k, col := range n.Cols {
		if c := consts[k]; c != nil {
			proj.Proj = append(proj.Proj, plan.ProjItem{ID: col, Expr: c.Copy()})
			continue
		}
		u.Cols = append(u.Cols, col)
		for i := range n.SetCols {
			u.SetCols[i] = append(u.SetCols[i], n.SetCols[i][k])
		}
		proj.Proj = append(proj.Proj, plan.ProjItem{ID: col, Expr: plan.NewCol(col, m.Col(col).Type)})
	}
	return proj
}
