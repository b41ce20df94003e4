package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "chase": a scanned table joined only along a foreign key — its
// key equated with the referencing columns of another occurrence in the
// block, and none of its columns read anywhere else — adds exactly one
// row to each referencing row whose columns are not NULL, so it drops out
// of the block, leaving "IS NOT NULL" on nullable referencing columns. On
// SQLite, which does not enforce foreign keys, the proof names the
// assumption.
func (p *prover) elimFKJoins(blk *block, m *plan.Metadata, nulls plan.ColSet, protected plan.ColSet) {
	for _, s := range blk.semis {
		p.elimFKJoins(s.blk, m, nulls, semiCols(s.blk.semis))
	}
	for changed := true; changed; {
		changed = false
		for i, l := range blk.leaves {
			if l.Op != plan.OpScan || l.Table == nil {
				continue
			}
			if p.dropFKLeaf(blk, i, m, nulls, protected) {
				changed = true
				break
			}
		}
	}
}

func (p *prover) dropFKLeaf(blk *block, i int, m *plan.Metadata, nulls plan.ColSet, protected plan.ColSet) bool {
	l := blk.leaves[i]
	lcols := plan.MakeColSet(l.Cols...)
	if lcols.Intersects(protected) {
		return false
	}
	ord := map[plan.ColumnID]int{}
	for k, c := range l.Cols {
		ord[c] = k
	}
	others := plan.ColSet{}
	for j, x := range blk.leaves {
		if j != i {
			others.UnionWith(x.OutColSet())
		}
	}
	pairs := map[int]int{} // child ordinal -> parent ordinal
	inst := -1
	var used []int
	var children []plan.ColumnID
	for k, e := range blk.preds {
		if !e.Cols().Intersects(lcols) {
			continue
		}
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef ||
			!m.KeyEq(e.Args[0], e.Args[1]) {
			// (A number may equal two distinct text keys of the parent.)
			return false
		}
		c, par := e.Args[0].Col, e.Args[1].Col
		if lcols.Has(c) {
			c, par = par, c
		}
		if !lcols.Has(par) || !others.Has(c) {
			return false
		}
		meta := m.Col(c)
		if meta.Instance < 0 || (inst >= 0 && meta.Instance != inst) {
			return false
		}
		inst = meta.Instance
		if _, dup := pairs[meta.Ordinal]; dup {
			return false
		}
		pairs[meta.Ordinal] = ord[par]
		used = append(used, k)
		children = append(children, c)
	}
	if inst < 0 || inst >= len(m.Instances) || m.Instances[inst].Table == nil {
		return false
	}
	child := m.Instances[inst].Table
	for _, fk := range child.ForeignKeys {
		if fk.RefTable != l.Table.Name || len(fk.Columns) != len(pairs) || !referencesKey(l.Table, fk.RefColumns) {
			continue
		}
		match := true
		for k, c := range fk.Columns {
			if po, ok := pairs[c]; !ok || po != fk.RefColumns[k] {
				match = false
			}
		}
		if !match {
			continue
		}
		subj := fkSubject(child, l.Table, fk)
		if !p.opts.TrustForeignKeys {
			p.assume(Assumption{Kind: AssumeForeignKey, Subject: subj})
		}
		p.ruleOn(ruleFKJoinDrop, "%s", subj)
		drop := map[int]bool{}
		for _, k := range used {
			drop[k] = true
		}
		var preds []*plan.Expr
		for k, e := range blk.preds {
			if !drop[k] {
				preds = append(preds, e)
			}
		}
		for _, c := range children {
			if !m.Col(c).NotNull || nulls.Has(c) {
				preds = append(preds, plan.NewOp(plan.OpIsNotNull, catalog.Bool, plan.NewCol(c, m.Col(c).Type)))
			}
		}
		blk.preds = preds
		blk.leaves = append(append([]*plan.Node(nil), blk.leaves[:i]...), blk.leaves[i+1:]...)
		return true
	}
	return false
}

func fkSubject(child, parent *catalog.Table, fk catalog.ForeignKey) string {
	subj := ""
	for k, c := range fk.Columns {
		if k > 0 {
			subj += ", "
		}
		subj += child.Name + "." + child.Columns[c].Name + " references " + parent.Name + "." + parent.Columns[fk.RefColumns[k]].Name
	}
	return subj
}

// semiCols are the columns the sub-blocks read, at any depth.
func semiCols(ss []*semi) plan.ColSet {
	var out plan.ColSet
	for _, s := range ss {
		for _, e := range s.blk.preds {
			out.UnionWith(e.Cols())
		}
		out.UnionWith(semiCols(s.blk.semis))
	}
	return out
}

// blockProtected are the columns a block's outputs and sub-blocks read.
func blockProtected(blk *block, n *plan.Node) plan.ColSet {
	out := semiCols(blk.semis)
	for _, c := range n.OutCols() {
		out.UnionWith(blk.inline(plan.NewCol(c, 0)).Cols())
	}
	return out
}

// semiToJoin: a semi-join whose sub-block is one scanned table with a key
// equated to the enclosing block's values is an inner join: each row has
// at most one partner (NULL keys equal nothing), so keeping the rows that
// have one and joining them with it give the same rows.
func (p *prover) semiToJoin(blk *block, m *plan.Metadata) {
	var keep []*semi
	for _, s := range blk.semis {
		scan := len(s.blk.leaves) == 1 && s.blk.leaves[0].Op == plan.OpScan && s.blk.leaves[0].Table != nil
		if !s.anti && len(s.blk.leaves) == 1 && ((scan && keyEquated(s.blk, blk, m)) || (!scan && derivedKeyEquated(s.blk, blk, m))) {
			blk.leaves = append(blk.leaves, s.blk.leaves[0])
			blk.preds = append(blk.preds, s.blk.preds...)
			for _, n := range s.blk.semis {
				n.blk.parent = blk
				keep = append(keep, n)
			}
			if scan {
				p.ruleOn(ruleSemiJoinOnKey, "%s", s.blk.leaves[0].Table.Name)
			} else {
				p.ruleOn(ruleSemiJoinOnKey, "a derived table")
			}
			continue
		}
		keep = append(keep, s)
	}
	blk.semis = keep
}

// keyEquated says whether sub's conjuncts equate every column of a key of
// its one scanned table with an expression over outer's leaves.
func keyEquated(sub, outer *block, m *plan.Metadata) bool {
	l := sub.leaves[0]
	ord := map[plan.ColumnID]int{}
	for k, c := range l.Cols {
		ord[c] = k
	}
	var outerCols plan.ColSet
	for _, x := range outer.leaves {
		outerCols.UnionWith(allCols(x))
	}
	pinned := map[int]bool{}
	for _, e := range sub.preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
			continue
		}
		for i, x := range e.Args {
			other := e.Args[1-i]
			if x.Kind != plan.ColRef || other.HasSubquery() {
				continue
			}
			o, ok := ord[x.Col]
			if !ok {
				continue
			}
			oc := other.Cols()
			if m.KeyEq(x, other) && (other.Kind == plan.Const || (!oc.Empty() && oc.SubsetOf(outerCols))) {
				pinned[o] = true
			}
		}
	}
	keys := [][]int{}
	if len(l.Table.PrimaryKey) > 0 {
		keys = append(keys, l.Table.PrimaryKey)
	}
	keys = append(keys, l.Table.Unique...)
	for _, k := range keys {
		all := true
		for _, o := range k {
			if !pinned[o] {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}
