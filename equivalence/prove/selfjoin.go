package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "self-join on a key": when a block's equalities make every
// column of a key of scan L equal to the same column of another scan L'
// of the same table (in the block or an enclosing one), L's row is L''s
// row: a key value names one row, and L' is a row with that value. So L
// drops out and its columns read as L''s, row for row (each combination
// had exactly one L row). Equalities are taken from the block's own
// conjuncts, which every kept row satisfies; a looser = (char(n),
// citext) does not name one row and is not used.

// selfKeyJoins applies the fragment to blk and its semi-joined
// sub-blocks. alias (blk is the reference's block being compared): the
// dropped columns read as their partners' above the block too.
func (p *prover) selfKeyJoins(blk *block, m *plan.Metadata, alias bool) {
	if blk.bad {
		return
	}
	for changed := true; changed; {
		changed = p.selfKeyJoinOnce(blk, m, alias)
	}
	for _, s := range blk.semis {
		p.selfKeyJoins(s.blk, m, alias)
	}
}

func (p *prover) selfKeyJoinOnce(blk *block, m *plan.Metadata, alias bool) bool {
	uf := unionFind[plan.ColumnID]{}
	for _, e := range blk.preds {
		// IS NOT DISTINCT FROM equates too: the partner's key columns are
		// NOT NULL, so a chain that reaches them holds no NULL.
		// One kind of type throughout (sameEqType).
		if (e.IsOp(plan.OpEq) || e.IsOp(plan.OpNotDistinc)) && len(e.Args) == 2 && e.Args[0].Kind == plan.ColRef && e.Args[1].Kind == plan.ColRef &&
			catalog.EqualsAlike(e.Args[0].Typ, e.Args[1].Typ) && !loose(m, e.Args[0].Col) && !loose(m, e.Args[1].Col) {
			uf.union(e.Args[0].Col, e.Args[1].Col)
		}
	}
	if len(uf) == 0 {
		return false
	}
	var partners []*plan.Node
	for b := blk; b != nil; b = b.parent {
		for _, l := range b.leaves {
			if l.Op == plan.OpScan && l.Table != nil {
				partners = append(partners, l)
			}
		}
	}
	for i, l := range blk.leaves {
		if l.Op != plan.OpScan || l.Table == nil {
			continue
		}
		for _, o := range partners {
			if o == l || o.Table.Name != l.Table.Name || len(o.Cols) != len(l.Cols) || !sameKeyRow(l, o, uf.find) {
				continue
			}
			sub := map[plan.ColumnID]plan.ColumnID{}
			for k, c := range l.Cols {
				sub[c] = o.Cols[k]
			}
			blk.leaves = append(blk.leaves[:i:i], blk.leaves[i+1:]...)
			renameCols(blk, sub)
			for c, to := range sub {
				blk.defs[c] = plan.NewCol(to, m.Col(to).Type)
			}
			if alias {
				// Above the block the reference's dropped columns read
				// as the partner's too (a candidate's read so through
				// the block's definitions): a plan fact, kept whatever
				// the search does next.
				p.aliasSelfJoin(sub)
			}
			p.ruleOn(ruleSelfJoinOnKey, "%s", l.Table.Name)
			return true
		}
	}
	return false
}

// sameKeyRow says whether find equates every column of some key of l's
// table with the same column of o.
func sameKeyRow(l, o *plan.Node, find func(plan.ColumnID) plan.ColumnID) bool {
	for _, key := range l.Table.Keys() {
		all := len(key) > 0
		for _, k := range key {
			if find(l.Cols[k]) != find(o.Cols[k]) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// renameCols rewrites the conjuncts and definitions of blk and of its
// sub-blocks through sub.
func renameCols(blk *block, sub map[plan.ColumnID]plan.ColumnID) {
	re := func(e *plan.Expr) *plan.Expr {
		return plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
			if x.Kind == plan.ColRef {
				if to, ok := sub[x.Col]; ok {
					return plan.NewCol(to, x.Typ)
				}
			}
			return x
		})
	}
	for i, e := range blk.preds {
		blk.preds[i] = re(e)
	}
	for id, d := range blk.defs {
		blk.defs[id] = re(d)
	}
	for _, s := range blk.semis {
		renameCols(s.blk, sub)
	}
}

// aliasSelfJoin records that each reference column of sub, a scan
// dropped by a self-join on a key, is its partner's column.
func (p *prover) aliasSelfJoin(sub map[plan.ColumnID]plan.ColumnID) {
	for c, to := range sub {
		if t, ok := p.aliasA[to]; ok {
			to = t
		}
		if _, ok := p.aliasA[c]; !ok {
			p.aliasA[c] = to
		}
	}
}
