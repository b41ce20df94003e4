package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// distinctBelow removes the DISTINCTs (and groupings without aggregates)
// that feed a branch of a UNION ALL or an input of an inner or left join
// below consumer n, blind to duplicates, or returns nil (the fragment
// "DISTINCT through UNION ALL and joins", unionagg.go).
func (p *prover) distinctBelow(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || len(n.Inputs) != 1 {
		return nil
	}
	switch n.Op {
	case plan.OpDistinct:
	case plan.OpAggregate:
		if !dupInsensitive(n.Aggs) {
			return nil
		}
		for _, a := range n.Aggs {
			if plan.Volatile(a.Expr) != "" {
				return nil
			}
		}
	default:
		return nil
	}
	s := distinctStripper{m: m, fired: map[*Rule]bool{}}
	in := s.strip(n.Inputs[0], nil)
	if in == n.Inputs[0] {
		return nil
	}
	for _, r := range []*Rule{ruleDistinctUnionAllBranches, ruleDistinctJoinInputs} {
		if s.fired[r] {
			p.rule(r)
		}
	}
	c := *n
	c.Inputs = []*plan.Node{in}
	return &c
}

type distinctStripper struct {
	m     *plan.Metadata
	fired map[*Rule]bool
}

// strip returns x with the DISTINCTs below it removed, x itself when none
// is. under is the rule a DISTINCT met now would be removed by: nil until
// the walk passes a UNION ALL or a join.
func (s *distinctStripper) strip(x *plan.Node, under *Rule) *plan.Node {
	if x.Op != plan.OpJoin && x.Op != plan.OpSetOp && len(x.Inputs) != 1 {
		return x
	}
	switch x.Op {
	case plan.OpDistinct:
		if under == nil || !s.identityCols(x.OutCols()) {
			return x
		}
		s.fired[under] = true
		return s.strip(x.Inputs[0], under)
	case plan.OpAggregate:
		if under == nil || len(x.Aggs) > 0 || len(x.GroupBy) == 0 || !s.identityCols(x.GroupBy) {
			return x
		}
		s.fired[under] = true
		var proj []plan.ProjItem
		for _, g := range x.GroupBy {
			proj = append(proj, plan.ProjItem{ID: g, Expr: plan.NewCol(g, s.m.Col(g).Type)})
		}
		return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{s.strip(x.Inputs[0], under)}, Proj: proj}
	case plan.OpProject:
		for _, it := range x.Proj {
			if plan.Volatile(it.Expr) != "" {
				return x
			}
		}
		return s.rebuild(x, []*Rule{under})
	case plan.OpFilter:
		if volatilePreds(x.Preds) {
			return x
		}
		return s.rebuild(x, []*Rule{under})
	case plan.OpJoin:
		if volatilePreds(x.Preds) || len(x.Inputs) != 2 {
			return x
		}
		switch x.Join {
		case plan.InnerJoin, plan.LeftJoin:
			return s.rebuild(x, []*Rule{ruleDistinctJoinInputs, ruleDistinctJoinInputs})
		}
		return x
	case plan.OpSetOp:
		if x.Set != plan.Union || !x.All {
			return x
		}
		rules := make([]*Rule, len(x.Inputs))
		for i := range rules {
			rules[i] = ruleDistinctUnionAllBranches
		}
		return s.rebuild(x, rules)
	}
	return x
}

// rebuild strips x's inputs, the i-th under rules[i], and returns x with
// the stripped inputs (x itself when none changed).
func (s *distinctStripper) rebuild(x *plan.Node, rules []*Rule) *plan.Node {
	var ins []*plan.Node
	for i, in := range x.Inputs {
		if i >= len(rules) {
			return x
		}
		out := s.strip(in, rules[i])
		if out != in && ins == nil {
			ins = append([]*plan.Node(nil), x.Inputs...)
		}
		if ins != nil {
			ins[i] = out
		}
	}
	if ins == nil {
		return x
	}
	c := *x
	c.Inputs = ins
	return &c
}

func (s *distinctStripper) identityCols(cols []plan.ColumnID) bool {
	for _, c := range cols {
		if !s.m.ColIdentityEq(c, c) {
			return false
		}
	}
	return len(cols) > 0
}

func volatilePreds(preds []*plan.Expr) bool {
	for _, e := range preds {
		if plan.Volatile(e) != "" {
			return true
		}
	}
	return false
}
