package prove

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// rel proves that a and b return the same bag of rows, extending the
// column mapping with b's outputs. With pos, the outputs must correspond
// by position (the query's result, a set operation's branch).
func (p *prover) rel(a, b *plan.Node, pos bool) (bool, error) {
	if err := p.tick(); err != nil {
		return false, err
	}
	a, b = p.simplify(a, p.a.Meta), p.simplify(b, p.b.Meta)
	a, b = p.foldValuesPair(a, b)
	k0 := p.mark()
	if p.empty(a, true) && p.empty(b, false) {
		if p.mapOutputs(a, b) {
			p.rule(ruleEmptyBoth)
			return true, nil
		}
		p.undo(k0)
		return false, nil
	}
	p.undo(k0) // the rules the emptiness checks named
	if a.Op == plan.OpSetOp && b.Op != plan.OpSetOp {
		if x := p.exceptAsAnti(a, p.a); x != nil {
			return p.rel(x, b, pos)
		}
	}
	if b.Op == plan.OpSetOp && a.Op != plan.OpSetOp {
		if x := p.exceptAsAnti(b, p.b); x != nil {
			return p.rel(a, x, pos)
		}
	}
	if ok, err := p.unionOfDisjuncts(a, b, p.b.Meta, pos, false); err != nil || ok {
		return ok, err
	}
	if ok, err := p.unionOfDisjuncts(b, a, p.a.Meta, pos, true); err != nil || ok {
		return ok, err
	}
	if ok, err := p.intersectOfCount(a, b, p.b.Meta, pos, false); err != nil || ok {
		return ok, err
	}
	if ok, err := p.intersectOfCount(b, a, p.a.Meta, pos, true); err != nil || ok {
		return ok, err
	}
	if a.Op == plan.OpSetOp || b.Op == plan.OpSetOp {
		return p.setOp(a, b, pos)
	}
	if isBlockNode(a) && isBlockNode(b) {
		return p.blocks(a, b, pos)
	}
	if a.Op == plan.OpDistinct && b.Op != plan.OpDistinct && dupFree(b, p.b.Meta) && !plan.DefsMayRaise(a, a.OutCols()) {
		// DISTINCT X is the duplicate-free Y when X's rows, as a set, are
		// Y's: a bag-equal X' with the same set will do. Y must be
		// duplicate-free on the columns the proof pairs, not only on all
		// of its own (a wider Y read through fewer columns repeats rows).
		// DISTINCT evaluates every output on every row: where one may
		// raise (i + 1), the side without it, read through fewer
		// columns, may never evaluate it, so the two are not compared.
		k := p.mark()
		ok, err := p.rel(p.dedupUnion(p.setSimplify(p.simplify(a.Inputs[0], p.a.Meta)), p.a), b, pos)
		if err != nil || !ok {
			return ok, err
		}
		if !p.keyWithinPaired(b, p.b.Meta, func(c plan.ColumnID) bool {
			m, found := p.m[c]
			return found && slices.Contains(a.OutCols(), m)
		}) {
			p.undo(k)
			return false, nil
		}
		return true, nil
	}
	if b.Op == plan.OpDistinct && a.Op != plan.OpDistinct && dupFree(a, p.a.Meta) && !plan.DefsMayRaise(b, b.OutCols()) {
		k := p.mark()
		ok, err := p.rel(a, p.dedupUnion(p.setSimplify(p.simplify(b.Inputs[0], p.b.Meta)), p.b), pos)
		if err != nil || !ok {
			return ok, err
		}
		paired := plan.ColSet{}
		for _, c := range b.OutCols() {
			if m, found := p.m[c]; found {
				paired.Add(m)
			}
		}
		if !p.keyWithinPaired(a, p.a.Meta, paired.Has) {
			p.undo(k)
			return false, nil
		}
		return true, nil
	}
	if a.Op != b.Op {
		return false, nil
	}
	k := p.mark()
	ok, err := p.sameOp(a, b)
	if err != nil || !ok {
		p.undo(k)
		return false, err
	}
	if pos && !p.positional(a, b) {
		p.undo(k)
		return false, nil
	}
	return true, nil
}

