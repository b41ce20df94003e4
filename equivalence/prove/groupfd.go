package prove

import (
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "determined grouping keys": a grouping column whose value the
// other grouping columns fix splits no group, so it moves out of GROUP
// BY into an ANY_VALUE call of the same column (every row of a group
// holds one value of it):
//
//   - group-key-determined: γ[K, g] ⇒ γ[K] with ANY_VALUE(g) AS g, where
//     a filter pins g to a non-NULL constant, or the projection below
//     defines g from columns of K that compare as identity (equal values are one value, so f of them is
//     one value) by an expression that cannot raise (plan.CannotRaise: GROUP
//     BY i, i + 1 fails on the largest i, GROUP BY i does not). K stays
//     non-empty: an aggregate without GROUP BY makes a row from an empty
//     input.
//   - group-pinned-nonempty: where every grouping column is pinned, the
//     aggregate has one group exactly when its input has rows, like an
//     aggregate without GROUP BY kept by HAVING COUNT(*) > 0; both read
//     as the aggregate grouped on every pinned column of the input (a
//     canonical key set: grouping on more constants splits nothing).

// groupDetermined applies the two rules to n, or returns nil.
func (p *prover) groupDetermined(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op == plan.OpFilter && len(n.Inputs) == 1 && n.Inputs[0].Op == plan.OpAggregate {
		return p.havingNonempty(n, m)
	}
	if j := distinctRedundant(n, m); j != nil {
		p.rule(ruleAggDistinctRedundant)
		return j
	}
	if n.Op != plan.OpAggregate || len(n.GroupBy) == 0 || aggsReadSubqueries(n) {
		return nil
	}
	in := n.Inputs[0]
	pinned := p.pinnedCols(in, m)
	keep := slices.Clone(n.GroupBy)
	var dropped []plan.ColumnID
	drop := func(i int) {
		dropped = append(dropped, keep[i])
		keep = slices.Delete(keep, i, i+1)
	}
	// Defined by the projection below from other grouping columns.
	if in.Op == plan.OpProject {
		pass := map[plan.ColumnID]bool{}
		for _, it := range in.Proj {
			if it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID && p.identityCol(m, it.ID) {
				pass[it.ID] = true
			}
		}
		for i := 0; i < len(keep) && len(keep) > 1; i++ {
			e := projDef(in, keep[i])
			if e == nil || e.Kind == plan.ColRef || e.Kind == plan.Const || plan.Volatile(e) != "" || !plainExpr(e) || !plan.CannotRaise(e) {
				continue
			}
			ok := !e.Cols().Empty()
			for _, c := range e.Cols().Ordered() {
				if !pass[c] || !slices.Contains(keep, c) {
					ok = false
				}
			}
			if ok {
				drop(i)
				i--
			}
		}
	}
	// Pinned to a constant, while an unpinned key remains.
	unpinned := 0
	for _, g := range keep {
		if pinned[g] == nil {
			unpinned++
		}
	}
	if unpinned > 0 {
		for i := 0; i < len(keep); i++ {
			if pinned[keep[i]] != nil {
				drop(i)
				i--
			}
		}
	}
	var rule *Rule
	switch {
	case len(dropped) > 0:
		rule = ruleGroupKeyDetermined
	case unpinned == 0:
		all := pinnedOut(in, pinned)
		if slices.Equal(all, sortedCols(n.GroupBy)) {
			return nil
		}
		keep, rule = all, ruleGroupPinnedNonempty
	default:
		return nil
	}
	c := *n
	c.GroupBy = keep
	c.Aggs = slices.Clone(n.Aggs)
	for _, g := range dropped {
		t := m.Col(g).Type
		c.Aggs = append(c.Aggs, plan.ProjItem{ID: g, Expr: &plan.Expr{Kind: plan.Agg, Name: "any_value", Typ: t, Args: []*plan.Expr{plan.NewCol(g, t)}, Pos: -1}})
	}
	p.rule(rule)
	return reproject(&c, n.OutCols(), m)
}

// havingNonempty reads σ[COUNT(*) ≥ 1](γ[](…)) over an input with pinned
// columns as γ[pinned](…): the filter keeps the one row exactly when the
// input has rows, and the grouping makes a row exactly then.
func (p *prover) havingNonempty(n *plan.Node, m *plan.Metadata) *plan.Node {
	agg := n.Inputs[0]
	if len(agg.GroupBy) != 0 || aggsReadSubqueries(agg) {
		return nil
	}
	counts := map[plan.ColumnID]bool{}
	for _, a := range agg.Aggs {
		e := a.Expr
		if e.Kind == plan.Agg && e.Name == "count" && !e.Distinct && e.Filter == nil && (e.Star || countsRows(e)) {
			counts[a.ID] = true
		}
	}
	var rest []*plan.Expr
	found := false
	for _, e := range n.Preds {
		if !found && nonemptyTest(e, counts) {
			found = true
			continue
		}
		rest = append(rest, e)
	}
	if !found {
		return nil
	}
	pinned := pinnedOut(agg.Inputs[0], p.pinnedCols(agg.Inputs[0], m))
	if len(pinned) == 0 {
		return nil
	}
	c := *agg
	c.GroupBy = pinned
	var out *plan.Node = reproject(&c, agg.OutCols(), m)
	for i, it := range out.Proj {
		// MIN, MAX or ANY_VALUE of a pinned column is its one value.
		if e := aggDef(agg, it.ID); e != nil && e.Kind == plan.Agg && (e.Name == "min" || e.Name == "max" || e.Name == "any_value") &&
			e.Filter == nil && len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef && slices.Contains(pinned, e.Args[0].Col) && e.Args[0].Typ == e.Typ {
			out.Proj[i].Expr = plan.NewCol(e.Args[0].Col, e.Typ)
		}
	}
	if len(rest) > 0 {
		out = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{out}, Preds: rest}
	}
	p.rule(ruleGroupPinnedNonempty)
	return out
}

