package build

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// lateralPush lowers an inner LATERAL join x ⋈ t(x) that lateralSPJ
// refuses, by pushing x down t to where t reads it, operator by operator:
//
//	x ⋈ π[e](t)        ⇒ π[x.., e](x ⋈ t)       (e may read x)
//	x ⋈ σ[q](t)        ⇒ σ[q](x ⋈ t)
//	x ⋈ sort(t)        ⇒ x ⋈ t                  (no LIMIT above: order means nothing)
//	x ⋈ (t ⋈ u), x ⋈ (t ⟕ u)  ⇒ (x ⋈ t) ⋈ u, (x ⋈ t) ⟕ u   (u not reading x;
//	                      an inner join's inputs commute to put the one reading x first)
//	x ⋈ γ[g; a](t)     ⇒ γ[x.., g; a](x ⋈ t)    (g not empty, x's rows distinct)
//	x ⋈ δ(t)           ⇒ δ(x ⋈ t)               (x's rows distinct)
//	x ⋈ (t ∘ u)        ⇒ x ⋈[x.k = k'] ((x' ⋈ t) ∘ (x'' ⋈ u)) projected to k', t's columns
//	                      (∘ a UNION, INTERSECT or EXCEPT, ALL or not; k a key of x
//	                      of NOT NULL columns; x', x'' fresh copies of x)
//	x ⋈ (t ⟕[q] π[f](u)) ⇒ π[.., CASE WHEN m IS NOT NULL THEN f END]((x ⋈ t) ⟕[q[c := f]] u)
//	                      (u not reading x; m a column of u never NULL in its rows)
//	x ⋈ VALUES(rows(x)) ⇒ lateralSPJ's row numbers
//
// Each is an identity of bags for every row r of x taken alone: the row
// joins the rows t(r) yields. Grouping by x's columns (or applying a set
// operation or DISTINCT to rows that carry them) groups, matches and
// merges rows of one r only, because no two rows of x are alike — hence
// the key. A grouped aggregate over no rows yields no group, as x ⋈ ∅
// yields nothing; a scalar aggregate yields one row over none, so it is
// not pushed here (lateralOneRow takes it). A set operation's rows carry
// the key k' of the r they came from, and joining back on x.k = k' pairs
// each with its r alone. Windows and LIMITs: lateral_window.go.
type lateralPusher struct {
	b     *builder
	x     *plan.Node
	xcols plan.ColSet
	// distinct: no two rows of x are alike (a key within its columns).
	distinct bool
	// key: a key of x of NOT NULL columns (nil when there is none); ok
	// tells an empty key (x has at most one row) from none.
	key   []plan.ColumnID
	keyOK bool
}

// newLateralPusher returns the pusher of x, with what x's keys allow.
func (b *builder) newLateralPusher(x *plan.Node) *lateralPusher {
	cols := x.OutColSet()
	props := plan.Derive(x, b.meta)
	p := &lateralPusher{b: b, x: x, xcols: cols, distinct: props.HasKeyWithin(cols)}
	for _, k := range props.Keys {
		if k.SubsetOf(cols) && k.SubsetOf(props.NotNull) {
			p.key, p.keyOK = k.Ordered(), true
			break
		}
	}
	return p
}

// lateralPushJoin lowers the inner LATERAL join join, whose right input
// (right, a pristine copy) refers to its left input; ok is false when
// some operator of right cannot take the push.
func (b *builder) lateralPushJoin(join, right *plan.Node, rightCols []plan.ColumnID) (*plan.Node, bool) {
	left := join.Inputs[0]
	leftCols := left.OutColSet()
	p := b.newLateralPusher(left)
	n, ok := p.push(right)
	if !ok {
		return nil, false
	}
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n}}
	for _, c := range left.OutCols() {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
	}
	for _, c := range rightCols {
		if !leftCols.Has(c) {
			out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
		}
	}
	var cond []*plan.Expr
	for _, e := range join.Preds {
		if !e.IsTrue() {
			cond = append(cond, e)
		}
	}
	if len(cond) == 0 {
		return out, true
	}
	return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{out}, Preds: cond}, true
}

