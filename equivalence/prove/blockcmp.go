package prove

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// blocks proves two query blocks equivalent: a bijection between their
// relation occurrences under which the conjuncts keep the same rows, the
// semi- and anti-joined sub-blocks pair up alike, and the outputs agree.
// When that fails it tries again with the group-lift and redundant
// semi-join rewrites (grouplift.go, semidup.go), where they change a
// block: applied to one side's block only where the other's has no
// counterpart, they could part blocks that were alike.
func (p *prover) blocks(a, b *plan.Node, pos bool) (bool, error) {
	ok, _, err := p.blocksWith(a, b, pos, false)
	if ok || err != nil {
		return ok, err
	}
	ok, changed, err := p.blocksWith(a, b, pos, true)
	if !changed {
		return false, nil
	}
	return ok, err
}

func (p *prover) blocksWith(a, b *plan.Node, pos, rewrite bool) (ok, changed bool, err error) {
	k := p.mark()
	ba, bb := newBlock(nil), newBlock(nil)
	ba.simp = func(n *plan.Node) *plan.Node { return p.simplify(n, p.a.Meta) }
	bb.simp = func(n *plan.Node) *plan.Node { return p.simplify(n, p.b.Meta) }
	if rewrite {
		lift := func(n *plan.Node) *plan.Node {
			l := p.liftGroupFilter(n)
			if l != nil {
				changed = true
			}
			return l
		}
		ba.lift, bb.lift = lift, lift
	}
	ba.flatten(a)
	bb.flatten(b)
	if rewrite {
		if p.dropRedundantSemis(ba, true) {
			changed = true
		}
		if p.dropRedundantSemis(bb, false) {
			changed = true
		}
		if !changed {
			p.undo(k)
			return false, false, nil
		}
	}
	p.semiToJoin(ba, p.a.Meta)
	p.semiToJoin(bb, p.b.Meta)
	p.dedupToSemi(ba, a, p.a.Meta)
	p.dedupToSemi(bb, b, p.b.Meta)
	p.oneRowLeaves(ba, p.a.Meta)
	p.oneRowLeaves(bb, p.b.Meta)
	p.selfKeyJoins(ba, p.a.Meta, true)
	p.selfKeyJoins(bb, p.b.Meta, false)
	p.leaflessSemis(ba)
	p.leaflessSemis(bb)
	p.elimFKJoins(ba, p.a.Meta, p.nullA, blockProtected(ba, a))
	p.elimFKJoins(bb, p.b.Meta, p.nullB, blockProtected(bb, b))
	if len(ba.leaves) != len(bb.leaves) || len(ba.semis) != len(bb.semis) {
		p.note("blocks differ in shape: %d/%d leaves, %d/%d semi-joins", len(ba.leaves), len(bb.leaves), len(ba.semis), len(bb.semis))
		p.undo(k)
		return false, changed, nil
	}
	ok, err = p.pairLeaves(ba.leaves, bb.leaves, func() (bool, error) { return p.finishBlock(ba, bb, a, b, pos) })
	if err != nil || !ok {
		p.undo(k)
	}
	if err == errTooLarge {
		err = nil
	}
	return ok, changed, err
}

// pairLeaves searches a bijection between the leaves, then calls then;
// it backtracks when then fails.
func (p *prover) pairLeaves(la, lb []*plan.Node, then func() (bool, error)) (bool, error) {
	used := make([]bool, len(la))
	var rec func(j int) (bool, error)
	rec = func(j int) (bool, error) {
		if j == len(lb) {
			return then()
		}
		y := lb[j]
		for i, x := range la {
			if used[i] {
				continue
			}
			if err := p.tick(); err != nil {
				return false, err
			}
			m := p.mark()
			ok, err := p.leaf(x, y, i != j)
			if err != nil {
				return false, err
			}
			if ok {
				used[i] = true
				ok, err = rec(j + 1)
				if err != nil || ok {
					return ok, err
				}
				used[i] = false
			}
			p.undo(m)
		}
		return false, nil
	}
	return rec(0)
}