func (p *prover) sameOp(a, b *plan.Node) (bool, error) {
	switch a.Op {
	case plan.OpDistinct:
		return p.rel(p.setSimplify(a.Inputs[0]), p.setSimplify(b.Inputs[0]), true)
	case plan.OpSort:
		return p.sort(a, b)
	case plan.OpLimit:
		if !sameConst(a.Limit, b.Limit) || !sameConst(a.Offset, b.Offset) {
			return false, nil
		}
		return p.passThrough(a.Inputs[0], b.Inputs[0])
	case plan.OpAggregate:
		return p.aggregate(a, b)
	case plan.OpWindow:
		return p.window(a, b)
	case plan.OpJoin:
		return p.outerJoin(a, b)
	case plan.OpValues:
		if len(a.Rows) != len(b.Rows) || len(a.Cols) != len(b.Cols) {
			return false, nil
		}
		for i := range a.Rows {
			for j := range a.Rows[i] {
				ka, oka := exprKeySub(a.Rows[i][j], p.colA, p.subA)
				kb, okb := exprKeySub(b.Rows[i][j], p.colB, p.subB)
				if !oka || !okb || ka != kb {
					return false, nil
				}
			}
		}
		return p.mapOutputs(a, b), nil
	}
	return false, nil
}

// passThrough proves the inputs of a sort or limit equivalent: by
// position first, else with each of b's columns mapped to an equal one of
// a's where there is one (a column only one side carries, such as an
// unnested subquery's grouping, then stays unmapped, and whatever reads
// it above fails). rel checks the positions of the node itself where its
// parent needs them.
func (p *prover) passThrough(a, b *plan.Node) (bool, error) {
	k := p.mark()
	ok, err := p.rel(a, b, true)
	if err != nil || ok {
		return ok, err
	}
	p.undo(k)
	return p.rel(a, b, false)
}

func sameConst(a, b *plan.Expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ka, oka := exprKey(a, func(c plan.ColumnID) (plan.ColumnID, bool) { return 0, false })
	kb, okb := exprKey(b, func(c plan.ColumnID) (plan.ColumnID, bool) { return 0, false })
	return oka && okb && ka == kb
}

// aggregate: the same grouping columns (as a set) over equivalent inputs,
// and each of b's aggregate calls equal to one of a's.
func (p *prover) aggregate(a, b *plan.Node) (bool, error) {
	if ok, err := p.rel(a.Inputs[0], b.Inputs[0], false); err != nil || !ok {
		return false, err
	}
	if len(a.GroupBy) != len(b.GroupBy) {
		return false, nil
	}
	// Two calls with one key are one column: later ones read as the
	// first (a fact of this node, whatever the search does next).
	firstA := map[string]plan.ColumnID{}
	asGiven := map[string]bool{} // a's keys before agg-group-constant
	// Calls read the constants the input fixes (output-pinned), on both
	// sides alike: MAX(d) under d = 1 is MAX(1).
	pinsA, pinsB := aggInputPins(a.Inputs[0], p.a.Meta), aggInputPins(b.Inputs[0], p.b.Meta)
	pinned := false
	for _, ai := range a.Aggs {
		e := pinnedCall(ai.Expr, pinsA)
		if e != ai.Expr {
			pinned = true
		}
		if ka, ok := p.aggKey(e, p.colA); ok {
			asGiven[ka] = true
		}
		if ka, ok := p.aggKey(groupConstCall(a, e, p.a.Meta), p.colA); ok {
			if f, dup := firstA[ka]; dup {
				p.aliasA[ai.ID] = f
			} else {
				firstA[ka] = ai.ID
			}
		}
	}
	var ga plan.ColSet
	for _, g := range a.GroupBy {
		c, _ := p.colA(g)
		ga.Add(c)
	}
	for _, g := range b.GroupBy {
		m, ok := p.m[g]
		if ok {
			m, _ = p.colA(m)
		}
		if !ok || !ga.Has(m) {
			p.note("grouping column #%d of b has no match (b input %v, mapping %v)", g, b.Inputs[0].Op, p.m)
			return false, nil
		}
	}
	// Each call of b pairs with one of a's. Either side may compute
	// calls the other lacks: such a column stays unpaired (b's unmapped),
	// which only matters if something above reads it, and then fails there.
	for _, bi := range b.Aggs {
		e := pinnedCall(bi.Expr, pinsB)
		kb, ok := p.aggKey(groupConstCall(b, e, p.b.Meta), p.colB)
		if !ok {
			continue
		}
		f, found := firstA[kb]
		if !found {
			p.note("aggregate %s of b has no match", kb)
			continue
		}
		if e != bi.Expr || pinned {
			p.rule(ruleOutputPinned)
		}
		if k0, ok := p.aggKey(e, p.colB); !ok || !asGiven[k0] {
			// Matched only as ANY_VALUE.
			p.ruleOn(ruleAggGroupConstant, "%s", bi.Expr.Name)
		}
		p.set(bi.ID, f)
	}
	p.rule(ruleAggSame)
	return true, nil
}

