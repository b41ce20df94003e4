package prove

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "simplify", scalar-values-column: a scalar subquery that
// reads one column of one row of VALUES is that row's expression,
//
//	(SELECT c_k FROM (VALUES (e_1, …, e_n)) AS v(c_1, …, c_n)) ⇒ e_k
//
// (a LATERAL VALUES of the outer row's expressions, as the planner
// reads it). The VALUES row is always there, so the subquery is one row;
// its other expressions are not evaluated, as PostgreSQL, which pulls
// the VALUES up and keeps only the column read, does not either (an
// overflow in an unread e_j raises nothing there).

// scalarValuesColumns rewrites the scalar subqueries over one VALUES row
// in projection, filter or sort n to their expressions, or returns nil.
func (p *prover) scalarValuesColumns(n *plan.Node, m *plan.Metadata) *plan.Node {
	onA := m != nil && m == p.a.Meta
	if n.Op != plan.OpProject && n.Op != plan.OpFilter && !(n.Op == plan.OpSort && len(n.Inputs) == 1) {
		return nil
	}
	changed := false
	rw := func(e *plan.Expr) *plan.Expr {
		if !e.HasSubquery() {
			return e
		}
		return plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
			if v := valuesColumn(x); v != nil {
				changed = true
				return v
			}
			return x
		})
	}
	c := *n
	switch n.Op {
	case plan.OpProject:
		c.Proj = slices.Clone(n.Proj)
		in := n.Inputs[0].OutColSet()
		for i := range c.Proj {
			c.Proj[i].Expr = rw(c.Proj[i].Expr)
			// A reference column that now reads another column of the
			// row is that column wherever it is read (as self-join-on-key
			// aliases): above a sort or limit the block that defines it
			// is out of sight, and the candidate's one column pairs with
			// one of the two only.
			if x := c.Proj[i].Expr; onA && x != n.Proj[i].Expr && x.Kind == plan.ColRef && x.Col != c.Proj[i].ID && in.Has(x.Col) {
				if _, ok := p.aliasA[c.Proj[i].ID]; !ok {
					to, _ := p.colA(x.Col)
					p.aliasA[c.Proj[i].ID] = to
				}
			}
		}
	case plan.OpFilter:
		c.Preds = make([]*plan.Expr, len(n.Preds))
		for i, e := range n.Preds {
			c.Preds[i] = rw(e)
		}
	}
	if n.Op == plan.OpSort {
		c.Keys = slices.Clone(n.Keys)
		for i := range c.Keys {
			c.Keys[i].Expr = rw(c.Keys[i].Expr)
		}
		// The sort reads its input's definitions (sortClasses) that
		// simplify has not reached: rewrite the filters and projections
		// right below too.
		if in := p.scalarValuesChain(n.Inputs[0], m); in != n.Inputs[0] {
			c.Inputs = []*plan.Node{in}
			changed = true
		}
	}
	if !changed {
		return nil
	}
	p.rule(ruleScalarValuesColumn)
	return &c
}

// valuesColumn is the expression scalar subquery x reads off one VALUES
// row, or nil.
func valuesColumn(x *plan.Expr) *plan.Expr {
	if x.Kind != plan.Subquery || x.SubKind != plan.SubScalar || x.Sub == nil {
		return nil
	}
	proj := x.Sub
	if proj.Op != plan.OpProject || len(proj.Proj) != 1 || len(proj.Inputs) != 1 {
		return nil
	}
	vals := proj.Inputs[0]
	it := proj.Proj[0].Expr
	if vals.Op != plan.OpValues || len(vals.Rows) != 1 || it.Kind != plan.ColRef {
		return nil
	}
	k := slices.Index(vals.Cols, it.Col)
	if k < 0 || k >= len(vals.Rows[0]) {
		return nil
	}
	e := vals.Rows[0][k]
	if e.Typ != x.Typ || e.HasSubquery() {
		return nil
	}
	return e.Copy()
}

// scalarValuesChain rewrites the filters and projections at the top of n
// as scalarValuesColumns does, returning n itself when none changes.
func (p *prover) scalarValuesChain(n *plan.Node, m *plan.Metadata) *plan.Node {
	if (n.Op != plan.OpProject && n.Op != plan.OpFilter) || len(n.Inputs) != 1 {
		return n
	}
	out := n
	if c := p.scalarValuesColumns(n, m); c != nil {
		out = c
	}
	if in := p.scalarValuesChain(n.Inputs[0], m); in != n.Inputs[0] {
		if out == n {
			c := *n
			out = &c
		}
		out.Inputs = []*plan.Node{in}
	}
	return out
}
