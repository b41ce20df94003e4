package prove

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// groupKeySwap: γ[U, K…](R) ⇒ γ[PK, K…](R) with ANY_VALUE(u) AS u for
// each u of U, when U and PK are two keys of one scanned occurrence of
// R's tables (a unique NOT NULL column and the primary key: Django's
// values('username').annotate() against annotate() grouped by users.id).
// Each input row carries one row of the occurrence, or the NULLs of
// outer-join padding in both U and PK; two rows agree on U exactly when
// they carry the same row, exactly when they agree on PK, so the groups
// are the same and U is one value in each. Both plans swap to the primary
// key, so the grouping keys match.
func groupKeySwap(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpAggregate || len(n.GroupBy) == 0 {
		return nil
	}
	group := plan.MakeColSet(n.GroupBy...)
	inCols := n.Inputs[0].OutColSet()
	var out *plan.Node
	rowScans(n.Inputs[0], func(s *plan.Node) {
		if out != nil || s.Table == nil || len(s.Table.PrimaryKey) == 0 {
			return
		}
		pk := plan.ColSet{}
		for _, o := range s.Table.PrimaryKey {
			if o >= len(s.Cols) {
				return
			}
			pk.Add(s.Cols[o])
		}
		if pk.Intersects(group) || !pk.SubsetOf(inCols) {
			return
		}
		keys := plan.Derive(s, m).Keys
		if !slices.ContainsFunc(keys, pk.Equals) {
			return // not a key of the scan (an inheritance parent)
		}
		for _, u := range keys {
			if u.Empty() || !u.SubsetOf(group) {
				continue
			}
			c := *n
			var keep []plan.ColumnID
			for _, g := range n.GroupBy {
				if !u.Has(g) {
					keep = append(keep, g)
				}
			}
			c.GroupBy = append(keep, pk.Ordered()...)
			c.Aggs = slices.Clone(n.Aggs)
			for _, g := range u.Ordered() {
				t := m.Col(g).Type
				c.Aggs = append(c.Aggs, plan.ProjItem{ID: g, Expr: &plan.Expr{Kind: plan.Agg, Name: "any_value", Typ: t, Args: []*plan.Expr{plan.NewCol(g, t)}, Pos: -1}})
			}
			out = reproject(&c, n.OutCols(), m)
			return
		}
	})
	return out
}

// rowScans calls f on each scan below n reached through operators that
// pass each row's columns on from one input row (filters, projections,
// joins, sorts, limits, DISTINCT): there a scan's columns in a row hold
// one row of the scan, or outer-join padding's NULLs. An aggregate,
// window or set operation below stops the walk.
func rowScans(n *plan.Node, f func(*plan.Node)) {
	switch n.Op {
	case plan.OpScan:
		f(n)
	case plan.OpFilter, plan.OpProject, plan.OpJoin, plan.OpSort, plan.OpLimit, plan.OpDistinct:
		for _, in := range n.Inputs {
			rowScans(in, f)
		}
	}
}