// lateralPushLeft lowers the LEFT LATERAL join join (x ⟕[p] t(x)) when
// x has a key k of NOT NULL columns and x ⋈ t(x) takes the push:
//
//	x ⟕[p] t(x) ⇒ x ⟕[x.k = k' ∧ p'] (x' ⋈ t(x'))
//
// x' a fresh copy of x, k' its key, p' p reading t's columns in the copy.
// For a row r of x the right input's rows with k' = r.k are the pairs
// (r, s) for s in t(r), once each since no other row of x has r's key:
// r keeps those p holds for, or one padded row, as the LATERAL join
// does. It returns the columns that replace t's.
func (b *builder) lateralPushLeft(join, right *plan.Node, rightCols []plan.ColumnID) (*plan.Node, []plan.ColumnID, bool) {
	left := join.Inputs[0]
	leftCols := left.OutColSet()
	p := b.newLateralPusher(left)
	if !p.keyOK {
		return nil, nil, false
	}
	pushed, ok := p.push(right)
	if !ok {
		return nil, nil, false
	}
	if err := b.spend(countNodes(pushed)); err != nil {
		return nil, nil, false
	}
	copied, m := b.cloneFresh(pushed)
	moved := map[plan.ColumnID]*plan.Expr{}
	out := make([]plan.ColumnID, len(rightCols))
	for i, c := range rightCols {
		d, ok := m[c]
		if !ok || leftCols.Has(c) {
			// A lateral column that is x's own column passes through.
			return nil, nil, false
		}
		out[i] = d
		moved[c] = plan.NewCol(d, b.typeOf(c))
	}
	var on []*plan.Expr
	for _, k := range p.key {
		t := b.typeOf(k)
		on = append(on, plan.NewOp(plan.OpEq, catalog.Bool, plan.NewCol(k, t), plan.NewCol(m[k], t)))
	}
	for _, e := range join.Preds {
		if !e.IsTrue() {
			on = append(on, replaceInExpr(e, moved))
		}
	}
	j := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{left, copied}, Preds: on}
	top := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{j}}
	for _, c := range left.OutCols() {
		top.Proj = append(top.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
	}
	for _, c := range out {
		top.Proj = append(top.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
	}
	return top, out, true
}

// push returns x ⋈ t: a node whose outputs hold x's columns and t's.
func (p *lateralPusher) push(t *plan.Node) (*plan.Node, bool) {
	if !refersTo(t, p.xcols) {
		return &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{p.x, t}}, true
	}
	for _, e := range t.Preds {
		if e.HasAgg() {
			return nil, false
		}
	}
	for _, it := range t.Proj {
		if it.Expr.HasAgg() {
			return nil, false
		}
	}
	switch t.Op {
	case plan.OpProject:
		in, ok := p.push(t.Inputs[0])
		if !ok {
			return nil, false
		}
		out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{in}}
		for _, c := range p.x.OutCols() {
			out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, p.b.typeOf(c))})
		}
		for _, it := range t.Proj {
			// An item passing x's column through is that column.
			if !p.xcols.Has(it.ID) {
				out.Proj = append(out.Proj, it)
			}
		}
		return out, true
	case plan.OpFilter:
		in, ok := p.push(t.Inputs[0])
		if !ok {
			return nil, false
		}
		return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{in}, Preds: t.Preds}, true
	case plan.OpSort:
		return p.push(t.Inputs[0])
	case plan.OpJoin:
		return p.pushJoin(t)
	case plan.OpAggregate:
		if len(t.GroupBy) == 0 || !p.distinct {
			return nil, false
		}
		in, ok := p.push(t.Inputs[0])
		if !ok {
			return nil, false
		}
		out := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{in}, Aggs: t.Aggs}
		out.GroupBy = append(out.GroupBy, p.x.OutCols()...)
		for _, g := range t.GroupBy {
			if !p.xcols.Has(g) {
				out.GroupBy = append(out.GroupBy, g)
			}
		}
		return out, true
	case plan.OpDistinct:
		if !p.distinct {
			return nil, false
		}
		in, ok := p.push(t.Inputs[0])
		if !ok {
			return nil, false
		}
		return &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{in}}, true
	case plan.OpSetOp:
		return p.pushSetOp(t)
	case plan.OpWindow:
		return p.pushWindow(t)
	case plan.OpLimit:
		return p.pushLimit(t)
	case plan.OpValues:
		idx, subst := p.b.valuesByIndex(t)
		j := &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{p.x, idx}}
		out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{j}}
		for _, c := range p.x.OutCols() {
			out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, p.b.typeOf(c))})
		}
		for _, c := range t.Cols {
			out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: subst[c]})
		}
		return out, true
	}
	return nil, false
}

