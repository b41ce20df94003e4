package prove

import (
	"math/big"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "order", sort-over-sorted-limit: a sort whose input is already
// sorted on the same keys, through limits, filters and projections that
// pass the key columns on, is its input:
//
//	sort[K](L(sort[K, K'](R))) ⇒ L(sort[K, K'](R))
//
// (ORDER BY i OFFSET 10 in a derived table, then ORDER BY i LIMIT 10
// outside). Limits, filters and projections keep their input's order, so
// the outer sort receives rows in K's order already. Where K breaks no
// tie (a key of R among K's plain columns) the outer sort can only put
// them back as they are. Where K ties rows, a second sort could reorder
// the tied ones; PostgreSQL plans none (the derived table's sort order
// satisfies the outer ORDER BY), so the rule holds there and not in
// SQLite, whose plan may sort again.
//
// Which tied rows a LIMIT keeps depends on how the sort below it runs:
// PostgreSQL bounds a sort by the LIMIT + OFFSET of the limit right above
// it (a top-N heap sort) and returns tied rows in another order than the
// unbounded sort. limit-merge (limit.go) therefore merges two limits over
// a sort that may tie rows only when the merged limit leaves that bound
// as it was (sortBoundKept).

// sortOverSortedLimit drops sort n (or the sort right under limit n)
// when its input is sorted on its keys already, or returns nil.
func (p *prover) sortOverSortedLimit(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || len(n.Inputs) != 1 {
		return nil
	}
	switch n.Op {
	case plan.OpSort:
		if in := p.sortedAlreadyJoin(n, m); in != nil {
			return in
		}
	case plan.OpLimit:
		s := n.Inputs[0]
		if s.Op != plan.OpSort || len(s.Inputs) != 1 {
			return nil
		}
		if in := p.sortedAlreadyJoin(s, m); in != nil {
			c := *n
			c.Inputs = []*plan.Node{in}
			return &c
		}
	}
	return nil
}

// sortedAlreadyJoin is sortedAlready, also where the sort's input is a
// self-join that self-join-key-subset reads as the limited rows below
// it, and the sort ties no rows: the join may put out its rows in
// another order than X, which only a total sort makes irrelevant. It
// records the rules it applies.
func (p *prover) sortedAlreadyJoin(s *plan.Node, m *plan.Metadata) *plan.Node {
	if in := p.sortedAlready(s, m); in != nil {
		p.rule(ruleSortOverSortedLimit)
		return in
	}
	if s.Inputs[0].Op != plan.OpJoin {
		return nil
	}
	j, sub := p.selfJoinSubset(s.Inputs[0], m)
	if j == nil {
		return nil
	}
	if !totalSort(s.Keys, j, m) {
		return nil
	}
	c := *s
	c.Inputs = []*plan.Node{j}
	if in := p.sortedAlready(&c, m); in != nil {
		if p.a != nil && m == p.a.Meta {
			p.aliasSelfJoin(sub)
		}
		p.rule(ruleSelfJoinKeySubset)
		p.rule(ruleSortOverSortedLimit)
		return in
	}
	return nil
}

// sortedAlready returns sort s's input when a sort on s's keys or on
// more keys starting with them lies below it through at least one limit
// and only limits, filters and projections passing the key columns on.
func (p *prover) sortedAlready(s *plan.Node, m *plan.Metadata) *plan.Node {
	var cols plan.ColSet
	for _, k := range s.Keys {
		if k.Expr.Kind != plan.ColRef {
			return nil
		}
		cols.Add(k.Expr.Col)
	}
	if cols.Empty() {
		return nil
	}
	limits := 0
	n := s.Inputs[0]
walk:
	for len(n.Inputs) == 1 {
		switch n.Op {
		case plan.OpLimit:
			limits++
		case plan.OpFilter:
		case plan.OpProject:
			if !passesCols(n, cols) {
				return nil
			}
		case plan.OpSort:
			break walk
		default:
			return nil
		}
		n = n.Inputs[0]
	}
	if n.Op != plan.OpSort || len(n.Inputs) != 1 {
		return nil
	}
	if limits == 0 || len(n.Keys) < len(s.Keys) {
		return nil
	}
	for i, k := range s.Keys {
		in := n.Keys[i]
		if in.Expr.Kind != plan.ColRef || in.Expr.Col != k.Expr.Col || in.Desc != k.Desc || in.NullsFirst != k.NullsFirst {
			return nil
		}
	}
	if p.opts.SQLite && !totalSort(s.Keys, n.Inputs[0], m) {
		return nil // SQLite may sort the tied rows again
	}
	return s.Inputs[0]
}

// passesCols says whether projection n passes each column of cols on
// unchanged, under its own ID.
func passesCols(n *plan.Node, cols plan.ColSet) bool {
	for _, c := range cols.Ordered() {
		found := false
		for _, it := range n.Proj {
			if it.ID == c {
				found = it.Expr.Kind == plan.ColRef && it.Expr.Col == c
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// totalSort says whether sort keys break every tie among the rows of
// in: plain columns among them hold a key of in, or in has one row at
// most.
func totalSort(keys []plan.SortKey, in *plan.Node, m *plan.Metadata) bool {
	if m == nil {
		return false
	}
	var plain plan.ColSet
	for _, k := range keys {
		if k.Expr.Kind == plan.ColRef {
			plain.Add(k.Expr.Col)
		}
	}
	return plan.Derive(in, m).HasKeyWithin(plain) || atMostOneRow(in, m)
}

// tiedSortFeeds says whether n's rows may come, through nodes that keep
// the order of their input (and pass PostgreSQL's sort bound down), from
// a sort that ties rows. Joins and aggregates stop the search: a sort
// below them runs unbounded in either plan.
func tiedSortFeeds(n *plan.Node, m *plan.Metadata) bool {
	switch n.Op {
	case plan.OpSort:
		return len(n.Inputs) != 1 || !totalSort(n.Keys, n.Inputs[0], m)
	case plan.OpProject, plan.OpFilter, plan.OpLimit, plan.OpDistinct, plan.OpWindow, plan.OpSetOp:
		for _, in := range n.Inputs {
			if tiedSortFeeds(in, m) {
				return true
			}
		}
	}
	return false
}

// sortBoundKept says whether a limit of newLim (nil: none) and newOff
// bounds a sort as the limit of lim1 and off1 right above it did: the
// same LIMIT + OFFSET, or no LIMIT in both, or LIMIT 0 (no row, whatever
// the sort).
func sortBoundKept(lim1, off1, newLim, newOff *big.Int) bool {
	if newLim != nil && newLim.Sign() == 0 {
		return true
	}
	if lim1 == nil || newLim == nil {
		return lim1 == nil && newLim == nil
	}
	return new(big.Int).Add(lim1, off1).Cmp(new(big.Int).Add(newLim, newOff)) == 0
}
