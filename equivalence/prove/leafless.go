package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// leaflessSemis turns a semi- or anti-joined sub-block with no relation
// left (its one table was the enclosing row, dropped by the self-join on
// a key, or it read a single row of constants) into a conjunct of the
// enclosing block: the sub-block is one row filtered by its conjuncts c,
// so EXISTS is c being TRUE, and NOT EXISTS is (c) IS NOT TRUE (FALSE or
// NULL). EXCEPT of two filters of one keyed table reads so as a filter.
func (p *prover) leaflessSemis(blk *block) {
	if blk.bad {
		return
	}
	kept := blk.semis[:0]
	for _, s := range blk.semis {
		p.leaflessSemis(s.blk)
		if len(s.blk.leaves) > 0 || len(s.blk.semis) > 0 || s.blk.bad {
			kept = append(kept, s)
			continue
		}
		var c *plan.Expr
		for _, e := range s.blk.preds {
			if e.IsOp(plan.OpNotDistinc) && len(e.Args) == 2 && e.Args[0].Kind == plan.ColRef && e.Args[1].Kind == plan.ColRef && e.Args[0].Col == e.Args[1].Col {
				continue // x IS NOT DISTINCT FROM x: TRUE (left by the self-join)
			}
			if c == nil {
				c = e
			} else {
				c = plan.NewOp(plan.OpAnd, catalog.Bool, c, e)
			}
		}
		if c == nil {
			c = plan.NewBool(true)
		}
		if s.anti {
			blk.preds = append(blk.preds, plan.NewOp(plan.OpIsNotTrue, catalog.Bool, c))
			p.rule(ruleLeaflessAnti)
		} else {
			blk.preds = append(blk.preds, c)
			p.rule(ruleLeaflessSemi)
		}
	}
	blk.semis = kept
}