// pushJoin pushes x into the one input of an inner or left join that
// reads it: the first (preserved) input of a left join, any one input of
// an inner join, which then moves first.
func (p *lateralPusher) pushJoin(t *plan.Node) (*plan.Node, bool) {
	if t.Join != plan.InnerJoin && t.Join != plan.LeftJoin || len(t.Inputs) < 2 {
		return nil, false
	}
	if t.Join == plan.LeftJoin && len(t.Inputs) == 2 && refersTo(t.Inputs[1], p.xcols) {
		return p.pushLeftNullable(t)
	}
	reading := -1
	for i, in := range t.Inputs {
		if !refersTo(in, p.xcols) {
			continue
		}
		if reading >= 0 || i > 0 && t.Join != plan.InnerJoin {
			return nil, false
		}
		reading = i
	}
	inputs := append([]*plan.Node(nil), t.Inputs...)
	if reading < 0 {
		// Only the conditions read x.
		reading = 0
	}
	first, ok := p.push(inputs[reading])
	if !ok {
		return nil, false
	}
	rest := append(append([]*plan.Node(nil), inputs[:reading]...), inputs[reading+1:]...)
	out := *t
	out.Inputs = append([]*plan.Node{first}, rest...)
	return &out, true
}

// pushSetOp pushes x into each input of a set operation, on copies of x
// whose key the operation's rows carry, and joins x back on that key.
func (p *lateralPusher) pushSetOp(t *plan.Node) (*plan.Node, bool) {
	if !p.keyOK || len(t.Inputs) != len(t.SetCols) {
		return nil, false
	}
	if err := p.b.spend(countNodes(t) * len(t.Inputs)); err != nil {
		return nil, false
	}
	out := &plan.Node{Op: plan.OpSetOp, Set: t.Set, All: t.All}
	keyOut := make([]plan.ColumnID, len(p.key))
	for i, k := range p.key {
		keyOut[i] = p.b.newColumn(p.b.meta.Col(k).Name, p.b.typeOf(k))
	}
	out.Cols = append(append([]plan.ColumnID(nil), keyOut...), t.Cols...)
	for i, in := range t.Inputs {
		pushed, ok := p.push(in)
		if !ok {
			return nil, false
		}
		// Every input holds its own copy of x: one plan node must not sit
		// in two places, nor one column come from two.
		c, m := p.b.cloneFresh(pushed)
		var feed []plan.ColumnID
		for _, k := range append(append([]plan.ColumnID(nil), p.key...), t.SetCols[i]...) {
			if d, ok := m[k]; ok {
				k = d
			}
			feed = append(feed, k)
		}
		out.Inputs = append(out.Inputs, c)
		out.SetCols = append(out.SetCols, feed)
	}
	var on []*plan.Expr
	for i, k := range p.key {
		typ := p.b.typeOf(k)
		on = append(on, plan.NewOp(plan.OpEq, catalog.Bool, plan.NewCol(k, typ), plan.NewCol(keyOut[i], typ)))
	}
	return &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{p.x, out}, Preds: on}, true
}

