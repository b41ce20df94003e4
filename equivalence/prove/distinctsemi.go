package prove

import (
	"math/bits"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "distinct-join-semi": an ORM's join and distinct() is the
// semi-join its __in or Exists() form writes,
//
//	δ(π[R.key, R.c…](R ⋈[q] S)) ⇒ π[R.key, R.c…](R ⋉[q] S)
//
// when the projection reads R alone and holds a key of R as plain
// columns. Each row of R with a partner in S comes out once per partner
// on the left and once on the right; DISTINCT merges the left's copies,
// and rows of R differ in the key, so nothing else merges. A column of S
// the projection reads counts as R's where a conjunct of q equates it
// with one of R and equal values are one value (integers, dates,
// booleans: the planner substitutes join-equivalent columns, so users.id
// may read as posts.author_id). Conjuncts of q that read S go into the
// semi-join's condition, the others filter R.
func (p *prover) distinctJoinSemi(n *plan.Node, m *plan.Metadata) *plan.Node {
	if p.opts.SQLite || n.Op != plan.OpDistinct || n.Inputs[0].Op != plan.OpProject {
		return nil
	}
	if plan.DefsMayRaise(n, n.OutCols()) {
		// DISTINCT evaluates i + 1 on every joined row; the projection
		// over the semi-join may leave it unread (and pruned).
		return nil
	}
	ok := func(r *plan.Node, _ []*plan.Node, _ []*plan.Expr, items []plan.ProjItem) bool {
		return keyProjected(plan.Derive(r, m).Keys, items)
	}
	if j := joinAsSemi(n.Inputs[0], m, ok); j != nil {
		return j
	}
	return joinAsSemiGrouped(n.Inputs[0], m, ok)
}

// joinAsSemiGrouped is joinAsSemi where R is the inner join of several
// of the join's inputs (a ⋈ c semi-joined with b: the projection holds
// a key of each), tried for each proper subset of two or more of at
// most six inputs.
func joinAsSemiGrouped(proj *plan.Node, m *plan.Metadata, ok func(r *plan.Node, rest []*plan.Node, preds []*plan.Expr, items []plan.ProjItem) bool) *plan.Node {
	j := proj.Inputs[0]
	if j.Op != plan.OpJoin || j.Join != plan.InnerJoin || len(j.Inputs) < 3 || len(j.Inputs) > 6 {
		return nil
	}
	n := len(j.Inputs)
	for mask := 1; mask < 1<<n-1; mask++ {
		if bits.OnesCount(uint(mask)) < 2 {
			continue
		}
		var r, rest []*plan.Node
		for i, in := range j.Inputs {
			if mask&(1<<i) != 0 {
				r = append(r, in)
			} else {
				rest = append(rest, in)
			}
		}
		grouped := &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: append([]*plan.Node{{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: r}}, rest...), Preds: j.Preds}
		c := *proj
		c.Inputs = []*plan.Node{grouped}
		if out := joinAsSemi(&c, m, ok); out != nil {
			return out
		}
	}
	return nil
}

// joinAsSemi rewrites proj, a projection over an inner join, as the
// projection of one input R semi-joined with the others where the
// projection reads R alone (S's columns equated with R's read as R's)
// and ok, given R, the other inputs, the join's conjuncts and the
// rewritten projection, says the semi-join keeps the rows; else nil.
func joinAsSemi(proj *plan.Node, m *plan.Metadata, ok func(r *plan.Node, rest []*plan.Node, preds []*plan.Expr, items []plan.ProjItem) bool) *plan.Node {
	j := proj.Inputs[0]
	if j.Op != plan.OpJoin || j.Join != plan.InnerJoin || len(j.Inputs) < 2 {
		return nil
	}
	for _, e := range j.Preds {
		if e.HasSubquery() {
			return nil
		}
	}
	for _, it := range proj.Proj {
		if it.Expr.HasSubquery() {
			return nil
		}
	}
	for i, r := range j.Inputs {
		rcols := allCols(r)
		var scols plan.ColSet
		var rest []*plan.Node
		for k, in := range j.Inputs {
			if k != i {
				rest = append(rest, in)
				scols.UnionWith(allCols(in))
			}
		}
		// S's columns equated with R's, read as R's.
		sub := map[plan.ColumnID]plan.ColumnID{}
		for _, e := range j.Preds {
			a, b, ok := equatedColumns(e, nil)
			if !ok {
				continue
			}
			switch {
			case rcols.Has(a.Col) && scols.Has(b.Col):
				sub[b.Col] = a.Col
			case rcols.Has(b.Col) && scols.Has(a.Col):
				sub[a.Col] = b.Col
			}
		}
		items := make([]plan.ProjItem, len(proj.Proj))
		read := true
		for k, it := range proj.Proj {
			e := plan.Rewrite(it.Expr.Copy(), func(x *plan.Expr) *plan.Expr {
				if x.Kind == plan.ColRef {
					if c, found := sub[x.Col]; found {
						return plan.NewCol(c, x.Typ)
					}
				}
				return x
			})
			if e.Cols().Intersects(scols) {
				read = false
				break
			}
			items[k] = plan.ProjItem{ID: it.ID, Expr: e}
		}
		if !read || !ok(r, rest, j.Preds, items) {
			continue
		}
		var rPreds, cond, sPreds []*plan.Expr
		for _, e := range j.Preds {
			cols := e.Cols()
			switch {
			case !cols.Intersects(scols):
				rPreds = append(rPreds, e)
			case cols.Intersects(rcols):
				cond = append(cond, e)
			default:
				sPreds = append(sPreds, e)
			}
		}
		left := r
		if len(rPreds) > 0 {
			left = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{r}, Preds: rPreds}
		}
		var right *plan.Node
		switch {
		case len(rest) == 1 && len(sPreds) == 0:
			right = rest[0]
		case len(rest) == 1:
			right = &plan.Node{Op: plan.OpFilter, Inputs: rest, Preds: sPreds}
		default:
			right = &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: rest, Preds: sPreds}
		}
		semi := &plan.Node{Op: plan.OpJoin, Join: plan.SemiJoin, Inputs: []*plan.Node{left, right}, Preds: cond}
		return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{semi}, Proj: items}
	}
	return nil
}

// keyProjected says whether some key (an empty one: at most one row)
// has each of its columns projected as a plain column.
func keyProjected(keys []plan.ColSet, items []plan.ProjItem) bool {
	var plain plan.ColSet
	for _, it := range items {
		if it.Expr.Kind == plan.ColRef {
			plain.Add(it.Expr.Col)
		}
	}
	for _, k := range keys {
		if k.SubsetOf(plain) {
			return true
		}
	}
	return false
}
