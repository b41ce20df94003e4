package build

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// checkFullJoin refuses, in the postgres dialect, a FULL JOIN that
// PostgreSQL cannot run: its executor does a full join only as a merge
// or hash join, which needs a conjunct equating an expression of the
// left input with one of the right ("FULL JOIN is only supported with
// merge-joinable or hash-joinable join conditions", SQLSTATE 0A000).
// A condition without column references (ON true) also runs. The test
// is conservative: an equality whose sides also read outer columns does
// not count, so a condition PostgreSQL might accept can be refused here,
// never the reverse. SQLite runs a full join with any condition.
func (b *builder) checkFullJoin(n *plan.Node, lcols, rcols []scopeCol, loc int32) error {
	if b.schema.Dialect != catalog.Postgres || n.Join != plan.FullJoin {
		return nil
	}
	var left, right plan.ColSet
	for _, c := range lcols {
		left.Add(c.id)
	}
	for _, c := range rcols {
		right.Add(c.id)
	}
	referenced := false
	for _, p := range n.Preds {
		for _, c := range plan.Conjuncts(p) {
			cols := c.Cols()
			if !cols.Empty() {
				referenced = true
			}
			if joinableEquality(c, left, right) {
				return nil
			}
		}
	}
	if !referenced {
		return nil
	}
	return b.errf(loc, "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions")
}

// joinableEquality says c is l = r with l reading only one input's
// columns and r only the other's, each at least one, no subquery, and
// operands of one type family (an equality PostgreSQL can hash or merge).
func joinableEquality(c *plan.Expr, left, right plan.ColSet) bool {
	if !c.IsOp(plan.OpEq) || len(c.Args) != 2 || c.HasSubquery() {
		return false
	}
	a, z := c.Args[0], c.Args[1]
	if !catalog.EqualsAlike(a.Typ, z.Typ) || a.Typ == catalog.JSON || a.Typ == catalog.Unknown {
		return false
	}
	ac, zc := a.Cols(), z.Cols()
	if ac.Empty() || zc.Empty() {
		return false
	}
	return (ac.SubsetOf(left) && zc.SubsetOf(right)) || (ac.SubsetOf(right) && zc.SubsetOf(left))
}