// outerJoin: left, right and full joins of equivalent inputs on
// equivalent conditions.
func (p *prover) outerJoin(a, b *plan.Node) (bool, error) {
	if a.Join != b.Join || len(a.Inputs) != 2 || len(b.Inputs) != 2 {
		return false, nil
	}
	ina, predsA := onInputs(a)
	inb, predsB := onInputs(b)
	for i := range ina {
		if ok, err := p.rel(ina[i], inb[i], false); err != nil || !ok {
			return false, err
		}
	}
	s := p.newSpace()
	ta, ka, err := terms(s, predsA, p.colA, p.subA)
	if err != nil {
		return false, nil
	}
	tb, kb, err := terms(s, predsB, p.colB, p.subB)
	if err != nil {
		return false, nil
	}
	c := &checker{ctx: p.ctx, s: s}
	ok, err := p.sameConjuncts(c, ta, ka, tb, kb, nil, nil)
	if err == errTooLarge {
		return false, nil
	}
	return ok, err
}

// emptyUncached is empty (emptymemo.go) computed afresh.
func (p *prover) emptyUncached(n *plan.Node, onA bool) bool {
	switch n.Op {
	case plan.OpScan:
		if checkFalse(n.Table) {
			p.rule(ruleEmptyCheckFalse)
			return true
		}
		return false
	case plan.OpLimit:
		if n.Limit != nil && n.Limit.Kind == plan.Const && !n.Limit.Null && n.Limit.Value == "0" {
			p.rule(ruleEmptyLimitZero)
			return true
		}
		if offsetPastRows(n) {
			p.rule(ruleEmptyOffsetPastRows)
			return true
		}
		return p.empty(n.Inputs[0], onA)
	case plan.OpSort, plan.OpDistinct, plan.OpWindow:
		return p.empty(n.Inputs[0], onA)
	case plan.OpAggregate:
		return len(n.GroupBy) > 0 && p.empty(n.Inputs[0], onA)
	case plan.OpValues:
		return len(n.Rows) == 0
	case plan.OpSetOp:
		switch n.Set {
		case plan.Union:
			for _, in := range n.Inputs {
				if !p.empty(in, onA) {
					return false
				}
			}
			return true
		case plan.Intersect:
			for _, in := range n.Inputs {
				if p.empty(in, onA) {
					return true
				}
			}
			return false
		}
		return p.empty(n.Inputs[0], onA)
	case plan.OpJoin:
		switch n.Join {
		case plan.LeftJoin, plan.AntiJoin:
			return p.empty(n.Inputs[0], onA)
		case plan.RightJoin:
			return p.empty(n.Inputs[1], onA)
		case plan.FullJoin:
			return p.empty(n.Inputs[0], onA) && p.empty(n.Inputs[1], onA)
		}
	}
	if !isBlockNode(n) {
		return false
	}
	blk := newBlock(nil)
	meta := p.a.Meta
	if !onA {
		meta = p.b.Meta
	}
	blk.simp = func(n *plan.Node) *plan.Node { return p.simplify(n, meta) }
	blk.flatten(n)
	for _, l := range blk.leaves {
		if p.empty(l, onA) {
			return true
		}
	}
	for _, s := range blk.semis {
		if !s.anti {
			for _, l := range s.blk.leaves {
				if p.empty(l, onA) {
					return true
				}
			}
		}
	}
	for _, e := range blk.preds {
		if e.IsFalse() || (e.Kind == plan.Const && e.Null) {
			p.rule(ruleEmptyContradiction)
			return true
		}
	}
	if len(blk.preds) > 0 && !blk.bad && p.unsat(blk, blk.preds, onA) {
		p.rule(ruleEmptyContradiction)
		return true
	}
	return false
}

