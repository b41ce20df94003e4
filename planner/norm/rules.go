package norm

import (
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// dropSubqueryOrder: Sort ⇒ its input, where nothing observes the order
// (inside subqueries, derived tables and set operands without LIMIT),
// and no consumer above reads the order of its rows (flags.readsOrder).
func dropSubqueryOrder(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpSort || f.keepOrder {
		return n, false
	}
	if f.readsOrder && !plan.Derive(n.Inputs[0], z.p.Meta).AtMostOneRow() {
		return n, false
	}
	return n.Inputs[0], true
}

// removePassthroughProject: Project ⇒ its input, where no parent observes
// the exact column list. Computed columns are substituted into the
// expressions that reference them. Under the null-extended side of an
// outer join only definitions that are NULL when their inputs are
// (strict ones) may move: Left(x, Project(1 AS one, y)) keeps its
// Project, since above the join one is NULL on unmatched rows.
func removePassthroughProject(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpProject || f.keepCols {
		return n, false
	}
	subst := map[plan.ColumnID]*plan.Expr{}
	inCols := n.Inputs[0].OutColSet()
	var withSub []plan.ColumnID
	for _, it := range n.Proj {
		if !(it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID) {
			if it.Expr.HasSubquery() || plan.Volatile(it.Expr) != "" {
				// A subquery would be copied; a volatile call
				// (random()) read twice would become two calls with two
				// values, where the query has one (issue 18, cause 13).
				withSub = append(withSub, it.ID)
			}
			if f.nullSide && !plan.StrictCols(it.Expr).Intersects(inCols) {
				// Above the outer join a null-extended row reads NULL here,
				// but the definition (a constant, coalesce, ...) need not be
				// NULL when its inputs are.
				return n, false
			}
			subst[it.ID] = it.Expr
		}
	}
	if len(withSub) > 0 && !z.readAtMostOnce(n, withSub) {
		return n, false // keep subqueries from being duplicated
	}
	if len(subst) > 0 {
		if z.slotsName(n, subst) {
			return n, false // a GROUP BY key or set operand would lose its definition
		}
		z.substituteOutside(n, subst)
	}
	return n.Inputs[0], true
}

// readAtMostOnce reports whether each of cols is referenced at most once
// in the plan outside stop's subtree (subqueries included), so moving its
// definition to its reader copies nothing.
func (z *normalizer) readAtMostOnce(stop *plan.Node, cols []plan.ColumnID) bool {
	want := plan.MakeColSet(cols...)
	seen := map[plan.ColumnID]int{}
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == stop {
			return
		}
		n.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(x *plan.Expr) {
				switch {
				case x.Kind == plan.ColRef && want.Has(x.Col):
					seen[x.Col]++
				case x.Kind == plan.Subquery:
					walk(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(z.p.Root)
	for _, k := range seen {
		if k > 1 {
			return false
		}
	}
	return true
}

// slotsName reports whether a GroupBy or SetCols entry outside stop's
// subtree names one of m's columns. Those slots hold column IDs, not
// expressions, so substituteOutside cannot put a definition there.
func (z *normalizer) slotsName(stop *plan.Node, m map[plan.ColumnID]*plan.Expr) bool {
	found := false
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == stop || found {
			return
		}
		for _, g := range n.GroupBy {
			if _, ok := m[g]; ok {
				found = true
			}
		}
		for _, cols := range n.SetCols {
			for _, c := range cols {
				if _, ok := m[c]; ok {
					found = true
				}
			}
		}
		n.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(x *plan.Expr) {
				if x.Kind == plan.Subquery {
					walk(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(z.p.Root)
	return found
}

// substituteOutside replaces references to the mapped columns everywhere
// in the plan except inside stop's subtree.
func (z *normalizer) substituteOutside(stop *plan.Node, m map[plan.ColumnID]*plan.Expr) {
	plan.ReplaceColsOutside(z.p.Root, stop, m)
}

// mergeFilters: Filter(Filter(x, q), p) ⇒ Filter(x, p AND q); a Filter
// with no conjuncts left ⇒ its input.
func mergeFilters(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter {
		return n, false
	}
	if len(n.Preds) == 0 {
		return n.Inputs[0], true
	}
	if in := n.Inputs[0]; in.Op == plan.OpFilter {
		in.Preds = append(in.Preds, n.Preds...)
		return in, true
	}
	return n, false
}

// rightToLeft: a RIGHT JOIN b ⇒ b LEFT JOIN a. Parents name columns by
// ID, so the input order does not change what they see.
func rightToLeft(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpJoin || n.Join != plan.RightJoin {
		return n, false
	}
	n.Join = plan.LeftJoin
	n.Inputs[0], n.Inputs[1] = n.Inputs[1], n.Inputs[0]
	return n, true
}

// filterIntoJoin: Filter(InnerJoin(a, b, p), q) ⇒ InnerJoin(a, b, p AND q).
func filterIntoJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.InnerJoin {
		return n, false
	}
	j := n.Inputs[0]
	j.Preds = append(j.Preds, n.Preds...)
	return j, true
}

// flattenInnerJoin: InnerJoin(InnerJoin(a, b, p), c, q) ⇒
// InnerJoin(a, b, c, p AND q); an inner join of one input is a Filter.
func flattenInnerJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpJoin || n.Join != plan.InnerJoin {
		return n, false
	}
	if len(n.Inputs) == 1 {
		return &plan.Node{Op: plan.OpFilter, Inputs: n.Inputs, Preds: n.Preds}, true
	}
	fired := false
	var ins []*plan.Node
	for _, in := range n.Inputs {
		if in.Op == plan.OpJoin && in.Join == plan.InnerJoin {
			ins = append(ins, in.Inputs...)
			n.Preds = append(n.Preds, in.Preds...)
			fired = true
			continue
		}
		ins = append(ins, in)
	}
	n.Inputs = ins
	return n, fired
}

// pushJoinPredicate: a join conjunct that reads one input only moves into
// that input as a Filter. For inner joins any input qualifies; for a left
// join only the null-extended (right) input.
func pushJoinPredicate(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpJoin || (n.Join != plan.InnerJoin && n.Join != plan.LeftJoin) {
		return n, false
	}
	outs := make([]plan.ColSet, len(n.Inputs))
	all := plan.ColSet{}
	for i, in := range n.Inputs {
		outs[i] = in.OutColSet()
		all.UnionWith(outs[i])
	}
	fired := false
	var keep []*plan.Expr
	for _, p := range n.Preds {
		cols := p.Cols()
		local := plan.ColSet{}
		for _, c := range cols.Ordered() {
			if all.Has(c) {
				local.Add(c)
			}
		}
		target := -1
		if !local.Empty() {
			for i, o := range outs {
				if local.SubsetOf(o) {
					target = i
				}
			}
		}
		if target < 0 || (n.Join == plan.LeftJoin && target != 1) {
			keep = append(keep, p)
			continue
		}
		n.Inputs[target] = addFilter(n.Inputs[target], p)
		fired = true
	}
	n.Preds = keep
	return n, fired
}

func addFilter(in *plan.Node, p *plan.Expr) *plan.Node {
	if in.Op == plan.OpFilter {
		in.Preds = append(in.Preds, p)
		return in
	}
	return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{in}, Preds: []*plan.Expr{p}}
}

// outerToInner: Filter(LeftJoin(a, b, p), q) ⇒ Filter(InnerJoin(a, b, p), q)
// when q rejects NULLs of a column of b: the null-extended rows the outer
// join adds would be filtered out anyway.
func outerToInner(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return n, false
	}
	j := n.Inputs[0]
	right := j.Inputs[1].OutColSet()
	for _, p := range n.Preds {
		if plan.NullRejected(p).Intersects(right) {
			j.Join = plan.InnerJoin
			return n, true
		}
	}
	return n, false
}

// pushFilterPastOuterJoin: Filter(LeftJoin(a, b, p), q) ⇒
// Filter(LeftJoin(Filter(a, q1), b, p), q2) where q1 are the conjuncts that
// read only a: rows of a are kept or dropped alike on both sides.
func pushFilterPastOuterJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return n, false
	}
	j := n.Inputs[0]
	right := j.Inputs[1].OutColSet()
	left := j.Inputs[0].OutColSet()
	var keep []*plan.Expr
	fired := false
	for _, p := range n.Preds {
		cols := p.Cols()
		if !cols.Intersects(right) && cols.Intersects(left) {
			j.Inputs[0] = addFilter(j.Inputs[0], p)
			fired = true
			continue
		}
		keep = append(keep, p)
	}
	n.Preds = keep
	return n, fired
}

// havingToWhere: Filter(Aggregate(x, keys), p) ⇒ Aggregate(Filter(x, p))
// for conjuncts p over grouping columns only: they drop whole groups. Not
// without GROUP BY, where an empty input still yields one row.
func havingToWhere(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpAggregate || len(n.Inputs[0].GroupBy) == 0 {
		return n, false
	}
	agg := n.Inputs[0]
	group := plan.MakeColSet(agg.GroupBy...)
	aggOut := plan.ColSet{}
	for _, a := range agg.Aggs {
		aggOut.Add(a.ID)
	}
	var keep []*plan.Expr
	fired := false
	for _, p := range n.Preds {
		cols := p.Cols()
		if cols.Intersects(group) && !cols.Intersects(aggOut) {
			agg.Inputs[0] = addFilter(agg.Inputs[0], p)
			fired = true
			continue
		}
		keep = append(keep, p)
	}
	n.Preds = keep
	return n, fired
}

// pushFilterPastDistinct: Filter(Distinct(x), p) ⇒ Distinct(Filter(x, p)).
func pushFilterPastDistinct(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpDistinct {
		return n, false
	}
	d := n.Inputs[0]
	n.Inputs[0] = d.Inputs[0]
	d.Inputs[0] = n
	return d, true
}

// groupByToDistinct: Project(Aggregate(x, keys k, no aggregates), k) ⇒
// Distinct(Project(x, k)): grouping without aggregates only removes
// duplicates.
func groupByToDistinct(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpProject || n.Inputs[0].Op != plan.OpAggregate {
		return n, false
	}
	agg := n.Inputs[0]
	if len(agg.Aggs) > 0 || len(agg.GroupBy) == 0 || len(n.Proj) != len(agg.GroupBy) {
		return n, false
	}
	group := plan.MakeColSet(agg.GroupBy...)
	seen := plan.ColSet{}
	for _, it := range n.Proj {
		if it.Expr.Kind != plan.ColRef || !group.Has(it.Expr.Col) || seen.Has(it.Expr.Col) {
			return n, false
		}
		seen.Add(it.Expr.Col)
	}
	n.Inputs[0] = agg.Inputs[0]
	return &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{n}}, true
}

