package prove

import "github.com/pgequiv/pgequiv/planner/plan"

// The rewrites of simplify that move a filter or a projection into the
// set operation below it.

// filterIntoUnionAll pushes filter n into each branch of the UNION ALL
// below it (or of a UNION, where identityRead holds), or returns nil.
func filterIntoUnionAll(n *plan.Node, m *plan.Metadata) (*plan.Node, *Rule) {
	u := n.Inputs[0]
	if u.Op != plan.OpSetOp || u.Set != plan.Union {
		return nil, nil
	}
	rule := ruleFilterIntoUnionAll
	if !u.All {
		// UNION keeps one row of each group of equal rows, whichever:
		// the filter reads it alike when = is identity on what it reads.
		if !identityRead(n.Preds, m) {
			return nil, nil
		}
		rule = ruleFilterIntoUnion
	}
	c := *u
	c.Inputs = make([]*plan.Node, len(u.Inputs))
	for i, in := range u.Inputs {
		sub := map[plan.ColumnID]plan.ColumnID{}
		for k, col := range u.Cols {
			sub[col] = u.SetCols[i][k]
		}
		preds := make([]*plan.Expr, len(n.Preds))
		for k, e := range n.Preds {
			preds[k] = plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
				if x.Kind == plan.ColRef {
					if to, ok := sub[x.Col]; ok {
						return plan.NewCol(to, x.Typ)
					}
				}
				return x
			})
		}
		c.Inputs[i] = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{in}, Preds: preds}
	}
	return &c, rule
}

// identityRead says whether every column preds read is one whose = is
// identity on its values (an integer, a text under a deterministic
// collation, ...) and that they read no subquery and call nothing
// volatile: equal rows give them one result.
func identityRead(preds []*plan.Expr, m *plan.Metadata) bool {
	if m == nil {
		return false
	}
	for _, e := range preds {
		if containsSubquery(e) || plan.Volatile(e) != "" {
			return false
		}
		for _, c := range e.Cols().Ordered() {
			if !m.ColIdentityEq(c, c) {
				return false
			}
		}
	}
	return true
}

// simplifyProject selects columns inside the UNION ALL below projection
// n, or drops n when it keeps all of a set operation's columns.
func simplifyProject(n *plan.Node) (*plan.Node, *Rule) {
	if u := n.Inputs[0]; u.Op == plan.OpSetOp && u.Set == plan.Union && u.All {
		pos := map[plan.ColumnID]int{}
		for k, col := range u.Cols {
			pos[col] = k
		}
		var cols []plan.ColumnID
		var picks []int
		for _, it := range n.Proj {
			k, ok := pos[it.ID]
			if it.Expr.Kind != plan.ColRef || it.Expr.Col != it.ID || !ok {
				return nil, nil
			}
			cols = append(cols, it.ID)
			picks = append(picks, k)
		}
		c := *u
		c.Cols = cols
		c.SetCols = make([][]plan.ColumnID, len(u.SetCols))
		for i, sc := range u.SetCols {
			for _, k := range picks {
				c.SetCols[i] = append(c.SetCols[i], sc[k])
			}
		}
		return &c, ruleProjectIntoUnionAll
	}
	if u := n.Inputs[0]; u.Op == plan.OpSetOp && identityProject(n) {
		return u, ruleProjectAllSetOp
	}
	return nil, nil
}

// identityProject says whether projection n passes its input's columns
// through unchanged, all of them and in order (SELECT * FROM (A
// INTERSECT B)).
func identityProject(n *plan.Node) bool {
	in := n.Inputs[0].OutCols()
	if len(n.Proj) != len(in) {
		return false
	}
	for i, it := range n.Proj {
		if it.ID != in[i] || it.Expr.Kind != plan.ColRef || it.Expr.Col != it.ID {
			return false
		}
	}
	return true
}
