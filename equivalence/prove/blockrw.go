package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "block rewrites": leaves of a block that stand for something
// the block can compare more directly.
//
//   - dedup join: a leaf that deduplicates X (DISTINCT, or GROUP BY
//     without aggregates) whose every column is equated with an
//     expression over the other leaves, and is read nowhere else, is a
//     semi-join with X on those equalities: each outer row meets at most
//     one of its rows (all its columns are fixed, and it has no
//     duplicates), and meets one exactly when X has a matching row.
//   - one-row leaf: an aggregate without GROUP BY returns exactly one row,
//     so joining it multiplies nothing; its columns are scalar subqueries.

// dedupToSemi applies "dedup join" to blk, whose outputs are root's.
func (p *prover) dedupToSemi(blk *block, root *plan.Node, m *plan.Metadata) {
	if blk.bad {
		return
	}
	for i := 0; i < len(blk.leaves); i++ {
		l := blk.leaves[i]
		var x *plan.Node
		switch {
		case l.Op == plan.OpDistinct:
			x = l.Inputs[0]
		case l.Op == plan.OpAggregate && len(l.Aggs) == 0 && len(l.GroupBy) > 0:
			x = l.Inputs[0]
		default:
			continue
		}
		own := l.OutColSet()
		var others plan.ColSet
		for j, o := range blk.leaves {
			if j != i {
				others.UnionWith(allCols(o))
			}
		}
		var pinned plan.ColSet
		var pins, rest []*plan.Expr
		same := map[plan.ColumnID]*plan.Expr{} // a column equal to an outer column in every kept row
		for _, e := range blk.preds {
			if c, other, ok := pinOf(e, own, others, m); ok {
				pinned.Add(c)
				pins = append(pins, e)
				if other.Kind == plan.ColRef && other.Typ == m.Col(c).Type && !loose(m, c) && !loose(m, other.Col) && m.ColIdentityEq(c, other.Col) {
					same[c] = other
				}
				continue
			}
			rest = append(rest, e)
		}
		if !own.SubsetOf(pinned) || dedupColsRead(blk, rest, root, own, same) {
			continue
		}
		sub := newBlock(blk)
		for _, c := range own.Ordered() {
			// The outer block reads c as the outer column it equals
			// (below); inside the sub-block c is its own.
			sub.defs[c] = plan.NewCol(c, m.Col(c).Type)
		}
		sub.flatten(x)
		// The pins are inlined already, against the outer block's
		// definitions; only their own columns still read as x defines
		// them.
		ownDef := func(e *plan.Expr) *plan.Expr {
			return plan.Rewrite(e.Copy(), func(y *plan.Expr) *plan.Expr {
				if y.Kind == plan.ColRef && own.Has(y.Col) {
					if d := sub.defs[y.Col]; d != nil {
						return d.Copy()
					}
				}
				return y
			})
		}
		for _, e := range pins {
			sub.preds = append(sub.preds, ownDef(e))
		}
		if len(same) > 0 {
			toOuter := func(e *plan.Expr) *plan.Expr {
				return plan.Rewrite(e.Copy(), func(y *plan.Expr) *plan.Expr {
					if y.Kind == plan.ColRef && same[y.Col] != nil {
						return same[y.Col].Copy()
					}
					return y
				})
			}
			for id, d := range blk.defs {
				blk.defs[id] = toOuter(d)
			}
			for c, o := range same {
				blk.defs[c] = o.Copy()
			}
		}
		blk.leaves = append(blk.leaves[:i:i], blk.leaves[i+1:]...)
		blk.preds = rest
		blk.semis = append(blk.semis, &semi{blk: sub})
		p.rule(ruleDedupJoinSemi)
		i--
	}
}

// pinOf says whether e equates a column of own with an expression over
// others, and which column and expression. The equality must be
// identity (Metadata.IdentityEq): the deduplicated leaf's one matching
// row then holds exactly the outer values.
func pinOf(e *plan.Expr, own, others plan.ColSet, m *plan.Metadata) (plan.ColumnID, *plan.Expr, bool) {
	if !e.IsOp(plan.OpEq) || len(e.Args) != 2 || e.HasSubquery() {
		return 0, nil, false
	}
	for k, x := range e.Args {
		other := e.Args[1-k]
		oc := other.Cols()
		if x.Kind == plan.ColRef && own.Has(x.Col) && !oc.Empty() && oc.SubsetOf(others) && catalog.EqualsAlike(x.Typ, other.Typ) && m.IdentityEq(x, other) {
			return x.Col, other, true
		}
	}
	return 0, nil, false
}

// loose says whether = on column c is looser than equality of values
// (char(n), citext, a collation): an equal column is not the same value.
func loose(m *plan.Metadata, c plan.ColumnID) bool {
	return (&prover{a: &plan.Plan{Meta: m}}).looseEq(c)
}

// dedupColsRead says whether preds, the semi-joined sub-blocks of blk or
// root's outputs read a column of cols; outputs may read those in same.
func dedupColsRead(blk *block, preds []*plan.Expr, root *plan.Node, cols plan.ColSet, same map[plan.ColumnID]*plan.Expr) bool {
	for _, e := range preds {
		if e.Cols().Intersects(cols) {
			return true
		}
	}
	for _, c := range root.OutCols() {
		for _, r := range blk.inline(plan.NewCol(c, catalog.Unknown)).Cols().Ordered() {
			if cols.Has(r) && same[r] == nil {
				return true
			}
		}
	}
	var inSemis func(b *block) bool
	inSemis = func(b *block) bool {
		for _, s := range b.semis {
			for _, e := range s.blk.preds {
				if e.Cols().Intersects(cols) {
					return true
				}
			}
			if inSemis(s.blk) {
				return true
			}
		}
		return false
	}
	return inSemis(blk)
}

// oneRowLeaves applies "one-row leaf" to blk.
func (p *prover) oneRowLeaves(blk *block, m *plan.Metadata) {
	if blk.bad || len(blk.leaves) < 2 {
		return
	}
	changed := false
	for i := 0; i < len(blk.leaves); i++ {
		l := blk.leaves[i]
		if l.Op != plan.OpAggregate || len(l.GroupBy) != 0 || len(l.Aggs) == 0 {
			continue
		}
		for _, c := range l.OutCols() {
			t := m.Col(c).Type
			sub := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{l}, Proj: []plan.ProjItem{{ID: c, Expr: plan.NewCol(c, t)}}}
			blk.defs[c] = &plan.Expr{Kind: plan.Subquery, SubKind: plan.SubScalar, Sub: sub, Typ: t, Pos: -1}
		}
		blk.leaves = append(blk.leaves[:i:i], blk.leaves[i+1:]...)
		i--
		changed = true
	}
	if !changed {
		return
	}
	var reinline func(b *block)
	reinline = func(b *block) {
		for k, e := range b.preds {
			b.preds[k] = b.inline(e)
		}
		for _, s := range b.semis {
			reinline(s.blk)
		}
	}
	reinline(blk)
	p.rule(ruleAggJoinScalar)
}