// removeRedundantDistinct: Distinct(x) ⇒ x when x is already free of
// duplicates: some key of x (unique and not null, kept through the plan)
// lies within its output.
func removeRedundantDistinct(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpDistinct {
		return n, false
	}
	in := n.Inputs[0]
	if z.derive(in).HasKeyWithin(in.OutColSet()) {
		return in, true
	}
	return n, false
}

// reduceGroupBy: GROUP BY k, x ⇒ GROUP BY k when k determines x (x's
// table key lies in k, directly or through equal columns); x is then the
// same on every row of a group and is carried as any_value(x).
func reduceGroupBy(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpAggregate || len(n.GroupBy) < 2 {
		return n, false
	}
	props := z.derive(n.Inputs[0])
	fm := z.formatter()
	// Try to drop the column with the largest canonical key first, so the
	// survivor does not depend on the order keys were written in.
	best := -1
	for i, c := range n.GroupBy {
		rest := plan.ColSet{}
		for j, d := range n.GroupBy {
			if j != i {
				rest.Add(d)
			}
		}
		if determined(z.p.Meta, props, rest).Has(c) {
			if best < 0 || fm.Col(c) > fm.Col(n.GroupBy[best]) {
				best = i
			}
		}
	}
	if best < 0 {
		return n, false
	}
	c := n.GroupBy[best]
	n.GroupBy = append(n.GroupBy[:best:best], n.GroupBy[best+1:]...)
	m := z.p.Meta.Col(c)
	dom := z.p.Meta.Domain(c)
	id := z.p.Meta.AddColumn(plan.ColumnMeta{Name: m.Name, Type: m.Type, Instance: -1, Ordinal: -1, Dom: &dom})
	any := &plan.Expr{Kind: plan.Agg, Name: "any_value", Typ: m.Type, Args: []*plan.Expr{plan.NewCol(c, m.Type)}, Pos: -1}
	// An any_value(c) already present serves; otherwise add one.
	for _, a := range n.Aggs {
		if a.Expr.Name == "any_value" && a.Expr.Args[0].Kind == plan.ColRef && a.Expr.Args[0].Col == c {
			id = a.ID
			any = nil
		}
	}
	if any != nil {
		n.Aggs = append(n.Aggs, plan.ProjItem{ID: id, Expr: any})
	}
	z.substituteOutside(n, map[plan.ColumnID]*plan.Expr{c: plan.NewCol(id, m.Type)})
	return n, true
}

