package prove

import (
	"math/big"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "setop", sort-limit-union-all: the first rows of a sorted
// UNION ALL are among the first rows of its sorted branches, so a
// branch may be cut to them first (Calcite's SortUnionTransposeRule):
//
//	sort[K](sort[K](A) LIMIT m ∪all B) LIMIT n OFFSET o ⇒ sort[K](A ∪all B) LIMIT n OFFSET o
//
// for m ≥ n + o (also through a projection above the limit passing all
// its columns on, in order: the candidate's union in a derived table).
// Of the rows that come before a row of A in the union's
// order, at least as many come before it in A's, so each of the union's
// first n + o rows that is A's is among A's first n + o. That holds row
// for row only where K orders every row it does not tie with an equal
// one: K's plain columns are all of the union's columns, each compared
// as identity (integers, dates, text under a deterministic collation;
// not floats, where -0 and 0 tie, nor numerics, where 1.0 and 1.00 do).
// Then tied rows are equal rows, and whichever of them a sort puts
// first, bounded or not, the rows kept are the same. Without that (a
// branch LIMIT with no ORDER BY, or a sort that ties different rows) the
// rows kept may differ, as PostgreSQL shows (crdb-xform-872).

// sortLimitUnion undoes the branch limits under limit n over a sort
// over a UNION ALL, or returns nil.
func (p *prover) sortLimitUnion(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m != nil && n.Op == plan.OpProject && len(n.Inputs) == 1 && n.Inputs[0].Op == plan.OpLimit && passesAllInOrder(n) {
		// The candidate's union in a derived table: SELECT its columns
		// FROM (…) ORDER BY … LIMIT n.
		return p.sortLimitUnion(n.Inputs[0], m)
	}
	if m == nil || n.Op != plan.OpLimit || len(n.Inputs) != 1 {
		return nil
	}
	lim, ok := limitBound(n.Limit)
	if !ok || lim == nil {
		return nil
	}
	off, ok := limitBound(n.Offset)
	if !ok {
		return nil
	}
	need := new(big.Int).Set(lim)
	if off != nil {
		need.Add(need, off)
	}
	s := n.Inputs[0]
	if s.Op != plan.OpSort || len(s.Inputs) != 1 {
		return nil
	}
	u := s.Inputs[0]
	if u.Op != plan.OpSetOp || u.Set != plan.Union || !u.All || len(u.SetCols) != len(u.Inputs) {
		return nil
	}
	pos, ok := sortCoversRows(s.Keys, u.Cols, m)
	if !ok {
		return nil
	}
	c := *u
	c.Inputs = append([]*plan.Node(nil), u.Inputs...)
	cut := false
	for i, in := range u.Inputs {
		if b := branchCut(in, s.Keys, pos, u.SetCols[i], need); b != nil {
			c.Inputs[i], cut = b, true
		}
	}
	if !cut {
		return nil
	}
	srt := *s
	srt.Inputs = []*plan.Node{&c}
	l := *n
	l.Inputs = []*plan.Node{&srt}
	p.rule(ruleSortLimitUnionAll)
	return &l
}

// sortCoversRows says whether keys, plain columns, name every column of
// cols, each compared as identity, and returns for each key the
// position of its column in cols.
func sortCoversRows(keys []plan.SortKey, cols []plan.ColumnID, m *plan.Metadata) ([]int, bool) {
	at := map[plan.ColumnID]int{}
	for i, c := range cols {
		at[c] = i
	}
	pos := make([]int, len(keys))
	seen := map[plan.ColumnID]bool{}
	for i, k := range keys {
		if k.Expr.Kind != plan.ColRef {
			return nil, false
		}
		j, ok := at[k.Expr.Col]
		if !ok {
			return nil, false
		}
		pos[i] = j
		seen[k.Expr.Col] = true
	}
	for _, c := range cols {
		d := m.Domain(c)
		if !seen[c] || !catalog.IdentityEqual(d, d) {
			return nil, false
		}
	}
	return pos, true
}

// branchCut returns the branch in without its LIMIT m (m ≥ need, no
// OFFSET) and the sort below it, whose keys start with keys, read through the
// branch's columns feed (the union's column at pos[i] is feed[pos[i]]),
// or nil. A projection passing those columns on may sit above the limit.
func branchCut(in *plan.Node, keys []plan.SortKey, pos []int, feed []plan.ColumnID, need *big.Int) *plan.Node {
	var proj *plan.Node
	l := in
	if l.Op == plan.OpProject && len(l.Inputs) == 1 {
		proj, l = l, l.Inputs[0]
	}
	if l.Op != plan.OpLimit || len(l.Inputs) != 1 || l.Offset != nil {
		return nil
	}
	m, ok := limitBound(l.Limit)
	if !ok || m == nil || m.Cmp(need) < 0 {
		return nil
	}
	s := l.Inputs[0]
	if s.Op != plan.OpSort || len(s.Keys) < len(keys) {
		return nil
	}
	var cols plan.ColSet
	for i, k := range keys {
		want := feed[pos[i]]
		bk := s.Keys[i]
		if bk.Expr.Kind != plan.ColRef || bk.Expr.Col != want || bk.Desc != k.Desc || bk.NullsFirst != k.NullsFirst {
			return nil
		}
		cols.Add(want)
	}
	// The branch's own sort goes too: the union's sort orders its rows.
	if proj == nil {
		return s.Inputs[0]
	}
	if !passesCols(proj, cols) {
		return nil
	}
	c := *proj
	c.Inputs = []*plan.Node{s.Inputs[0]}
	return &c
}

// passesAllInOrder says whether projection n puts out its input's
// columns, each unchanged, in their order: it is its input.
func passesAllInOrder(n *plan.Node) bool {
	in := n.Inputs[0].OutCols()
	if len(n.Proj) != len(in) {
		return false
	}
	for i, it := range n.Proj {
		if it.ID != in[i] || it.Expr.Kind != plan.ColRef || it.Expr.Col != in[i] {
			return false
		}
	}
	return true
}
