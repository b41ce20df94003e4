package rewrite

import (
	"cmp"
	"slices"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Join rules: joins that keys, foreign keys or DISTINCT make redundant, or
// that are semijoins in disguise.

// semiJoinOnKey: SemiJoin(l, r, l.a = r.k) ⇒ Project(l)(InnerJoin(l, r,
// l.a = r.k)) when r.k is a key of r: each row of l then matches at most
// one row of r, so the join neither drops nor repeats rows. (ESM+ rule 12;
// with rule 17 below it also covers c IN (SELECT c FROM t WHERE φ).)
func semiJoinOnKey(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpJoin || n.Join != plan.SemiJoin || len(n.Preds) == 0 {
		return false
	}
	l, rt := n.Inputs[0], n.Inputs[1]
	if outerRefs(rt) {
		return false
	}
	lcols, rcols := l.OutColSet(), rt.OutColSet()
	var keyCols plan.ColSet
	for _, p := range n.Preds {
		a, b, ok := plan.ColEquality(p, r.p.Meta)
		if !ok || !catalog.EqualsAlike(r.p.Meta.Col(a).Type, r.p.Meta.Col(b).Type) {
			// (A number may equal two distinct text keys.)
			return false
		}
		switch {
		case lcols.Has(a) && rcols.Has(b):
			keyCols.Add(b)
		case lcols.Has(b) && rcols.Has(a):
			keyCols.Add(a)
		default:
			return false
		}
	}
	if !r.props(rt).HasKeyWithin(keyCols) {
		return false
	}
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{l, rt}, Preds: n.Preds}}}
	for _, c := range l.OutCols() {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, r.p.Meta.Col(c).Type)})
	}
	*slot = out
	return true
}

// selfJoinOnKey: InnerJoin(t AS a, t AS b, a.k = b.k, ...) ⇒ t AS a with
// b's filters and references moved onto a, when k is a key of t: each row
// joins exactly itself.
func selfJoinOnKey(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpJoin || n.Join != plan.InnerJoin || len(n.Inputs) < 2 {
		return false
	}
	i, j, ok := selfJoinPair(n, r.p.Meta)
	if !ok {
		return false
	}
	sa, pa, _ := singleTable(n.Inputs[i])
	sb, pb, _ := singleTable(n.Inputs[j])
	var rest, notNull []*plan.Expr
	for _, p := range n.Preds {
		if a, b, ok := plan.ColEquality(p, r.p.Meta); ok {
			oa, ob := ordinalOf(sa, a), ordinalOf(sb, b)
			if oa < 0 {
				oa, ob = ordinalOf(sa, b), ordinalOf(sb, a)
			}
			if oa >= 0 && oa == ob {
				// y.c = z.c of one row is c = c: true unless c is NULL,
				// when the join drops the row. A nullable column keeps
				// that as "c IS NOT NULL" (issue 18, cause 16).
				if !sa.Table.Columns[oa].NotNull {
					c := plan.NewCol(sa.Cols[oa], sa.Table.Columns[oa].Type)
					notNull = append(notNull, plan.NewOp(plan.OpIsNotNull, catalog.Bool, c))
				}
				continue
			}
		}
		rest = append(rest, p)
	}
	m := columnMap(sa, sb)
	var body *plan.Node = sa
	if preds := append(append(append([]*plan.Expr(nil), pa...), remap(pb, m)...), notNull...); len(preds) > 0 {
		body = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{sa}, Preds: preds}
	}
	var ins []*plan.Node
	for k, in := range n.Inputs {
		switch k {
		case i:
			ins = append(ins, body)
		case j:
		default:
			ins = append(ins, in)
		}
	}
	n.Inputs = ins
	n.Preds = remap(rest, m)
	plan.ReplaceColsOutside(r.p.Root, nil, m)
	return true
}