// determined returns the closure of cols under the functional
// dependencies the input guarantees: equal columns, and each table
// instance's keys determining its other columns.
func determined(meta *plan.Metadata, props *plan.Props, cols plan.ColSet) plan.ColSet {
	s := cols.Copy()
	for changed := true; changed; {
		changed = false
		for _, e := range props.Equiv {
			if e.Intersects(s) && !e.SubsetOf(s) {
				s.UnionWith(e)
				changed = true
			}
		}
		for _, inst := range meta.Instances {
			for _, k := range inst.Table.Keys() {
				ok := true
				for _, o := range k {
					if !s.Has(inst.Cols[o]) {
						ok = false
						break
					}
				}
				if ok {
					all := plan.MakeColSet(inst.Cols...)
					if !all.SubsetOf(s) {
						s.UnionWith(all)
						changed = true
					}
				}
			}
		}
	}
	return s
}

// substituteJoinEquivalents: above an operator whose output has columns
// known equal (from inner-join or WHERE equalities), references use one
// representative of each class, so a.x and b.x read alike.
func substituteJoinEquivalents(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	switch n.Op {
	case plan.OpProject, plan.OpFilter, plan.OpSort, plan.OpAggregate, plan.OpWindow:
	case plan.OpJoin:
		if n.Join == plan.InnerJoin || n.Join == plan.FullJoin {
			return n, false
		}
	default:
		return n, false
	}
	props := z.derive(n.Inputs[0])
	if len(props.Equiv) == 0 {
		return n, false
	}
	fm := z.formatter()
	rep := map[plan.ColumnID]plan.ColumnID{}
	inCols := n.Inputs[0].OutColSet()
	for _, e := range props.Equiv {
		// Only the input's own columns stand for each other: an outer
		// column equated inside a correlated subquery must not replace a
		// local one, or the equality that makes them equal is rewritten
		// into a tautology and the correlation is lost.
		var members []plan.ColumnID
		for _, c := range e.Ordered() {
			if inCols.Has(c) {
				members = append(members, c)
			}
		}
		if len(members) < 2 {
			continue
		}
		r := members[0]
		for _, c := range members[1:] {
			if k, rk := fm.Col(c), fm.Col(r); k < rk {
				r = c
			}
		}
		for _, c := range members {
			if c != r {
				rep[c] = r
			}
		}
	}
	fired := false
	n.Exprs(func(s **plan.Expr) {
		*s = plan.Rewrite(*s, func(x *plan.Expr) *plan.Expr {
			if x.Kind == plan.ColRef {
				if r, ok := rep[x.Col]; ok {
					fired = true
					return plan.NewCol(r, x.Typ)
				}
			}
			return x
		})
	})
	if n.Op == plan.OpAggregate {
		m := map[plan.ColumnID]*plan.Expr{}
		// A grouping column is one the input produces: a representative
		// that is an outer column (a correlated subquery's filter equates
		// them) would group by a column the aggregate cannot read.
		in := n.Inputs[0].OutColSet()
		for i, g := range n.GroupBy {
			if r, ok := rep[g]; ok && in.Has(r) {
				dup := false
				for _, h := range n.GroupBy {
					if h == r {
						dup = true
					}
				}
				if dup {
					continue // reduceGroupBy drops the duplicate
				}
				n.GroupBy[i] = r
				m[g] = plan.NewCol(r, z.p.Meta.Col(r).Type)
				fired = true
			}
		}
		if len(m) > 0 {
			z.substituteOutside(n, m)
		}
	}
	return n, fired
}