// leaf pairs two relation occurrences: scans of one table, or sub-plans
// proved equivalent.
func (p *prover) leaf(x, y *plan.Node, moved bool) (bool, error) {
	if x.Op == plan.OpScan || y.Op == plan.OpScan {
		if x.Op != y.Op || x.Table == nil || y.Table == nil || x.Table.Name != y.Table.Name || len(x.Cols) != len(y.Cols) {
			return false, nil
		}
		for i := range x.Cols {
			p.set(y.Cols[i], x.Cols[i])
		}
		if moved {
			p.ruleOn(ruleLeafBijection, "%s↔%s", p.alias(p.a, x), p.alias(p.b, y))
		}
		return true, nil
	}
	ok, err := p.rel(x, y, false)
	if !ok {
		p.note("leaves %v and %v not proved equivalent", x.Op, y.Op)
	}
	return ok, err
}

func (p *prover) alias(pl *plan.Plan, n *plan.Node) string {
	if n.Instance >= 0 && n.Instance < len(pl.Meta.Instances) {
		if a := pl.Meta.Instances[n.Instance].Alias; a != "" {
			return a
		}
	}
	return n.Table.Name
}

// finishBlock checks conjuncts, sub-blocks and outputs under the pairing
// of the leaves made so far.
func (p *prover) finishBlock(ba, bb *block, a, b *plan.Node, pos bool) (bool, error) {
	if ba.bad || bb.bad {
		return false, nil
	}
	s := p.newSpace()
	ta, ka, err := terms(s, ba.preds, p.colA, p.subA)
	if err != nil {
		p.note("conjuncts of a: %v", err)
		return false, nil
	}
	tb, kb, err := terms(s, bb.preds, p.colB, p.subB)
	if err != nil {
		p.note("conjuncts of b: %v", err)
		return false, nil
	}
	c := &checker{ctx: p.ctx, s: s}
	ok, err := p.sameConjuncts(c, ta, ka, tb, kb, nil, nil)
	if err != nil || !ok {
		return false, ignoreTooLarge(err)
	}
	return p.pairSemis(ba.semis, bb.semis, ta, tb, func() (bool, error) {
		return p.outputs(s, c, ba, bb, ta, a, b, pos)
	})
}

func ignoreTooLarge(err error) error {
	if err == errTooLarge || err == errUnkeyable {
		return nil
	}
	return err
}

// pairSemis pairs semi- and anti-joined sub-blocks: the same kind, a
// bijection of their leaves, and conjuncts that keep the same rows given
// the enclosing blocks' conjuncts (hypA, hypB).
func (p *prover) pairSemis(sa, sb []*semi, hypA, hypB []*term, then func() (bool, error)) (bool, error) {
	used := make([]bool, len(sa))
	var rec func(j int) (bool, error)
	rec = func(j int) (bool, error) {
		if j == len(sb) {
			return then()
		}
		y := sb[j]
		for i, x := range sa {
			if used[i] || x.anti != y.anti || len(x.blk.leaves) != len(y.blk.leaves) || len(x.blk.semis) != len(y.blk.semis) {
				continue
			}
			m := p.mark()
			ok, err := p.pairLeaves(x.blk.leaves, y.blk.leaves, func() (bool, error) {
				if x.blk.bad || y.blk.bad {
					return false, nil
				}
				s := p.newSpace()
				// The hypotheses were translated in another space:
				// translate this sub-block's conjuncts with the
				// enclosing ones again.
				ta, ka, err := terms(s, x.blk.preds, p.colA, p.subA)
				if err != nil {
					return false, nil
				}
				tb, kb, err := terms(s, y.blk.preds, p.colB, p.subB)
				if err != nil {
					return false, nil
				}
				ha, hb, err := p.enclosing(s, x.blk, y.blk)
				if err != nil {
					return false, nil
				}
				c := &checker{ctx: p.ctx, s: s}
				ok, err := p.sameConjuncts(c, ta, ka, tb, kb, ha, hb)
				if err != nil || !ok {
					return false, ignoreTooLarge(err)
				}
				return p.pairSemis(x.blk.semis, y.blk.semis, append(ha, ta...), append(hb, tb...), func() (bool, error) { return rec(j + 1) })
			})
			if err != nil {
				return false, err
			}
			if ok {
				kind := "semi"
				if x.anti {
					kind = "anti"
				}
				p.ruleOn(ruleSubBlocksPaired, "%s-join", kind)
				return true, nil
			}
			p.undo(m)
			_ = i
		}
		return false, nil
	}
	return rec(0)
}

