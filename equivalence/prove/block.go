package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// block is a select-project-join query block: the product of its leaves,
// filtered by preds and by its semi- and anti-joined sub-blocks.
type block struct {
	leaves []*plan.Node
	preds  []*plan.Expr
	semis  []*semi
	defs   map[plan.ColumnID]*plan.Expr // computed columns, inlined in preds and outputs
	parent *block
	bad    bool // holds something the block cannot express
	// simp simplifies each node before it is read (prover.simplify).
	simp func(*plan.Node) *plan.Node
	// lift moves a grouping leaf's conditions on its grouping columns
	// into the block (prover.liftGroupFilter); nil: none.
	lift func(*plan.Node) *plan.Node
}

type semi struct {
	anti bool
	blk  *block
}

func isBlockNode(n *plan.Node) bool {
	switch n.Op {
	case plan.OpScan, plan.OpFilter, plan.OpProject:
		return true
	case plan.OpValues:
		return len(n.Rows) == 1
	case plan.OpJoin:
		return n.Join == plan.InnerJoin || n.Join == plan.SemiJoin || n.Join == plan.AntiJoin
	}
	return false
}

func newBlock(parent *block) *block {
	b := &block{defs: map[plan.ColumnID]*plan.Expr{}, parent: parent}
	if parent != nil {
		b.simp, b.lift = parent.simp, parent.lift
	}
	return b
}

// flatten gathers the block rooted at n, bottom-up: each conjunct and
// definition is inlined against the definitions below it, because a
// projection may reuse a column ID its input defines differently.
func (b *block) flatten(n *plan.Node) {
	if b.simp != nil {
		n = b.simp(n)
	}
	switch n.Op {
	case plan.OpScan:
		b.leaves = append(b.leaves, n)
	case plan.OpFilter:
		b.flatten(n.Inputs[0])
		for _, e := range n.Preds {
			b.preds = append(b.preds, b.inline(e))
		}
	case plan.OpValues:
		if len(n.Rows) != 1 {
			b.leaves = append(b.leaves, n)
			return
		}
		// One row of values is the unit of the product: its columns are
		// its expressions.
		for i, c := range n.Cols {
			if i < len(n.Rows[0]) {
				b.defs[c] = b.inline(n.Rows[0][i])
			}
		}
	case plan.OpProject:
		b.flatten(n.Inputs[0])
		defs := map[plan.ColumnID]*plan.Expr{}
		for _, it := range n.Proj {
			if it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID {
				continue
			}
			defs[it.ID] = b.inline(it.Expr)
		}
		for id, e := range defs {
			b.defs[id] = e
		}
	case plan.OpJoin:
		switch n.Join {
		case plan.InnerJoin:
			for _, in := range n.Inputs {
				b.flatten(in)
			}
			for _, e := range n.Preds {
				b.preds = append(b.preds, b.inline(e))
			}
		case plan.SemiJoin, plan.AntiJoin:
			b.flatten(n.Inputs[0])
			sub := newBlock(b)
			sub.flatten(n.Inputs[1])
			for _, e := range n.Preds {
				sub.preds = append(sub.preds, sub.inline(e))
			}
			b.semis = append(b.semis, &semi{anti: n.Join == plan.AntiJoin, blk: sub})
		default:
			b.leaves = append(b.leaves, n)
		}
	case plan.OpAggregate:
		if b.lift != nil {
			if l := b.lift(n); l != nil {
				b.flatten(l)
				return
			}
		}
		b.leaves = append(b.leaves, n)
	default:
		b.leaves = append(b.leaves, n)
	}
}

// def finds the definition of a computed column of the block or of an
// enclosing block.
func (b *block) def(c plan.ColumnID) *plan.Expr {
	for x := b; x != nil; x = x.parent {
		if d, ok := x.defs[c]; ok {
			return d
		}
	}
	return nil
}

// inline replaces references to computed columns by their definitions,
// which are themselves inlined already.
func (b *block) inline(e *plan.Expr) *plan.Expr {
	return plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
		if x.Kind == plan.ColRef {
			if d := b.def(x.Col); d != nil {
				return d.Copy()
			}
		}
		return x
	})
}

// side is one plan's view for translating expressions into terms.
type side struct {
	col      func(plan.ColumnID) (plan.ColumnID, bool)
	nullable func(plan.ColumnID) bool
}

func (p *prover) sideA() side { return side{col: p.colA, nullable: p.nullable} }

