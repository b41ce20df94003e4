package prove

import (
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Empty inputs of joins and limits past every row.
//
//   - outer join with an empty side: R ⟕ ∅, R ⟗ ∅ and ∅ ⟗ R are R with
//     the empty side's columns NULL; a LEFT JOIN whose condition is never
//     TRUE (contradictory conjuncts) pads every row alike.
//   - outer join without a condition whose unmatched side always has a
//     row: R ⟕ S and (both such) R ⟗ S are R × S.
//   - anti-join with an empty sub-block: R ▷ ∅ is R; with a sub-block
//     that always has a row and no join condition, R ▷ S is empty.
//   - OFFSET past every row: R OFFSET o is empty when R has at most o
//     rows (a VALUES list, a LIMIT below).

// onMeta says whether m is the first plan's metadata.
func (p *prover) onMeta(m *plan.Metadata) bool { return m == p.a.Meta }

// outerJoinEmptySide rewrites an outer join n one of whose null-extended
// sides never contributes a row, or returns nil.
func (p *prover) outerJoinEmptySide(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpJoin || len(n.Inputs) != 2 {
		return nil
	}
	onA := p.onMeta(m)
	l, r := n.Inputs[0], n.Inputs[1]
	k := p.mark()
	switch n.Join {
	case plan.LeftJoin:
		never := &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{r}, Preds: n.Preds}
		if len(n.Preds) == 0 {
			never = r
		}
		if p.empty(never, onA) {
			p.rule(ruleOuterJoinEmptySide)
			return padded(l, r, false, m)
		}
	case plan.RightJoin:
		if p.empty(l, onA) {
			p.rule(ruleOuterJoinEmptySide)
			return padded(r, l, true, m)
		}
	case plan.FullJoin:
		if p.empty(r, onA) {
			p.rule(ruleOuterJoinEmptySide)
			return padded(l, r, false, m)
		}
		if p.empty(l, onA) {
			p.rule(ruleOuterJoinEmptySide)
			return padded(r, l, true, m)
		}
	}
	if len(n.Preds) == 0 && (n.Join == plan.LeftJoin && alwaysRow(r) || n.Join == plan.FullJoin && alwaysRow(l) && alwaysRow(r)) {
		// Every row finds a partner on the side that could go unmatched.
		p.rule(ruleOuterJoinAlwaysPartner)
		c := *n
		c.Join = plan.InnerJoin
		return &c
	}
	switch n.Join {
	case plan.AntiJoin:
		if p.empty(r, onA) {
			p.rule(ruleAntiJoinEmpty)
			return l
		}
		if len(n.Preds) == 0 && alwaysRow(r) {
			p.rule(ruleAntiJoinEmpty)
			return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{l}, Preds: []*plan.Expr{plan.NewBool(false)}}
		}
	}
	p.undo(k)
	return nil
}

// padded is keep's rows with gone's columns NULL, in the join's column
// order (gone first when goneFirst).
func padded(keep, gone *plan.Node, goneFirst bool, m *plan.Metadata) *plan.Node {
	var items []plan.ProjItem
	pass := func() {
		for _, c := range keep.OutCols() {
			items = append(items, plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)})
		}
	}
	null := func() {
		for _, c := range gone.OutCols() {
			items = append(items, plan.ProjItem{ID: c, Expr: plan.NewNull(m.Col(c).Type)})
		}
	}
	if goneFirst {
		null()
		pass()
	} else {
		pass()
		null()
	}
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{keep}, Proj: items}
}

// alwaysRow says whether n returns at least one row whatever the
// database: a VALUES list with rows, an aggregate without GROUP BY, and
// projections, sorts, inner cross joins, outer joins and positive
// LIMITs without OFFSET of those.
func alwaysRow(n *plan.Node) bool {
	switch n.Op {
	case plan.OpValues:
		return len(n.Rows) > 0
	case plan.OpAggregate:
		return len(n.GroupBy) == 0
	case plan.OpProject, plan.OpSort, plan.OpWindow, plan.OpDistinct:
		return alwaysRow(n.Inputs[0])
	case plan.OpSetOp:
		if n.Set != plan.Union {
			return false
		}
		for _, in := range n.Inputs {
			if alwaysRow(in) {
				return true
			}
		}
		return false
	case plan.OpLimit:
		if n.Offset != nil && !(n.Offset.Kind == plan.Const && !n.Offset.Null && n.Offset.Value == "0") {
			return false
		}
		if n.Limit != nil && !(n.Limit.Kind == plan.Const && (n.Limit.Null || positiveInt(n.Limit.Value))) {
			return false
		}
		return alwaysRow(n.Inputs[0])
	case plan.OpJoin:
		switch n.Join {
		case plan.InnerJoin:
			if len(n.Preds) > 0 {
				return false
			}
			for _, in := range n.Inputs {
				if !alwaysRow(in) {
					return false
				}
			}
			return true
		case plan.LeftJoin:
			return alwaysRow(n.Inputs[0])
		case plan.RightJoin:
			return alwaysRow(n.Inputs[1])
		case plan.FullJoin:
			return alwaysRow(n.Inputs[0]) || alwaysRow(n.Inputs[1])
		}
	}
	return false
}

// maxRows is an upper bound on the rows n returns, ok false when it has
// none: a VALUES list's rows, a constant LIMIT, one row of an aggregate
// without GROUP BY, carried through filters, projections, sorts and
// deduplication.
func maxRows(n *plan.Node) (int64, bool) {
	switch n.Op {
	case plan.OpValues:
		return int64(len(n.Rows)), true
	case plan.OpAggregate:
		if len(n.GroupBy) == 0 {
			return 1, true
		}
		return 0, false
	case plan.OpFilter, plan.OpProject, plan.OpSort, plan.OpDistinct, plan.OpWindow:
		return maxRows(n.Inputs[0])
	case plan.OpLimit:
		in, ok := maxRows(n.Inputs[0])
		if l, lok := constCount(n.Limit); lok && (!ok || l < in) {
			in, ok = l, true
		}
		if !ok {
			return 0, false
		}
		if o, ook := constCount(n.Offset); ook {
			in = max(in-o, 0)
		}
		return in, true
	case plan.OpJoin:
		if n.Join == plan.SemiJoin || n.Join == plan.AntiJoin {
			return maxRows(n.Inputs[0])
		}
	}
	return 0, false
}

// constCount reads a LIMIT or OFFSET count: a non-negative integer
// constant (ok false for none, NULL or anything else).
func constCount(e *plan.Expr) (int64, bool) {
	if e == nil || e.Kind != plan.Const || e.Null || e.Typ != catalog.Int {
		return 0, false
	}
	v, err := strconv.ParseInt(e.Value, 10, 64)
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}

// offsetPastRows says whether limit n's OFFSET skips every row its input
// can have.
func offsetPastRows(n *plan.Node) bool {
	o, ok := constCount(n.Offset)
	if !ok || o == 0 {
		return false
	}
	in, ok := maxRows(n.Inputs[0])
	return ok && in <= o
}
