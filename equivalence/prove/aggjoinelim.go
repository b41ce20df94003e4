package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "join", agg-left-join-unread: a left join that no grouping
// column and no call reads is dropped under the aggregate,
//
//	γ[K; calls](R ⟕[p] S) ⇒ γ[K; calls](R)    K, calls read no S column
//
// A left join keeps every R row at least once, so the groups are R's.
// Each R row appears exactly once where the condition equates a key of
// S with expressions of R (at most one partner: left-join-unread's
// test), and then every call reads the same bag; otherwise only calls
// blind to duplicates (MIN, MAX, BOOL_AND, DISTINCT ..., or none: a
// GROUP BY alone) read the same values.

// aggLeftJoinUnread drops the left join below aggregate n whose right
// side n does not read, or returns nil.
func (p *prover) aggLeftJoinUnread(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpAggregate || len(n.Inputs) != 1 {
		return nil
	}
	j := n.Inputs[0]
	if j.Op != plan.OpJoin || j.Join != plan.LeftJoin || len(j.Inputs) != 2 {
		return nil
	}
	right := allCols(j.Inputs[1])
	for _, g := range n.GroupBy {
		if right.Has(g) {
			return nil
		}
	}
	for _, a := range n.Aggs {
		if a.Expr.Cols().Intersects(right) {
			return nil
		}
	}
	if !dupInsensitive(n.Aggs) {
		// Every R row once: the condition binds a key of S.
		var left []plan.ProjItem
		for _, c := range j.Inputs[0].OutCols() {
			left = append(left, plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)})
		}
		if p.leftJoinUnread(&plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{j}, Proj: left}, m) == nil {
			return nil
		}
	}
	c := *n
	c.Inputs = []*plan.Node{j.Inputs[0]}
	p.rule(ruleAggLeftJoinUnread)
	return &c
}