// subqueryToSemiJoin turns WHERE conjuncts over subqueries into joins:
//
//	x IN (SELECT k FROM r WHERE p)   ⇒ SemiJoin(x, r, x = k AND p)
//	EXISTS (SELECT … FROM r WHERE p) ⇒ SemiJoin(x, r, p)
//	NOT EXISTS (…)                   ⇒ AntiJoin(x, r, p)
//	x NOT IN (SELECT k …)            ⇒ AntiJoin(x, r, x = k), only when x
//	                                   and k are provably not null
//
// Correlated conjuncts of the subquery's top filter become join
// conditions; deeper correlation stays inside the right input, which then
// reads as a dependent (apply) join.
func subqueryToSemiJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter {
		return n, false
	}
	for i, p := range n.Preds {
		neg := false
		e := p
		if e.IsOp(plan.OpNot) {
			neg, e = true, e.Args[0]
		}
		if e.Kind != plan.Subquery || (e.SubKind != plan.SubExists && !(e.SubKind == plan.SubAny && e.SubOp == plan.OpEq)) {
			continue
		}
		right, outs, ok := stripSubquery(e.Sub, e.SubKind == plan.SubExists)
		if !ok {
			continue
		}
		kind := plan.SemiJoin
		rule := ""
		if neg {
			kind = plan.AntiJoin
			rule = RuleNotExistsToAnti
			if e.SubKind == plan.SubAny {
				if !z.notNullIn(n.Inputs[0], e.Args) || !z.notNullIn(right, outs) {
					continue
				}
				rule = RuleNotInToAnti
			}
		}
		var conds []*plan.Expr
		for j, a := range e.Args {
			if e.SubKind == plan.SubAny {
				conds = append(conds, plan.NewOp(plan.OpEq, catalog.Bool, a, outs[j]))
			}
		}
		// Pull correlated conjuncts of the subquery's top filter up.
		inner := right.OutColSet()
		if right.Op == plan.OpFilter {
			inner = right.Inputs[0].OutColSet()
			var keep []*plan.Expr
			for _, q := range right.Preds {
				if !q.Cols().SubsetOf(inner) && !q.HasSubquery() {
					conds = append(conds, q)
				} else {
					keep = append(keep, q)
				}
			}
			right.Preds = keep
			if len(keep) == 0 {
				right = right.Inputs[0]
			}
		}
		j := &plan.Node{Op: plan.OpJoin, Join: kind, Inputs: []*plan.Node{n.Inputs[0], right}, Preds: conds}
		n.Preds = append(n.Preds[:i:i], n.Preds[i+1:]...)
		n.Inputs[0] = j
		if rule != "" {
			z.fire(rule)
		}
		if len(n.Preds) == 0 {
			return j, true
		}
		return n, true
	}
	return n, false
}