// nonemptyTest says whether e is c ≥ 1 or c > 0 for a column c of counts.
func nonemptyTest(e *plan.Expr, counts map[plan.ColumnID]bool) bool {
	if e.Kind != plan.Op || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || !counts[e.Args[0].Col] {
		return false
	}
	k := e.Args[1]
	if k.Kind != plan.Const || k.Null || k.Typ != catalog.Int {
		return false
	}
	return (e.Name == plan.OpGe && k.Value == "1") || (e.Name == plan.OpGt && k.Value == "0")
}

// pinnedCols returns the columns that conjuncts col = constant of the
// filters on top of n fix in every row n returns (integer, date and
// boolean columns; see pins).
func (p *prover) pinnedCols(n *plan.Node, m *plan.Metadata) map[plan.ColumnID]*plan.Expr {
	ints := p.intsFn(m == p.a.Meta)
	out := map[plan.ColumnID]*plan.Expr{}
	for n.Op == plan.OpFilter {
		for c, v := range pins(n.Preds, ints) {
			out[c] = v
		}
		n = n.Inputs[0]
	}
	return out
}

// pinnedOut lists, in column order, the pinned columns n outputs.
func pinnedOut(n *plan.Node, pinned map[plan.ColumnID]*plan.Expr) []plan.ColumnID {
	var out []plan.ColumnID
	for _, c := range n.OutCols() {
		if pinned[c] != nil && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return sortedCols(out)
}

func sortedCols(cs []plan.ColumnID) []plan.ColumnID {
	out := slices.Clone(cs)
	slices.Sort(out)
	return out
}

// aggDef is the call aggregate n defines column c by, or nil.
func aggDef(n *plan.Node, c plan.ColumnID) *plan.Expr {
	for _, it := range n.Aggs {
		if it.ID == c {
			return it.Expr
		}
	}
	return nil
}

// projDef is the expression projection n defines column c by, or nil.
func projDef(n *plan.Node, c plan.ColumnID) *plan.Expr {
	for _, it := range n.Proj {
		if it.ID == c {
			return it.Expr
		}
	}
	return nil
}

// identityCol says whether equal values of column c are one value (so
// that a function of c is constant where c is): integers that hold only
// integers, booleans, dates, and text under the default deterministic
// collation (not char(n) or citext).
func (p *prover) identityCol(m *plan.Metadata, c plan.ColumnID) bool {
	if coll, nondet := m.Collation(c); nondet || coll != "" {
		return false
	}
	switch m.Col(c).Type {
	case catalog.Int:
		ints := p.intsFn(m == p.a.Meta)
		return ints == nil || ints(plan.NewCol(c, catalog.Int))
	case catalog.Bool, catalog.Date:
		return true
	case catalog.Text:
		if p.opts.SQLite {
			return false
		}
		name := strings.ToLower(declaredType(m, c))
		return !strings.Contains(name, "char(") && !strings.HasPrefix(name, "char") && !strings.HasPrefix(name, "bpchar") &&
			!strings.Contains(name, "citext") && !strings.Contains(name, "collate")
	}
	return false
}

// aggsReadSubqueries says whether a call of aggregate n reads a subquery.
func aggsReadSubqueries(n *plan.Node) bool {
	for _, a := range n.Aggs {
		if a.Expr.HasSubquery() {
			return true
		}
	}
	return false
}

// reproject returns n under a projection onto cols (n's columns).
func reproject(n *plan.Node, cols []plan.ColumnID, m *plan.Metadata) *plan.Node {
	items := make([]plan.ProjItem, len(cols))
	for i, c := range cols {
		items[i] = plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)}
	}
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n}, Proj: items}
}

// distinctRedundant drops DISTINCT from the calls of aggregate n whose
// one argument is a column x with a key of the input within the grouping
// columns and x: no two rows of a group hold one x (NULLs compared as
// equal), so the deduplication removes nothing. Returns nil when no call
// changes.
func distinctRedundant(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpAggregate {
		return nil
	}
	var props *plan.Props
	var aggs []plan.ProjItem
	for i, a := range n.Aggs {
		e := a.Expr
		if e.Kind != plan.Agg || !e.Distinct || len(e.Args) != 1 || e.Args[0].Kind != plan.ColRef {
			continue
		}
		if props == nil {
			props = plan.Derive(n.Inputs[0], m)
		}
		if !props.HasKeyWithin(plan.MakeColSet(append(slices.Clone(n.GroupBy), e.Args[0].Col)...)) {
			continue
		}
		if aggs == nil {
			aggs = slices.Clone(n.Aggs)
		}
		c := *e
		c.Distinct = false
		aggs[i].Expr = &c
	}
	if aggs == nil {
		return nil
	}
	c := *n
	c.Aggs = aggs
	return &c
}
