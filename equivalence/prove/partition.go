package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "partition": a block equals a UNION ALL of blocks over the same
// relation occurrences when each branch keeps a subset of the block's
// rows (its conjuncts imply the block's), gives each of them the block's
// outputs, and every row the block keeps satisfies exactly one branch's
// conjuncts. So a CASE in the select list is a UNION ALL of its cases,
// when the cases' conditions partition the rows (with IS NULL where
// three-valued logic needs it).
func (p *prover) partition(a *plan.Node, bs []branch) (bool, error) {
	k := p.mark()
	s := p.newSpace()
	blkA := newBlock(nil)
	blkA.simp = func(n *plan.Node) *plan.Node { return p.simplify(n, p.a.Meta) }
	blkA.flatten(a)
	if blkA.bad || len(blkA.semis) > 0 {
		p.undo(k)
		return false, nil
	}
	ta, _, err := terms(s, blkA.preds, p.colA, p.subA)
	if err != nil {
		p.undo(k)
		return false, nil
	}
	c := &checker{ctx: p.ctx, s: s}
	ao := a.OutCols()
	var conds []*term
	for _, br := range bs {
		blkB := newBlock(nil)
		blkB.simp = func(n *plan.Node) *plan.Node { return p.simplify(n, p.b.Meta) }
		blkB.flatten(br.n)
		if blkB.bad || len(blkB.semis) > 0 || len(blkB.leaves) != len(blkA.leaves) || len(br.cols) != len(ao) {
			p.undo(k)
			return false, nil
		}
		var cond *term
		ok, err := p.pairLeaves(blkA.leaves, blkB.leaves, func() (bool, error) {
			tb, _, err := terms(s, blkB.preds, p.colB, p.subB)
			if err != nil {
				return false, nil
			}
			for _, t := range ta {
				if ok, err := c.implies(tb, t); err != nil || !ok {
					return false, ignoreTooLarge(err)
				}
			}
			for i := range ao {
				typ := p.a.Meta.Col(ao[i]).Type
				if typ != p.b.Meta.Col(br.cols[i]).Type {
					return false, nil
				}
				ea := foldInts(blkA.inline(plan.NewCol(ao[i], typ)), p.intsFn(true))
				eb := foldInts(blkB.inline(plan.NewCol(br.cols[i], typ)), p.intsFn(false))
				xa, err := s.termUnder(ea, p.colA, p.subA)
				var xb *term
				if err == nil {
					xb, err = s.termUnder(eb, p.colB, p.subB)
				}
				if err != nil {
					return false, nil
				}
				if ok, err := c.sameValue(tb, xa, xb); err != nil || !ok {
					return false, ignoreTooLarge(err)
				}
			}
			cond = &term{op: "and", cls: clsBool, args: tb}
			if len(tb) == 0 {
				cond = &term{op: "const", cls: clsBool, c: constVal{str: "true"}}
			}
			return true, nil
		})
		if err != nil || !ok {
			p.undo(k)
			return false, ignoreTooLarge(err)
		}
		conds = append(conds, cond)
	}
	ok, err := c.forAll(ta, conds, func(v []val) bool {
		n := 0
		for _, x := range v {
			if x.isTrue() {
				n++
			}
		}
		return n == 1
	})
	if err != nil || !ok {
		p.undo(k)
		return false, ignoreTooLarge(err)
	}
	p.ruleOn(rulePartitionUnion, "%d branches", len(bs))
	return true, nil
}