// stripSubquery removes what a semi join ignores from a subquery plan:
// ORDER BY, DISTINCT, and the projection (whose expressions it returns
// for IN). An EXISTS also ignores LIMIT n for n ≥ 1.
func stripSubquery(sub *plan.Node, exists bool) (*plan.Node, []*plan.Expr, bool) {
	var outs []*plan.Expr
	if !exists {
		for _, c := range sub.OutCols() {
			outs = append(outs, plan.NewCol(c, catalog.Unknown))
		}
	}
	n := sub
	for {
		switch {
		case n.Op == plan.OpSort || n.Op == plan.OpDistinct:
			n = n.Inputs[0]
			continue
		case n.Op == plan.OpLimit && exists && n.Offset == nil && n.Limit != nil && n.Limit.Kind == plan.Const && positive(n.Limit.Value):
			n = n.Inputs[0]
			continue
		case n.Op == plan.OpProject:
			if !exists {
				m := map[plan.ColumnID]*plan.Expr{}
				for _, it := range n.Proj {
					m[it.ID] = it.Expr
				}
				for i, o := range outs {
					if d, ok := m[o.Col]; ok && o.Kind == plan.ColRef {
						outs[i] = d.Copy()
					}
				}
			}
			n = n.Inputs[0]
			continue
		}
		break
	}
	for _, o := range outs {
		if o.Kind == plan.ColRef && !n.OutColSet().Has(o.Col) {
			return nil, nil, false // the output comes from an operator we cannot see past
		}
	}
	return n, outs, true
}

