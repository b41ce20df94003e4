package prove

import "github.com/pgequiv/pgequiv/planner/plan"

// emptyKey names one question empty answers: is node n, of the
// reference (onA) or the candidate, empty on every database.
type emptyKey struct {
	n   *plan.Node
	onA bool
}

// empty reports whether n returns no row on any database. The prover
// asks it of the same nodes many times (every UNION ALL branch, every
// block leaf, again from each enclosing block's flattening), and each
// answer walks and simplifies the whole subtree: on a plan of TPC-DS
// size that repetition was a quarter of the proof. A "no" is remembered
// per node: it is the answer that asserts nothing (every caller acts
// only on "yes"), so reusing it can only lose a proof, never make one,
// and the prover rewrites plans into copies rather than in place, so a
// node's answer does not change during a proof. A "yes" is recomputed,
// so that it records its rules and assumptions each time it is used.
func (p *prover) empty(n *plan.Node, onA bool) bool {
	k := emptyKey{n, onA}
	if p.notEmpty[k] {
		return false
	}
	if p.emptyUncached(n, onA) {
		return true
	}
	if p.notEmpty == nil {
		p.notEmpty = map[emptyKey]bool{}
	}
	p.notEmpty[k] = true
	return false
}
