package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// sort: equivalent inputs and the same keys, each equal under the column
// mapping or under the inputs' equalities (sameSortKey).
func (p *prover) sort(a, b *plan.Node) (bool, error) {
	if ok, err := p.passThrough(a.Inputs[0], b.Inputs[0]); err != nil || !ok {
		return false, err
	}
	if len(a.Keys) != len(b.Keys) {
		return false, nil
	}
	var clsA, clsB map[plan.ColumnID][]plan.ColumnID
	viaEq, classes := false, false
	for i := range a.Keys {
		if a.Keys[i].Desc != b.Keys[i].Desc || a.Keys[i].NullsFirst != b.Keys[i].NullsFirst {
			return false, nil
		}
		ka, oka := exprKeySub(a.Keys[i].Expr, p.colA, p.subA)
		kb, okb := exprKeySub(b.Keys[i].Expr, p.colB, p.subB)
		if oka && okb && ka == kb {
			continue
		}
		if !classes {
			clsA, clsB = sortClasses(a.Inputs[0], p.a.Meta), sortClasses(b.Inputs[0], p.b.Meta)
			classes = true
		}
		if !p.sameSortKey(a.Keys[i].Expr, b.Keys[i].Expr, clsA, clsB) {
			return false, nil
		}
		viaEq = true
	}
	if viaEq {
		p.rule(ruleSortKeysEqual)
	}
	return true, nil
}

// sortClasses gathers, for the input n of a sort, the columns equal to
// each other on every row of it: the block's conjuncts x = y between
// columns of one type (not char(n), citext or collated, which compare
// loosely). Sorting on x or on y then orders the rows alike: the sort
// compares with the ordering whose equality = is, and no row holds a NULL
// in either. A computed column that is a column by definition joins its
// class. Only the input's own block counts (a semi-join's conditions hold
// on the sub-block's rows, not on the input's).
func sortClasses(n *plan.Node, m *plan.Metadata) map[plan.ColumnID][]plan.ColumnID {
	if !isBlockNode(n) {
		return nil
	}
	blk := newBlock(nil)
	blk.flatten(n)
	uf := unionFind[plan.ColumnID]{}
	for _, p := range blk.preds {
		for _, e := range plan.Conjuncts(p) {
			if e.IsOp(plan.OpEq) && len(e.Args) == 2 && e.Args[0].Kind == plan.ColRef && e.Args[1].Kind == plan.ColRef &&
				e.Args[0].Typ == e.Args[1].Typ && !loose(m, e.Args[0].Col) && !loose(m, e.Args[1].Col) {
				uf.union(e.Args[0].Col, e.Args[1].Col)
			}
		}
	}
	for c, d := range blk.defs {
		if d.Kind == plan.ColRef && d.Col != c {
			uf.union(c, d.Col)
		}
	}
	if len(uf) == 0 {
		return nil
	}
	members := map[plan.ColumnID][]plan.ColumnID{}
	for c := range uf {
		members[uf.find(c)] = append(members[uf.find(c)], c)
	}
	for r := range members {
		if _, ok := uf[r]; !ok {
			members[r] = append(members[r], r)
		}
	}
	cls := map[plan.ColumnID][]plan.ColumnID{}
	for _, ms := range members {
		for _, c := range ms {
			cls[c] = ms
		}
	}
	return cls
}

// sameSortKey: sort keys ka of a and kb of b order the rows alike, where
// they are not one expression under the column mapping: both columns,
// and a column equal to ka on every row of a's input (clsA) is the
// mapping of one equal to kb on every row of b's (clsB).
func (p *prover) sameSortKey(ka, kb *plan.Expr, clsA, clsB map[plan.ColumnID][]plan.ColumnID) bool {
	if ka.Kind != plan.ColRef || kb.Kind != plan.ColRef || ka.Typ != kb.Typ {
		return false
	}
	inA := map[plan.ColumnID]bool{}
	for _, c := range eqClass(ka.Col, clsA) {
		if m, ok := p.colA(c); ok {
			inA[m] = true
		}
	}
	for _, c := range eqClass(kb.Col, clsB) {
		if m, ok := p.colB(c); ok && inA[m] {
			return true
		}
	}
	return false
}

func eqClass(c plan.ColumnID, cls map[plan.ColumnID][]plan.ColumnID) []plan.ColumnID {
	if ms, ok := cls[c]; ok {
		return ms
	}
	return []plan.ColumnID{c}
}

// leafFacts gathers facts true on every row of blk's leaves that are a
// sort, a limit or a DISTINCT over a block (an ordered or limited derived
// table): the inner block's conjuncts hold on each of its rows, and those
// operators keep rows as they are. Where the inner block joins two
// instances of a table on a key (selfjoin.go), the dropped instance's
// columns are the kept one's, row for row: c IS NOT DISTINCT FROM c'.
// Only facts over the leaf's output columns count, none a projection
// inside defines (a projection may reuse an ID for another value).
func (p *prover) leafFacts(blk *block, m *plan.Metadata) []*plan.Expr {
	var out []*plan.Expr
	for _, l := range blk.leaves {
		n := l
		for n.Op == plan.OpSort || n.Op == plan.OpLimit || n.Op == plan.OpDistinct {
			n = n.Inputs[0]
		}
		if n == l || !isBlockNode(n) {
			continue
		}
		inner := newBlock(nil)
		inner.flatten(n)
		if inner.bad {
			continue
		}
		projected := plan.ColSet{}
		for c := range inner.defs {
			projected.Add(c)
		}
		k := p.mark()
		p.selfKeyJoins(inner, m, false)
		p.undo(k) // the facts' proof names its rule where it is used
		outs := l.OutColSet()
		usable := func(cs plan.ColSet) bool {
			return !cs.Empty() && cs.SubsetOf(outs) && !cs.Intersects(projected)
		}
		for _, pr := range inner.preds {
			for _, e := range plan.Conjuncts(pr) {
				if usable(e.Cols()) && !e.HasSubquery() {
					out = append(out, e)
				}
			}
		}
		for c, d := range inner.defs {
			if !projected.Has(c) && d.Kind == plan.ColRef && usable(plan.MakeColSet(c, d.Col)) {
				out = append(out, plan.NewOp(plan.OpNotDistinc, catalog.Bool, plan.NewCol(c, m.Col(c).Type), d.Copy()))
			}
		}
	}
	return out
}

// leafFactTerms translates the leaf facts of both blocks into s (b's
// under the mapping); a fact that does not translate is left out. It
// returns a non-nil slice, so that callers compute it once.
func (p *prover) leafFactTerms(s *space, ba, bb *block) []*term {
	out := []*term{}
	add := func(es []*plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), sub subKeyer) {
		for _, e := range es {
			if ts, _, err := terms(s, []*plan.Expr{e}, col, sub); err == nil {
				out = append(out, ts...)
			}
		}
	}
	add(p.leafFacts(ba, p.a.Meta), p.colA, p.subA)
	add(p.leafFacts(bb, p.b.Meta), p.colB, p.subB)
	return out
}