// enclosing translates the conjuncts of the blocks around x and y into s.
func (p *prover) enclosing(s *space, x, y *block) ([]*term, []*term, error) {
	var ha, hb []*term
	for blk := x.parent; blk != nil; blk = blk.parent {
		t, _, err := terms(s, blk.preds, p.colA, p.subA)
		if err != nil {
			return nil, nil, err
		}
		ha = append(ha, t...)
	}
	for blk := y.parent; blk != nil; blk = blk.parent {
		t, _, err := terms(s, blk.preds, p.colB, p.subB)
		if err != nil {
			return nil, nil, err
		}
		hb = append(hb, t...)
	}
	return ha, hb, nil
}

// outputs proves the blocks' outputs equal in every kept row and maps
// b's output columns to a's: by position with pos, else each to an equal
// output of a.
func (p *prover) outputs(s *space, c *checker, ba, bb *block, hyps []*term, a, b *plan.Node, pos bool) (bool, error) {
	ao, bo := a.OutCols(), b.OutCols()
	if pos && len(ao) != len(bo) {
		return false, nil
	}
	oc := &outputCmp{p: p, s: s, c: c, ba: ba, bb: bb, hyps: hyps, ao: ao, bo: bo, pos: pos,
		// Every kept row satisfies the block's conjuncts: columns they
		// equate read as one (equal-columns).
		repA: equalColumns(ba.preds, p.colA, p.intsFn(true), s.nondet),
		repB: equalColumns(bb.preds, p.colB, p.intsFn(false), s.nondet),
	}
	if pos {
		for i := range ao {
			ok, err := oc.same(i, i)
			if err != nil || !ok {
				return false, err
			}
		}
		for i := range ao {
			p.set(bo[i], ao[i])
		}
		return true, nil
	}
	for j := range bo {
		if m, ok := p.m[bo[j]]; ok && slices.Contains(ao, m) {
			continue // a column of a paired leaf, passed through
		}
		for i := range ao {
			ok, err := oc.same(i, j)
			if err != nil {
				return false, err
			}
			if ok {
				p.set(bo[j], ao[i])
				break
			}
		}
	}
	return true, nil
}

// An outputCmp compares the outputs ao of block ba with bo of bb under
// hyps (pos: by position, noting why a pair differs), with what the
// comparisons share: the columns the blocks equate (repA, repB), and,
// computed on first need, the columns they pin (pinA, pinB) and the
// leaves' facts.
type outputCmp struct {
	p          *prover
	s          *space
	c          *checker
	ba, bb     *block
	hyps       []*term
	ao, bo     []plan.ColumnID
	pos        bool
	repA, repB map[plan.ColumnID]plan.ColumnID
	pinA, pinB map[plan.ColumnID]*plan.Expr
	facts      []*term
}

// pins returns the columns each block pins to a constant: a conjunct
// col = c pins col to c in every kept row, so the outputs read c there
// (output-pinned), and deptno + 1 is 11 under deptno = 10.
func (oc *outputCmp) pins() (map[plan.ColumnID]*plan.Expr, map[plan.ColumnID]*plan.Expr) {
	if oc.pinA == nil {
		oc.pinA, oc.pinB = oc.p.outputPins(oc.s, oc.ba, true), oc.p.outputPins(oc.s, oc.bb, false)
	}
	return oc.pinA, oc.pinB
}

