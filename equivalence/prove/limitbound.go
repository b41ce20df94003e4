package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "simplify", limit-above-row-bound: R LIMIT n ⇒ R when R has
// at most n rows on every database: the limit cuts nothing. The bound is
// read off the plan: a constant LIMIT below, VALUES, an aggregate
// without GROUP BY (one row), filters pinning a key of a scan to
// constants (identity =: one row), what filters, projections, sorts and
// DISTINCT keep of their input, the product of an inner join's inputs,
// and a left join's left input where its condition binds a key of the
// right input (one partner at most: left-join-unread's test).

// maxRowBound caps the bounds read, far above any LIMIT a query writes.
const maxRowBound = 1 << 40

// limitAboveRowBound drops LIMIT n (with no OFFSET) over an input with
// at most n rows, or returns nil.
func (p *prover) limitAboveRowBound(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpLimit || n.Offset != nil || len(n.Inputs) != 1 {
		return nil
	}
	lim, ok := limitBound(n.Limit)
	if !ok || lim == nil {
		return nil
	}
	if (lim.Sign() > 0 && atMostOneRow(n.Inputs[0], m)) || n.Inputs[0].Op == plan.OpLimit {
		return nil // limit-one-row's, limit-merge's
	}
	bound, ok := p.rowBound(n.Inputs[0], m)
	if !ok || bound > lim.Int64() {
		return nil
	}
	p.rule(ruleLimitAboveRowBound)
	return n.Inputs[0]
}

// rowBound returns a number of rows n never exceeds, or ok false.
func (p *prover) rowBound(n *plan.Node, m *plan.Metadata) (int64, bool) {
	switch n.Op {
	case plan.OpLimit:
		lim, ok := limitBound(n.Limit)
		if ok && lim != nil {
			return lim.Int64(), true
		}
		return p.rowBound(n.Inputs[0], m)
	case plan.OpValues:
		return int64(len(n.Rows)), true
	case plan.OpAggregate:
		if len(n.GroupBy) == 0 {
			return 1, true
		}
		return p.rowBound(n.Inputs[0], m)
	case plan.OpFilter:
		// Filters pinning a key of the scan below keep one row at most.
		var pinned plan.ColSet
		base := n
		for ; base.Op == plan.OpFilter; base = base.Inputs[0] {
			for c := range pinnedCols(base, m) {
				pinned.Add(c)
			}
		}
		if base.Op == plan.OpScan && !pinned.Empty() && plan.Derive(base, m).HasKeyWithin(pinned) {
			return 1, true
		}
		return p.rowBound(n.Inputs[0], m)
	case plan.OpProject, plan.OpSort, plan.OpDistinct:
		return p.rowBound(n.Inputs[0], m)
	case plan.OpJoin:
		if len(n.Inputs) != 2 {
			return 0, false
		}
		switch n.Join {
		case plan.InnerJoin:
			l, ok1 := p.rowBound(n.Inputs[0], m)
			r, ok2 := p.rowBound(n.Inputs[1], m)
			if !ok1 || !ok2 || (r > 0 && l > maxRowBound/r) {
				return 0, false
			}
			return l * r, true
		case plan.SemiJoin, plan.AntiJoin:
			return p.rowBound(n.Inputs[0], m)
		case plan.LeftJoin:
			l, ok := p.rowBound(n.Inputs[0], m)
			if !ok {
				return 0, false
			}
			var left []plan.ProjItem
			for _, c := range n.Inputs[0].OutCols() {
				left = append(left, plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)})
			}
			k := p.mark()
			if p.leftJoinUnread(&plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n}, Proj: left}, m) == nil {
				return 0, false
			}
			p.undo(k) // the test only: the join stays
			return l, true
		}
	}
	return 0, false
}
