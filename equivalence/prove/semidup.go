package prove

import (
	"sort"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "redundant semi-join": a semi-joined sub-block T of a block is
// implied by another one, S, of the same block when S's leaves pair with
// T's (the same table, or sub-plans alike up to column names) so that S's
// conditions and the block's conjuncts imply T's: the S row that
// witnesses S then witnesses T. T then drops out. This moves a semi-join
// across the block's equalities: with o.k = l.k in the block, EXISTS (...
// WHERE x = o.k) implies EXISTS (... WHERE x = l.k).
//
// Each dropped sub-block is implied by one that stays, so the ones that
// stay imply all of them.

// dropRedundantSemis drops, in b and its sub-blocks, each semi-joined
// sub-block implied by another one that stays; it says whether it
// dropped one.
func (p *prover) dropRedundantSemis(b *block, onA bool) bool {
	dropped := false
	for _, s := range b.semis {
		if p.dropRedundantSemis(s.blk, onA) {
			dropped = true
		}
	}
	if len(b.semis) < 2 {
		return dropped
	}
	kept := append([]*semi(nil), b.semis...)
	for i := 0; i < len(kept); i++ {
		t := kept[i]
		if t.anti || len(t.blk.semis) > 0 || t.blk.bad {
			continue
		}
		for j, s := range kept {
			if j == i || s.anti || s.blk.bad {
				continue
			}
			if p.semiImplies(b, s.blk, t.blk, onA) {
				kept = append(kept[:i], kept[i+1:]...)
				i--
				dropped = true
				p.rule(ruleSemiJoinImplied)
				break
			}
		}
	}
	b.semis = kept
	return dropped
}

// semiImplies says whether sub-block s, with the conjuncts of b and the
// blocks around it, implies sub-block t (both of one plan).
func (p *prover) semiImplies(b, s, t *block, onA bool) bool {
	if len(s.leaves) != len(t.leaves) || len(s.leaves) > 4 {
		return false
	}
	used := make([]bool, len(s.leaves))
	m := map[plan.ColumnID]plan.ColumnID{}
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == len(t.leaves) {
			return p.semiConjunctsImply(b, s, t, m, onA)
		}
		for i, x := range s.leaves {
			if used[i] {
				continue
			}
			saved := make(map[plan.ColumnID]plan.ColumnID, len(m))
			for c, v := range m {
				saved[c] = v
			}
			if alike(x, t.leaves[k], m) {
				used[i] = true
				if rec(k + 1) {
					return true
				}
				used[i] = false
			}
			for c := range m {
				delete(m, c)
			}
			for c, v := range saved {
				m[c] = v
			}
		}
		return false
	}
	return rec(0)
}

// semiConjunctsImply: under the pairing m of t's columns to s's, every
// conjunct of t follows from s's and the enclosing blocks'.
func (p *prover) semiConjunctsImply(b, s, t *block, m map[plan.ColumnID]plan.ColumnID, onA bool) bool {
	id := func(c plan.ColumnID) (plan.ColumnID, bool) { return c, true }
	tcol := func(c plan.ColumnID) (plan.ColumnID, bool) {
		if v, ok := m[c]; ok {
			return v, true
		}
		return c, true
	}
	nullable := p.nullable
	looseEq := p.looseEq
	if !onA {
		nullable = p.nullableB
		looseEq = func(c plan.ColumnID) bool { return (&prover{a: p.b}).looseEq(c) }
	}
	sp := newSpace(id, nullable)
	sp.noDates = p.opts.SQLite
	sp.looseEq = looseEq
	meta := p.a.Meta
	if !onA {
		meta = p.b.Meta
	}
	sp.nondet = meta.LooseCol
	sp.declared = func(c plan.ColumnID) string { return declaredType(meta, c) }
	sp.ints = p.intsOf(onA)
	var hyps []*term
	for blk := b; blk != nil; blk = blk.parent {
		h, _, err := terms(sp, blk.preds, id, nil)
		if err != nil {
			return false
		}
		hyps = append(hyps, h...)
	}
	h, _, err := terms(sp, s.preds, id, nil)
	if err != nil {
		return false
	}
	hyps = append(hyps, h...)
	goals, _, err := terms(sp, t.preds, tcol, nil)
	if err != nil {
		return false
	}
	c := &checker{ctx: p.ctx, s: sp}
	for _, g := range goals {
		ok, err := c.implies(hyps, g)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// alike says whether y is x up to the names of the columns it produces,
// extending m (y's columns to x's); columns neither produces read alike.
func alike(x, y *plan.Node, m map[plan.ColumnID]plan.ColumnID) bool {
	if x.Op != y.Op || len(x.Inputs) != len(y.Inputs) {
		return false
	}
	for i := range x.Inputs {
		if !alike(x.Inputs[i], y.Inputs[i], m) {
			return false
		}
	}
	col := func(c plan.ColumnID) (plan.ColumnID, bool) {
		if v, ok := m[c]; ok {
			return v, true
		}
		return c, true
	}
	idCol := func(c plan.ColumnID) (plan.ColumnID, bool) { return c, true }
	same := func(a, b *plan.Expr) bool {
		ka, oka := exprKey(a, idCol)
		kb, okb := exprKey(b, col)
		return oka && okb && ka == kb
	}
	sameSet := func(a, b []*plan.Expr) bool {
		if len(a) != len(b) {
			return false
		}
		var ka, kb []string
		for i := range a {
			k1, ok1 := exprKey(a[i], idCol)
			k2, ok2 := exprKey(b[i], col)
			if !ok1 || !ok2 {
				return false
			}
			ka, kb = append(ka, k1), append(kb, k2)
		}
		sort.Strings(ka)
		sort.Strings(kb)
		for i := range ka {
			if ka[i] != kb[i] {
				return false
			}
		}
		return true
	}
	switch x.Op {
	case plan.OpScan:
		if x.Table == nil || y.Table == nil || x.Table.Name != y.Table.Name || len(x.Cols) != len(y.Cols) {
			return false
		}
		for i := range x.Cols {
			m[y.Cols[i]] = x.Cols[i]
		}
		return true
	case plan.OpFilter:
		return sameSet(x.Preds, y.Preds)
	case plan.OpJoin:
		return x.Join == y.Join && sameSet(x.Preds, y.Preds)
	case plan.OpProject:
		if len(x.Proj) != len(y.Proj) {
			return false
		}
		for i := range x.Proj {
			if !same(x.Proj[i].Expr, y.Proj[i].Expr) {
				return false
			}
			m[y.Proj[i].ID] = x.Proj[i].ID
		}
		return true
	case plan.OpAggregate:
		if len(x.GroupBy) != len(y.GroupBy) || len(x.Aggs) != len(y.Aggs) {
			return false
		}
		for i := range x.GroupBy {
			if v, _ := col(y.GroupBy[i]); v != x.GroupBy[i] {
				return false
			}
		}
		for i := range x.Aggs {
			if !same(x.Aggs[i].Expr, y.Aggs[i].Expr) {
				return false
			}
			m[y.Aggs[i].ID] = x.Aggs[i].ID
		}
		return true
	}
	return false
}
