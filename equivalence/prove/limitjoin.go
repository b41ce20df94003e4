package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "join", limit-past-left-join: a limit over a left join that
// keeps each left row once moves to the left input,
//
//	sort[K](R ⟕ S) LIMIT n OFFSET o ⇒ sort[K]((sort[K](R) LIMIT n OFFSET o) ⟕ S)
//
// when the condition binds a key of S (at most one partner: every R row
// gives exactly one joined row, left-join-unread's test) and the sort
// keys read R alone and hold a key of R (no ties; with no sort both
// sides keep the first rows of R's stream, a choice LIMIT without ORDER
// BY leaves open on both alike). The joined rows stand one to one for
// R's rows in the order the sort gives both, so the rows a limit keeps
// of one are the rows it keeps of the other, joined. With ties the two
// plans' sorts may cut different tied rows on PostgreSQL, so a sort on
// no key is left alone.

// limitPastLeftJoin moves limit n below the left join beneath it (through
// a sort on left columns and an identity projection), or returns nil.
func (p *prover) limitPastLeftJoin(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpLimit || len(n.Inputs) != 1 {
		return nil
	}
	if _, ok := limitBound(n.Limit); !ok {
		return nil
	}
	if _, ok := limitBound(n.Offset); !ok {
		return nil
	}
	in := n.Inputs[0]
	var sort, proj *plan.Node
	if in.Op == plan.OpSort && len(in.Inputs) == 1 {
		sort, in = in, in.Inputs[0]
	}
	if in.Op == plan.OpJoin && in.Join == plan.InnerJoin {
		// An inner join over the left join hoists it (left-join-hoist).
		in = p.simplify(in, m)
	}
	if in.Op == plan.OpProject && len(in.Inputs) == 1 && identityItems(in) {
		proj, in = in, in.Inputs[0]
	}
	if in.Op != plan.OpJoin || in.Join != plan.LeftJoin || len(in.Inputs) != 2 {
		return nil
	}
	r := in.Inputs[0]
	if sort != nil {
		// The sort keys read R alone and hold a key of R: no two rows
		// tie, so the rows the limit keeps are fixed (on ties PostgreSQL
		// may keep other rows of the two plans).
		rcols := r.OutColSet()
		var plain plan.ColSet
		for _, k := range sort.Keys {
			if containsSubquery(k.Expr) || plan.Volatile(k.Expr) != "" || !k.Expr.Cols().SubsetOf(rcols) {
				return nil
			}
			if k.Expr.Kind == plan.ColRef {
				plain.Add(k.Expr.Col)
			}
		}
		if !plan.Derive(r, m).HasKeyWithin(plain) {
			return nil
		}
	}
	var left []plan.ProjItem
	for _, c := range r.OutCols() {
		left = append(left, plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)})
	}
	k := p.mark()
	if p.leftJoinUnread(&plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{in}, Proj: left}, m) == nil {
		return nil
	}
	p.undo(k) // the test only: the join stays
	below := r
	if sort != nil {
		s := *sort
		s.Inputs = []*plan.Node{r}
		below = &s
	}
	lim := *n
	lim.Inputs = []*plan.Node{below}
	j := *in
	j.Inputs = []*plan.Node{&lim, in.Inputs[1]}
	var out *plan.Node = &j
	if proj != nil {
		c := *proj
		c.Inputs = []*plan.Node{out}
		out = &c
	}
	if sort != nil {
		c := *sort
		c.Inputs = []*plan.Node{out}
		out = &c
	}
	p.rule(ruleLimitPastLeftJoin)
	return out
}

// identityItems says whether projection n only passes columns on.
func identityItems(n *plan.Node) bool {
	for _, it := range n.Proj {
		if it.Expr.Kind != plan.ColRef || it.Expr.Col != it.ID {
			return false
		}
	}
	return true
}
