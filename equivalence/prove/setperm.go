package prove

import "github.com/pgequiv/pgequiv/planner/plan"

// Fragment "union columns permuted" (issue 35, item 3): where the
// consumer reads a UNION [ALL] by column rather than by position (an
// aggregate's input, a join leaf), two unions whose branches list the
// same columns in another order are the same relation with its columns
// renamed: MAX(a) over (SELECT x a, y b ... UNION ALL ...) equals MAX(a)
// over (SELECT y b, x a ... UNION ALL ...). One permutation must serve
// every branch pair, read off a first pair of branches the prover shows
// equivalent. UNION ALL only (UNION compares its branches as sets, by
// position: left alone).

// columnPermutation returns the permutation perm (b's set-operation
// column j is a's column perm[j]) that a first branch pairing shows, or
// nil. It leaves the mapping as it found it.
func (p *prover) columnPermutation(a, b *plan.Node, ba, bb []branch) []int {
	if a.Op != plan.OpSetOp || b.Op != plan.OpSetOp || a.Set != plan.Union || b.Set != plan.Union || !a.All || !b.All {
		return nil
	}
	if len(a.Cols) != len(b.Cols) || len(a.Cols) < 2 || len(bb) == 0 {
		return nil
	}
	for i := range ba {
		if len(ba[i].cols) != len(bb[0].cols) {
			continue
		}
		k := p.mark()
		ok, err := p.rel(ba[i].n, bb[0].n, false)
		var perm []int
		if err == nil && ok {
			perm = permutationOf(ba[i].cols, bb[0].cols, p.m)
		}
		p.undo(k)
		if perm != nil {
			return perm
		}
	}
	return nil
}

// permutationOf reads the permutation of the mapping m (b's columns to
// a's) from b's columns bc onto a's columns ac, or nil when m is not a
// bijection between them or is the identity.
func permutationOf(ac, bc []plan.ColumnID, m map[plan.ColumnID]plan.ColumnID) []int {
	perm := make([]int, len(bc))
	taken := make([]bool, len(ac))
	identity := true
	for j, c := range bc {
		to, ok := m[c]
		if !ok {
			return nil
		}
		found := -1
		for i, x := range ac {
			if x == to && !taken[i] {
				found = i
				break
			}
		}
		if found < 0 {
			return nil
		}
		taken[found] = true
		perm[j] = found
		identity = identity && found == j
	}
	if identity {
		return nil
	}
	return perm
}

// permuteBranches returns bs with each branch's set-operation columns
// reordered to a's positions: column j moves to perm[j].
func permuteBranches(bs []branch, perm []int) []branch {
	out := make([]branch, len(bs))
	for x, b := range bs {
		cols := make([]plan.ColumnID, len(b.cols))
		for j, c := range b.cols {
			cols[perm[j]] = c
		}
		out[x] = branch{n: b.n, cols: cols}
	}
	return out
}