func positive(v string) bool {
	i, err := strconv.Atoi(v)
	return err == nil && i >= 1
}

// notNullIn reports whether every expression is a column that n never
// returns NULL for, or a non-null literal.
func (z *normalizer) notNullIn(n *plan.Node, es []*plan.Expr) bool {
	props := z.derive(n)
	for _, e := range es {
		switch {
		case e.Kind == plan.Const && !e.Null:
		case e.Kind == plan.ColRef && props.NotNull.Has(e.Col):
		default:
			return false
		}
	}
	return true
}

// leftJoinIsNullToAnti: Filter(LeftJoin(a, b, p), b.k IS NULL) ⇒
// AntiJoin(a, b, p) when b.k is never NULL in b and nothing else reads b:
// the filter keeps exactly the rows of a without a match.
func leftJoinIsNullToAnti(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return n, false
	}
	j := n.Inputs[0]
	right := j.Inputs[1].OutColSet()
	props := z.derive(j.Inputs[1])
	for i, p := range n.Preds {
		if !p.IsOp(plan.OpIsNull) || p.Args[0].Kind != plan.ColRef || !right.Has(p.Args[0].Col) || !props.NotNull.Has(p.Args[0].Col) {
			continue
		}
		rest := append(append([]*plan.Expr(nil), n.Preds[:i]...), n.Preds[i+1:]...)
		if z.readsOutside(j, rest, right) {
			continue
		}
		j.Join = plan.AntiJoin
		if len(rest) == 0 {
			return j, true
		}
		n.Preds = rest
		return n, true
	}
	return n, false
}

// readsOutside reports whether cols are referenced by extra or anywhere in
// the plan outside the subtree at stop.
func (z *normalizer) readsOutside(stop *plan.Node, extra []*plan.Expr, cols plan.ColSet) bool {
	found := false
	check := func(e *plan.Expr) {
		plan.WalkDeep(e, func(x *plan.Expr) {
			if x.Kind == plan.ColRef && cols.Has(x.Col) {
				found = true
			}
		})
	}
	for _, e := range extra {
		check(e)
	}
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == stop || found {
			return
		}
		// The filter holding the IS NULL test is checked through extra.
		if !(n.Op == plan.OpFilter && len(n.Inputs) == 1 && n.Inputs[0] == stop) {
			n.Exprs(func(s **plan.Expr) { check(*s) })
			for _, g := range n.GroupBy {
				if cols.Has(g) {
					found = true
				}
			}
			for _, sc := range n.SetCols {
				for _, c := range sc {
					if cols.Has(c) {
						found = true
					}
				}
			}
		}
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(z.p.Root)
	return found
}

// pushFilterIntoSemiJoin: Filter(SemiJoin(a, b, p), q) ⇒
// Filter(SemiJoin(Filter(a, q1), b, p), q2) where q1 are the conjuncts that
// read only a; likewise for anti joins. Whether a row of a survives q does
// not depend on its matches in b.
func pushFilterIntoSemiJoin(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter || n.Inputs[0].Op != plan.OpJoin || (n.Inputs[0].Join != plan.SemiJoin && n.Inputs[0].Join != plan.AntiJoin) {
		return n, false
	}
	j := n.Inputs[0]
	left := j.Inputs[0].OutColSet()
	var keep []*plan.Expr
	fired := false
	for _, p := range n.Preds {
		if cols := p.Cols(); cols.Intersects(left) && !p.HasSubquery() {
			j.Inputs[0] = addFilter(j.Inputs[0], p)
			fired = true
			continue
		}
		keep = append(keep, p)
	}
	n.Preds = keep
	return n, fired
}
