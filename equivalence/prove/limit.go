package prove

import (
	"math/big"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "simplify", limits: a LIMIT that keeps every row goes, and a
// LIMIT directly over another LIMIT merges with it. Both read the same
// stream of rows in the same order, so neither moves a limit past a sort
// or into a join or a branch.
//
//   - OFFSET 0 with no LIMIT (or LIMIT ALL, LIMIT NULL) keeps every row:
//     R OFFSET 0 ⇒ R.
//   - stacked limits: the outer one skips o2 rows of the inner one's
//     rows o1+1 .. o1+l1 and keeps l2, so
//     (R LIMIT l1 OFFSET o1) LIMIT l2 OFFSET o2
//     ⇒ R LIMIT min(l2, max(0, l1−o2)) OFFSET o1+o2
//     (a missing LIMIT is unbounded, a missing OFFSET is 0).
//     Where a sort that ties rows feeds the limits, the merged LIMIT +
//     OFFSET must be the inner limit's: PostgreSQL bounds the sort by the
//     limit right above it, and a sort bounded otherwise (or not at all)
//     returns the tied rows in another order (sortedlimit.go).

// limitBound reads a LIMIT or OFFSET expression: ok is false unless it
// is absent (nil), NULL (both mean no bound; an OFFSET NULL is 0) or a
// non-negative integer constant. A negative one is an error in
// PostgreSQL, so it is left alone.
func limitBound(e *plan.Expr) (v *big.Int, ok bool) {
	if e == nil {
		return nil, true
	}
	if e.Kind != plan.Const || e.Typ != catalog.Int {
		return nil, false
	}
	if e.Null {
		return nil, true
	}
	n, good := new(big.Int).SetString(strings.TrimSpace(e.Value), 10)
	if !good || n.Sign() < 0 || !n.IsInt64() {
		return nil, false
	}
	return n, true
}

// simplifyLimit applies the limit rules to Limit node n, or returns nil.
func simplifyLimit(n *plan.Node, m *plan.Metadata) (*plan.Node, *Rule) {
	lim, ok := limitBound(n.Limit)
	if !ok {
		return nil, nil
	}
	off, ok := limitBound(n.Offset)
	if !ok {
		return nil, nil
	}
	// R OFFSET 0 (or NULL) with no LIMIT never reaches here: the
	// normalizer's limit-constant rule drops it (it was this package's
	// limit-offset-zero).
	in := n.Inputs[0]
	if in.Op != plan.OpLimit || len(in.Inputs) != 1 {
		return nil, nil
	}
	lim1, ok := limitBound(in.Limit)
	if !ok {
		return nil, nil
	}
	off1, ok := limitBound(in.Offset)
	if !ok {
		return nil, nil
	}
	zero := new(big.Int)
	if off == nil {
		off = zero
	}
	if off1 == nil {
		off1 = zero
	}
	newOff := new(big.Int).Add(off1, off)
	if !newOff.IsInt64() {
		return nil, nil
	}
	newLim := lim
	if lim1 != nil {
		rest := new(big.Int).Sub(lim1, off)
		if rest.Sign() < 0 {
			rest = zero
		}
		if newLim == nil || rest.Cmp(newLim) < 0 {
			newLim = rest
		}
	}
	if !sortBoundKept(lim1, off1, newLim, newOff) && tiedSortFeeds(in.Inputs[0], m) {
		return nil, nil
	}
	c := *in
	c.Limit, c.Offset = nil, nil
	if newLim != nil {
		c.Limit = plan.NewConst(catalog.Int, newLim.String())
	}
	if newOff.Sign() > 0 {
		c.Offset = plan.NewConst(catalog.Int, newOff.String())
	}
	return &c, ruleLimitMerge
}