// onInputs returns an outer join's inputs and condition, with the filters
// on top of a left join's right input moved into the condition: a right
// row the filter rejects matches no left row either way, and a left row
// left without a match is padded with NULLs either way.
func onInputs(n *plan.Node) ([]*plan.Node, []*plan.Expr) {
	in := []*plan.Node{n.Inputs[0], n.Inputs[1]}
	preds := append([]*plan.Expr(nil), n.Preds...)
	if n.Join == plan.LeftJoin {
		for in[1].Op == plan.OpFilter {
			preds = append(preds, in[1].Preds...)
			in[1] = in[1].Inputs[0]
		}
	}
	return in, preds
}

// aggKey is the key of an aggregate call, reading COUNT(x) or
// REGR_COUNT(y, x) of arguments that are never NULL as COUNT(*): they
// count the rows (aggdesc.go).
func (p *prover) aggKey(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool)) (string, bool) {
	if star, r := p.countStar(e, col); star != nil {
		constant := e.Name == "count" && e.Args[0].Kind == plan.Const
		if p.seen != nil && !constant {
			p.rule(r)
		}
		return exprKey(star, col)
	}
	return exprKey(e, col)
}

// setSimplify rewrites the input of a DISTINCT, where only the set of
// rows counts: a projection over a left join that reads none of the
// right input's columns is the projection over the left input (every
// left row appears at least once either way).
func (p *prover) setSimplify(n *plan.Node) *plan.Node {
	if n.Op != plan.OpProject || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return n
	}
	j := n.Inputs[0]
	right := allCols(j.Inputs[1])
	for _, it := range n.Proj {
		if it.Expr.Cols().Intersects(right) || right.Has(it.ID) {
			return n
		}
	}
	c := *n
	c.Inputs = []*plan.Node{j.Inputs[0]}
	p.rule(ruleDistinctLeftJoinUnread)
	return &c
}

// keyWithinPaired says whether n has a key within those of its output
// columns that paired accepts.
func (p *prover) keyWithinPaired(n *plan.Node, m *plan.Metadata, paired func(plan.ColumnID) bool) bool {
	var cols plan.ColSet
	for _, c := range n.OutCols() {
		if paired(c) {
			cols.Add(c)
		}
	}
	return plan.Derive(n, m).HasKeyWithin(cols)
}

func dupFree(n *plan.Node, m *plan.Metadata) bool {
	return plan.Derive(n, m).HasKeyWithin(n.OutColSet())
}

// dedupUnion rewrites, where only the set of rows counts, a UNION ALL
// whose branches are all proved equivalent to the first as that first
// branch (its set-operation columns renamed to the union's).
func (p *prover) dedupUnion(n *plan.Node, pl *plan.Plan) *plan.Node {
	if n.Op != plan.OpSetOp || n.Set != plan.Union || !n.All || len(n.Inputs) < 2 {
		return n
	}
	root := func(i int) *plan.Node {
		items := make([]plan.ProjItem, len(n.SetCols[i]))
		for k, c := range n.SetCols[i] {
			items[k] = plan.ProjItem{ID: c, Expr: plan.NewCol(c, pl.Meta.Col(c).Type)}
		}
		return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n.Inputs[i]}, Proj: items}
	}
	first := root(0)
	for i := 1; i < len(n.Inputs); i++ {
		r, err := Equivalent(p.ctx, &plan.Plan{Root: first, Meta: pl.Meta}, &plan.Plan{Root: root(i), Meta: pl.Meta}, p.opts)
		if err != nil || !r.Proved {
			return n
		}
		for _, a := range r.Assumptions {
			p.assume(a)
		}
	}
	items := make([]plan.ProjItem, len(n.Cols))
	for k, c := range n.Cols {
		items[k] = plan.ProjItem{ID: c, Expr: plan.NewCol(n.SetCols[0][k], pl.Meta.Col(c).Type)}
	}
	p.rule(ruleDistinctUnionAllSame)
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n.Inputs[0]}, Proj: items}
}