// selfJoinPair finds inputs i, j of inner join n that scan the same table
// (under filters) and that n's predicates equate on every column of one
// of its keys, position by position; of several such pairs, the first in
// (i, j) order. It indexes columns by input and so reads each predicate
// once: a join of hundreds of instances of one table (CTE fan-out) would
// otherwise cost inputs² × predicates.
func selfJoinPair(n *plan.Node, m *plan.Metadata) (int, int, bool) {
	scans := make([]*plan.Node, len(n.Inputs))
	owner := map[plan.ColumnID]int{}
	for i, in := range n.Inputs {
		if s, _, ok := singleTable(in); ok {
			scans[i] = s
			for _, c := range s.Cols {
				owner[c] = i
			}
		}
	}
	type pair struct{ i, j int }
	equated := map[pair]map[int]bool{}
	for _, p := range n.Preds {
		a, b, ok := plan.ColEquality(p, m)
		if !ok {
			continue
		}
		ia, oka := owner[a]
		ib, okb := owner[b]
		if !oka || !okb || ia == ib || scans[ia].Table != scans[ib].Table {
			continue
		}
		o := ordinalOf(scans[ia], a)
		if o < 0 || o != ordinalOf(scans[ib], b) {
			continue
		}
		for _, pr := range [2]pair{{ia, ib}, {ib, ia}} {
			if equated[pr] == nil {
				equated[pr] = map[int]bool{}
			}
			equated[pr][o] = true
		}
	}
	pairs := make([]pair, 0, len(equated))
	for pr := range equated {
		pairs = append(pairs, pr)
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if c := cmp.Compare(x.i, y.i); c != 0 {
			return c
		}
		return cmp.Compare(x.j, y.j)
	})
	for _, pr := range pairs {
		for _, k := range scans[pr.i].Table.Keys() {
			all := true
			for _, o := range k {
				if !equated[pr][o] {
					all = false
				}
			}
			if all {
				return pr.i, pr.j, true
			}
		}
	}
	return 0, 0, false
}

// fkJoinElimination: InnerJoin(child, parent, child.fk = parent.pk) ⇒
// child, when the foreign key child.fk → parent.pk holds, the parent is
// unfiltered and nothing reads its other columns: every child row with a
// non-NULL fk matches exactly one parent row. A nullable fk keeps
// "fk IS NOT NULL". An unenforced key (trust_foreign_keys=false) makes the
// proof rest on a named assumption.
func fkJoinElimination(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpJoin || n.Join != plan.InnerJoin || len(n.Inputs) < 2 {
		return false
	}
	for pi, parent := range n.Inputs {
		if parent.Op != plan.OpScan {
			continue
		}
		pcols := parent.OutColSet()
		for ci, childIn := range n.Inputs {
			if ci == pi {
				continue
			}
			child, _, ok := singleTable(childIn)
			if !ok {
				continue
			}
			for _, fk := range child.Table.ForeignKeys {
				if !r.schema.NameEqual(fk.RefTable, parent.Table.Name) || !refersToKey(parent.Table, fk.RefColumns) {
					continue
				}
				// Every fk column equated with its referenced column.
				used := map[int]bool{}
				var rest []*plan.Expr
				for _, p := range n.Preds {
					matched := false
					if a, b, ok := plan.ColEquality(p, r.p.Meta); ok {
						for k := range fk.Columns {
							ca, pb := child.Cols[fk.Columns[k]], parent.Cols[fk.RefColumns[k]]
							alike := catalog.EqualsAlike(child.Table.Columns[fk.Columns[k]].Type, parent.Table.Columns[fk.RefColumns[k]].Type)
							if alike && ((a == ca && b == pb) || (a == pb && b == ca)) {
								used[k] = true
								matched = true
							}
						}
					}
					if !matched {
						rest = append(rest, p)
					}
				}
				if len(used) != len(fk.Columns) {
					continue
				}
				// Parent columns may be read only where they equal fk columns.
				m := map[plan.ColumnID]*plan.Expr{}
				for k := range fk.Columns {
					o := fk.Columns[k]
					m[parent.Cols[fk.RefColumns[k]]] = plan.NewCol(child.Cols[o], child.Table.Columns[o].Type)
				}
				if readsOtherThan(r.p.Root, parent, pcols, m) || exprsRead(rest, pcols, m) {
					continue
				}
				var notNull []*plan.Expr
				for _, o := range fk.Columns {
					if !child.Table.Columns[o].NotNull {
						notNull = append(notNull, plan.NewOp(plan.OpIsNotNull, catalog.Bool, plan.NewCol(child.Cols[o], child.Table.Columns[o].Type)))
					}
				}
				var ins []*plan.Node
				for k, in := range n.Inputs {
					if k == pi {
						continue
					}
					if k == ci && len(notNull) > 0 {
						in = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{in}, Preds: notNull}
					}
					ins = append(ins, in)
				}
				n.Inputs = ins
				n.Preds = rest
				plan.ReplaceColsOutside(r.p.Root, nil, m)
				if !r.trustFK {
					var subj string
					for k, o := range fk.Columns {
						if k > 0 {
							subj += ", "
						}
						subj += child.Table.Name + "." + child.Table.Columns[o].Name + " references " + parent.Table.Name + "." + parent.Table.Columns[fk.RefColumns[k]].Name
					}
					r.assume(Assumption{Kind: AssumeForeignKey, Subject: subj})
				}
				return true
			}
		}
	}
	return false
}

