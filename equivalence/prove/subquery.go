package prove

import (
	"fmt"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "subquery": an uncorrelated subquery in an expression is one
// value for the whole query (or one set, for IN and EXISTS), so two of
// them are the same value when their plans are proved equivalent; keys
// name each of the reference's subqueries, and a candidate's subquery by
// the reference subquery it is proved equal to. A correlated subquery
// (one reading columns from outside its plan) has no name.

func (p *prover) subA(e *plan.Expr) (string, bool) {
	if e.Sub == nil {
		return "", false
	}
	for i, x := range p.subsA {
		if x == e.Sub {
			return fmt.Sprintf("sub%d:%d:%s", e.SubKind, i, e.SubOp), true
		}
	}
	if e.Sub.ReadsOuter() {
		return "", false
	}
	if i := p.sameSubA(e.Sub, e); i >= 0 {
		return fmt.Sprintf("sub%d:%d:%s", e.SubKind, i, e.SubOp), true
	}
	p.subsA = append(p.subsA, e.Sub)
	return fmt.Sprintf("sub%d:%d:%s", e.SubKind, len(p.subsA)-1, e.SubOp), true
}

// subMatch is the outcome of matching one candidate subquery, kept so a
// subquery met again (each is keyed more than once) is not proved again:
// nested subqueries would cost exponential time.
type subMatch struct {
	key     string
	ok      bool
	assumed []Assumption
	tried   int // how many of the reference's subqueries it was tried against
}

func (p *prover) subB(e *plan.Expr) (string, bool) {
	if e.Sub == nil {
		return "", false
	}
	m, seen := p.subMemo[e.Sub]
	if seen && (m.ok || m.tried < 0 || m.tried == len(p.subsA)) {
		// tried < 0: a correlated subquery, never matched.
		if m.ok {
			for _, a := range m.assumed {
				p.assume(a)
			}
			p.rule(ruleSubqueryPlans)
		}
		return m.key, m.ok
	}
	if !seen && e.Sub.ReadsOuter() {
		p.subMemo[e.Sub] = subMatch{tried: -1}
		p.note("subquery of b: correlated")
		return "", false
	}
	start := 0
	if seen {
		start = m.tried
	}
	for i := start; i < len(p.subsA); i++ {
		x := p.subsA[i]
		r, err := Equivalent(p.ctx, &plan.Plan{Root: p.setUse(x, e), Meta: p.a.Meta}, &plan.Plan{Root: p.setUse(e.Sub, e), Meta: p.b.Meta}, p.opts)
		if err != nil {
			return "", false
		}
		if r.Proved {
			for _, a := range r.Assumptions {
				p.assume(a)
			}
			p.rule(ruleSubqueryPlans)
			key := fmt.Sprintf("sub%d:%d:%s", e.SubKind, i, e.SubOp)
			p.subMemo[e.Sub] = subMatch{key: key, ok: true, assumed: r.Assumptions, tried: i + 1}
			return key, true
		}
	}
	p.subMemo[e.Sub] = subMatch{tried: len(p.subsA)}
	p.note("subquery of b: no equivalent subquery among %d of a", len(p.subsA))
	return "", false
}