// same says whether output i of a equals output j of b in every kept
// row.
func (oc *outputCmp) same(i, j int) (bool, error) {
	p := oc.p
	ta, tb := p.a.Meta.Col(oc.ao[i]).Type, p.b.Meta.Col(oc.bo[j]).Type
	ea, chA := substituteEqual(oc.ba.inline(plan.NewCol(oc.ao[i], ta)), oc.repA)
	eb, chB := substituteEqual(oc.bb.inline(plan.NewCol(oc.bo[j], tb)), oc.repB)
	if chA || chB {
		p.rule(ruleEqualColumns)
	}
	ea = foldIntsBy(ea, p.intsFn(true), p.colA)
	eb = foldIntsBy(eb, p.intsFn(false), p.colB)
	ka0, okA := exprKeySub(ea, p.colA, p.subA)
	kb0, okB := exprKeySub(eb, p.colB, p.subB)
	if !okA || !okB || ka0 != kb0 {
		pa, pb := oc.pins()
		if ok, err := p.pinnedOutputsSame(ea, eb, pa, pb, ta, tb); ok || err != nil {
			return ok, err
		}
	}
	intA := integralExtract(ea) || (ea.Kind == plan.ColRef && p.intA[ea.Col])
	intB := integralExtract(eb) || (eb.Kind == plan.ColRef && p.intB[eb.Col])
	if intA {
		p.intA[oc.ao[i]] = true
	}
	if intB {
		p.intB[oc.bo[j]] = true
	}
	if ta != tb && !(intA && intB) && !p.countsAlike(oc.ao[i], oc.bo[j], ta, tb) {
		// (An integral EXTRACT reads and prints alike as numeric and
		// as integer.)
		if oc.pos {
			p.note("output %d: types %v and %v", i, ta, tb)
		}
		return false, nil
	}
	ka, oka := exprKeySub(ea, p.colA, p.subA)
	kb, okb := exprKeySub(eb, p.colB, p.subB)
	if !oka || !okb {
		return false, nil
	}
	if ka == kb {
		return true, nil
	}
	return oc.sameValue(ea, eb, ka, kb)
}

// sameValue proves outputs ea and eb, of keys ka and kb, equal under
// the hypotheses and, failing that, the leaves' facts.
func (oc *outputCmp) sameValue(ea, eb *plan.Expr, ka, kb string) (bool, error) {
	p := oc.p
	xa, err := oc.s.termUnder(ea, p.colA, p.subA)
	var xb *term
	if err == nil {
		xb, err = oc.s.termUnder(eb, p.colB, p.subB)
	}
	if err != nil {
		return false, nil
	}
	// Where = between the two is not identity (timestamp against
	// timestamptz, intervals, unconstrained numerics, a collation),
	// an equality among the hypotheses may hold between values that
	// print or compute differently: only the expressions themselves
	// may show the outputs the same.
	ident := catalog.IdentityEqual(p.a.Meta.ExprDomain(ea), p.b.Meta.ExprDomain(eb))
	h := oc.hyps
	if !ident {
		h = nil
	}
	ok, err := oc.c.sameValue(h, xa, xb)
	if !ok && err == nil && ident {
		if oc.facts == nil {
			oc.facts = p.leafFactTerms(oc.s, oc.ba, oc.bb)
		}
		if len(oc.facts) > 0 {
			ok, err = oc.c.sameValue(append(append([]*term(nil), oc.hyps...), oc.facts...), xa, xb)
			if ok {
				p.rule(ruleOutputsOrderedDerived)
			}
		}
	}
	if ok {
		p.rule(ruleOutputsEnumeration)
	} else {
		if oc.pos {
			p.note("outputs differ (%v): %s vs %s", err, ka, kb)
		}
	}
	return ok, ignoreTooLarge(err)
}