// readsOtherThan reports whether the plan reads a column of cols that m
// cannot replace, outside the node skip.
func readsOtherThan(root, skip *plan.Node, cols plan.ColSet, m map[plan.ColumnID]*plan.Expr) bool {
	found := false
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == skip || found {
			return
		}
		// Every reader counts, inner joins' conditions and set operations'
		// inputs included: a set operation reads its input's columns by
		// ID, so a parent column it reads would be left without a source.
		n.Exprs(func(s **plan.Expr) {
			plan.WalkDeep(*s, func(x *plan.Expr) {
				if x.Kind == plan.ColRef && cols.Has(x.Col) {
					if _, ok := m[x.Col]; !ok {
						found = true
					}
				}
			})
		})
		for _, g := range n.GroupBy {
			if _, ok := m[g]; cols.Has(g) && !ok {
				found = true
			}
		}
		for _, sc := range n.SetCols {
			for _, c := range sc {
				if _, ok := m[c]; cols.Has(c) && !ok {
					found = true
				}
			}
		}
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(root)
	return found
}

func exprsRead(es []*plan.Expr, cols plan.ColSet, m map[plan.ColumnID]*plan.Expr) bool {
	for _, e := range es {
		for _, c := range e.Cols().Ordered() {
			if _, ok := m[c]; cols.Has(c) && !ok {
				return true
			}
		}
	}
	return false
}

// distinctJoinToSemi: Distinct(Project(InnerJoin(l, r, p))) ⇒
// Distinct(Project(SemiJoin(l, r, p))) when nothing above the join reads
// r: under DISTINCT it only matters whether a row of l has a match, not
// how many.
func distinctJoinToSemi(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpDistinct || n.Inputs[0].Op != plan.OpProject {
		return false
	}
	proj := n.Inputs[0]
	j := proj.Inputs[0]
	if j.Op != plan.OpJoin || j.Join != plan.InnerJoin || len(j.Inputs) < 2 {
		return false
	}
	read := plan.ColSet{}
	for _, it := range proj.Proj {
		read.UnionWith(it.Expr.Cols())
	}
	for i := len(j.Inputs) - 1; i >= 0; i-- {
		rt := j.Inputs[i]
		rcols := rt.OutColSet()
		if read.Intersects(rcols) || outerRefs(rt) {
			continue
		}
		var cond, keep []*plan.Expr
		for _, p := range j.Preds {
			if p.Cols().Intersects(rcols) {
				cond = append(cond, p)
			} else {
				keep = append(keep, p)
			}
		}
		var rest []*plan.Node
		rest = append(rest, j.Inputs[:i]...)
		rest = append(rest, j.Inputs[i+1:]...)
		var left *plan.Node
		if len(rest) == 1 && len(keep) == 0 {
			left = rest[0]
		} else {
			left = &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: rest, Preds: keep}
		}
		proj.Inputs[0] = &plan.Node{Op: plan.OpJoin, Join: plan.SemiJoin, Inputs: []*plan.Node{left, rt}, Preds: cond}
		return true
	}
	return false
}