// terms translates es (inlined already) into s.
func terms(s *space, es []*plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), sub subKeyer) ([]*term, []string, error) {
	var ts []*term
	var keys []string
	var cs []*plan.Expr
	for _, e := range es {
		e = e.Copy()
		if !s.sqliteLike && s.intsFn() == nil {
			var ok bool
			if e, ok = anyValues(e); ok {
				s.anyValues = true
			}
		}
		for _, c := range plan.Conjuncts(foldInts(e, s.intsFn())) {
			if f, ok := factorOr(c); ok {
				s.factored = true
				cs = append(cs, plan.Conjuncts(f)...)
				continue
			}
			cs = append(cs, c)
		}
	}
	pinned := pins(cs, s.intsFn())
	for c := range pinned {
		// A pin is an equality the column's value must be identical
		// under (a date under RTRIM is not).
		if r, ok := col(c); ok && s.nondet != nil && s.nondet(r) {
			delete(pinned, c)
		}
	}
	var subst []*plan.Expr
	for _, c := range cs {
		subst = append(subst, substitute(c, pinned))
	}
	rep := equalColumns(subst, col, s.intsFn(), s.nondet)
	for _, c := range subst {
		c, changed := substituteEqual(c, rep)
		if changed {
			s.equalCols = true
		}
		c = foldInts(c, s.intsFn())
		{
			if c.IsTrue() {
				continue
			}
			k, ok := exprKeySub(c, col, sub)
			if !ok {
				return nil, nil, errUnkeyable
			}
			t, err := s.termUnder(c, col, sub)
			if err != nil {
				return nil, nil, err
			}
			ts = append(ts, t)
			keys = append(keys, k)
		}
	}
	return ts, keys, nil
}

// sameConjuncts proves that two conjunct lists keep the same rows given
// hypotheses on each side: every conjunct of one side not literally on
// the other follows from the other side's conjuncts.
func (p *prover) sameConjuncts(c *checker, ta []*term, ka []string, tb []*term, kb []string, hypA, hypB []*term) (bool, error) {
	inA := map[string]bool{}
	for _, k := range ka {
		inA[k] = true
	}
	inB := map[string]bool{}
	for _, k := range kb {
		inB[k] = true
	}
	if c.s.factored {
		p.rule(ruleCommonConjuncts)
	}
	if c.s.equalCols {
		p.rule(ruleEqualColumns)
	}
	if c.s.anyValues {
		p.rule(ruleAnyValuesDisjunction)
	}
	hb := append(append([]*term(nil), hypB...), tb...)
	for i, t := range ta {
		if inB[ka[i]] {
			continue
		}
		ok, err := c.implies(hb, t)
		if err != nil || !ok {
			p.note("conjunct of a not implied (%v): %s", err, ka[i])
			return false, err
		}
		p.rule(rulePredEnumeration)
	}
	ha := append(append([]*term(nil), hypA...), ta...)
	for i, t := range tb {
		if inA[kb[i]] {
			continue
		}
		ok, err := c.implies(ha, t)
		if err != nil || !ok {
			p.note("conjunct of b not implied (%v): %s", err, kb[i])
			return false, err
		}
		p.rule(rulePredEnumeration)
	}
	return true, nil
}

// unsat reports whether no row satisfies preds, in one plan's namespace.
func (p *prover) unsat(blk *block, preds []*plan.Expr, onA bool) bool {
	id := func(c plan.ColumnID) (plan.ColumnID, bool) { return c, true }
	nullable := p.nullable
	if !onA {
		nullable = p.nullableB
	}
	s := newSpace(id, nullable)
	s.noDates = p.opts.SQLite
	s.sqliteLike = p.opts.SQLite
	meta := p.a.Meta
	if !onA {
		meta = p.b.Meta
	}
	s.declared = func(c plan.ColumnID) string { return declaredType(meta, c) }
	s.displayOnly = p.displayOnly
	s.ints = p.intsOf(onA)
	if onA {
		s.looseEq = p.looseEq
	} else {
		s.looseEq = func(c plan.ColumnID) bool { return (&prover{a: p.b}).looseEq(c) }
	}
	s.nondet = meta.LooseCol
	ts, _, err := terms(s, preds, id, nil)
	if err != nil || len(ts) == 0 {
		return false
	}
	c := &checker{ctx: p.ctx, s: s}
	// Each conjunct with the conjuncts connected to it: a contradiction
	// lies within one connected group.
	for _, t := range ts {
		ok, err := c.forAll(ts, []*term{t}, func(v []val) bool { return !v[0].isTrue() })
		if err == nil && ok {
			return true
		}
	}
	return false
}
