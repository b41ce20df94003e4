package prove

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// setOp compares set operations; an empty UNION ALL branch drops out.
func (p *prover) setOp(a, b *plan.Node, pos bool) (bool, error) {
	ba, ka := p.branches(a, true)
	bb, kb := p.branches(b, false)
	if ka == "one" && kb == "union all" && len(ba) == 1 && isBlockNode(ba[0].n) {
		if len(b.OutCols()) != len(a.OutCols()) {
			return false, nil
		}
		ok, err := p.partition(ba[0].n, bb)
		if err != nil || !ok {
			return false, err
		}
		for i, c := range b.OutCols() {
			p.set(c, a.OutCols()[i])
		}
		return true, nil
	}
	if ka != kb {
		return false, nil
	}
	if len(ba) != len(bb) {
		return false, nil
	}
	k := p.mark()
	if len(ba) == 1 {
		// One side is (after dropping empty branches) a single query.
		ok, err := p.branchRel(ba[0], bb[0])
		if err != nil || !ok {
			p.undo(k)
			return false, err
		}
		if len(b.OutCols()) != len(a.OutCols()) {
			p.undo(k)
			return false, nil
		}
		for i, c := range b.OutCols() {
			p.set(c, a.OutCols()[i])
		}
		if a.Op == plan.OpSetOp || b.Op == plan.OpSetOp {
			p.rule(ruleUnionAllDropEmpty)
		}
		return true, nil
	}
	if a.Op != plan.OpSetOp || b.Op != plan.OpSetOp {
		return false, nil
	}
	if !a.All && !b.All {
		ba, bb = setBranches(ba, p.a), setBranches(bb, p.b)
		p.rule(ruleSetOpAsSets)
	}
	ordered := a.Set == plan.Except
	used := make([]bool, len(ba))
	pairs := make([]int, len(bb)) // b's branch j is a's branch pairs[j]
	var match func(j int) (bool, error)
	match = func(j int) (bool, error) {
		if j == len(bb) {
			return true, nil
		}
		for i := range ba {
			if used[i] || (ordered && i != j) {
				continue
			}
			m := p.mark()
			ok, err := p.branchRel(ba[i], bb[j])
			if err != nil {
				return false, err
			}
			if ok {
				used[i] = true
				pairs[j] = i
				if ok, err := match(j + 1); err != nil || ok {
					return ok, err
				}
				used[i] = false
			}
			p.undo(m)
		}
		return false, nil
	}
	ok, err := match(0)
	var perm []int // b's set-operation column j is a's perm[j] (nil: j)
	if err == nil && !ok && !pos {
		p.undo(k)
		if perm = p.columnPermutation(a, b, ba, bb); perm != nil {
			bb = permuteBranches(bb, perm)
			used = make([]bool, len(ba))
			ok, err = match(0)
		}
	}
	if err != nil || !ok {
		p.undo(k)
		return false, err
	}
	if perm != nil {
		p.rule(ruleUnionColumnsPermuted)
	}
	if !a.All && permuted(pairs) && (p.nondetSetCols(p.a.Meta, a, ba) || p.nondetSetCols(p.b.Meta, b, bb)) {
		// Under a nondeterministic collation (NOCASE, RTRIM, an ICU one)
		// equal values may be spelled apart, and a set operation keeps
		// the spelling of the branch it meets first (SQLite's INTERSECT
		// returns the left branch's rows): swapped branches return other
		// spellings.
		p.undo(k)
		return false, nil
	}
	if a.Set == plan.Union && a.All && permuted(pairs) {
		p.rule(ruleUnionAllPermuted)
	}
	for i, c := range b.Cols {
		if perm != nil {
			p.set(c, a.Cols[perm[i]])
			continue
		}
		p.set(c, a.Cols[i])
	}
	return true, nil
}

type branch struct {
	n    *plan.Node
	cols []plan.ColumnID // the columns of n that feed the set operation
}

// branches lists the inputs of a set operation, dropping empty UNION ALL
// branches; a non-set operation is its own single branch. kind names the
// operation so both sides are checked alike.
func (p *prover) branches(n *plan.Node, onA bool) ([]branch, string) {
	if n.Op != plan.OpSetOp {
		return []branch{{n: n, cols: n.OutCols()}}, "one"
	}
	var out []branch
	for i, in := range n.Inputs {
		if n.Set == plan.Union && n.All && p.empty(in, onA) {
			continue
		}
		if n.Set == plan.Union && n.All && in.Op == plan.OpSetOp && in.Set == plan.Union && in.All && slices.Equal(in.Cols, n.SetCols[i]) {
			// UNION ALL is associative: a nested one's branches are ours.
			inner, _ := p.branches(in, onA)
			out = append(out, inner...)
			continue
		}
		out = append(out, branch{n: in, cols: n.SetCols[i]})
	}
	if n.Set == plan.Union && n.All && len(out) <= 1 {
		if len(out) == 0 {
			return []branch{{n: n, cols: n.Cols}}, "one"
		}
		return out, "one"
	}
	kind := n.Set.String()
	if n.All {
		kind += " all"
	}
	return out, kind
}

// nondetSetCols says whether a column of set operation n, or one its
// branches feed it, compares under a nondeterministic collation.
func (p *prover) nondetSetCols(m *plan.Metadata, n *plan.Node, bs []branch) bool {
	for _, c := range n.Cols {
		if _, nd := m.Collation(c); nd {
			return true
		}
	}
	for _, br := range bs {
		for _, c := range br.cols {
			if _, nd := m.Collation(c); nd {
				return true
			}
		}
	}
	return false
}

// permuted says whether pairs, a's branch for each of b's, is not the
// identity.
func permuted(pairs []int) bool {
	for j, i := range pairs {
		if i != j {
			return true
		}
	}
	return false
}

// branchRel proves that branches a and b return the same bag of rows
// with their set-operation columns paired by position. Compared as they
// stand, equal columns of a branch may pair crosswise (the two NULLs of
// SELECT x, NULL, NULL); the branches are then compared again as their
// set-operation columns in order, by position.
func (p *prover) branchRel(a, b branch) (bool, error) {
	m := p.mark()
	ok, err := p.rel(a.n, b.n, false)
	if err != nil || (ok && p.mapBranch(a, b)) {
		return ok, err
	}
	p.undo(m)
	if !ok || len(a.cols) != len(b.cols) {
		return false, nil
	}
	ok, err = p.rel(branchRoot(a, p.a.Meta), branchRoot(b, p.b.Meta), true)
	if err != nil || (ok && p.mapBranch(a, b)) {
		return ok, err
	}
	p.undo(m)
	return false, nil
}

// branchRoot is branch b read as its set-operation columns, in order.
func branchRoot(b branch, m *plan.Metadata) *plan.Node {
	items := make([]plan.ProjItem, len(b.cols))
	for k, c := range b.cols {
		items[k] = plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)}
	}
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{b.n}, Proj: items}
}

// mapBranch checks that branch b's set-operation columns map to a's.
func (p *prover) mapBranch(a, b branch) bool {
	if len(a.cols) != len(b.cols) {
		return false
	}
	for i := range a.cols {
		if m, ok := p.m[b.cols[i]]; !ok || m != a.cols[i] {
			return false
		}
	}
	return true
}