// pushLeftNullable pushes x into a left join whose nullable input is a
// projection π[f AS c](u) computing columns from x and u, u not reading
// x: x joins the preserved input, the projection's items that read x move
// above the join, and the join condition reads f for c. A matched row's c
// is f of its partner, as below; a padded row's must be NULL, and f is
// not evaluated there (it may raise, or not be NULL, on NULLs), so it
// stands under CASE WHEN m IS NOT NULL, m a column of u never NULL in
// u's rows, or a TRUE marker added to u — unless f is NULL there without
// raising (quietNull).
func (p *lateralPusher) pushLeftNullable(t *plan.Node) (*plan.Node, bool) {
	proj := t.Inputs[1]
	if proj.Op != plan.OpProject || refersTo(proj.Inputs[0], p.xcols) {
		return nil, false
	}
	first, ok := p.push(t.Inputs[0])
	if !ok {
		return nil, false
	}
	u := proj.Inputs[0]
	ucols := u.OutColSet()
	below := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{u}}
	defs := map[plan.ColumnID]*plan.Expr{}
	have := plan.ColSet{}
	for _, it := range proj.Proj {
		if refersTo(&plan.Node{Op: plan.OpProject, Proj: []plan.ProjItem{it}}, p.xcols) {
			// A subquery's plan must not sit both in the condition and
			// in the projection.
			if hasSubquery(it.Expr) || ucols.Has(it.ID) {
				return nil, false
			}
			defs[it.ID] = it.Expr
			continue
		}
		below.Proj = append(below.Proj, it)
		have.Add(it.ID)
	}
	// The moved items read u's columns above the join.
	for _, c := range u.OutCols() {
		if !have.Has(c) {
			below.Proj = append(below.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, p.b.typeOf(c))})
			have.Add(c)
		}
	}
	var marker *plan.Expr
	nn := plan.Derive(u, p.b.meta).NotNull
	for _, c := range u.OutCols() {
		if nn.Has(c) {
			marker = plan.NewOp(plan.OpIsNotNull, catalog.Bool, plan.NewCol(c, p.b.typeOf(c)))
			break
		}
	}
	if marker == nil {
		m := p.b.newColumn("matched", catalog.Bool)
		below.Proj = append(below.Proj, plan.ProjItem{ID: m, Expr: plan.NewConst(catalog.Bool, "true")})
		marker = plan.NewCol(m, catalog.Bool)
	}
	on := make([]*plan.Expr, len(t.Preds))
	for i, e := range t.Preds {
		on[i] = replaceInExpr(e.Copy(), defs)
	}
	j := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{first, below}, Preds: on}
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{j}}
	for _, c := range first.OutCols() {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, p.b.typeOf(c))})
	}
	for _, it := range proj.Proj {
		f := defs[it.ID]
		if f == nil {
			out.Proj = append(out.Proj, plan.ProjItem{ID: it.ID, Expr: plan.NewCol(it.ID, p.b.typeOf(it.ID))})
			continue
		}
		if !quietNull(f, ucols) {
			f = &plan.Expr{Kind: plan.Case, Typ: f.Typ, Pos: -1, Args: []*plan.Expr{marker.Copy(), f}}
		}
		out.Proj = append(out.Proj, plan.ProjItem{ID: it.ID, Expr: f})
	}
	return out, true
}

func hasSubquery(e *plan.Expr) bool {
	found := false
	plan.Walk(e, func(x *plan.Expr) { found = found || x.Kind == plan.Subquery })
	return found
}

// quietNull says whether e is NULL, and raises nothing, when every column
// of cols is NULL: a column of cols, or a strict operator (or cast) over
// one such operand whose other operands cannot raise either. PostgreSQL
// evaluates a strict operator's operands and skips the call on a NULL.
func quietNull(e *plan.Expr, cols plan.ColSet) bool {
	switch e.Kind {
	case plan.ColRef:
		return cols.Has(e.Col)
	case plan.Cast:
		return len(e.Args) == 1 && quietNull(e.Args[0], cols)
	case plan.Op:
		if !plan.StrictCols(e).Intersects(cols) {
			return false
		}
		for _, a := range e.Args {
			if !quietNull(a, cols) && !plan.CannotRaise(a) {
				return false
			}
		}
		return true
	}
	return false
}
