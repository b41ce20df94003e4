package equivalence

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/equivalence/rewrite"
	"github.com/pgequiv/pgequiv/equivalence/score"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The plan and rewrite stages: each query planned, normalized and
// rewritten by the ESM+ rules, or taken from the memo.

// prepareReference plans and rewrites the reference. done is set with a
// verdict in j.v when the pair cannot be judged (a query too large).
func (j *judgement) prepareReference() (done bool, err error) {
	q, keep := j.memo.query(j.s, roleReference, j.reference, j.opts)
	if q == nil {
		var choices builtChoices
		p, err := planner.Plan(j.ctx, j.s, j.reference, planner.Options{Built: choices.read})
		if err != nil {
			if j.ctx.Err() != nil {
				return true, stopped(j.ctx.Err())
			}
			if isTooLarge(err) {
				j.v = finishTooLarge(Difference{Component: ComponentTooLarge, Reference: err.Error()}, j.start)
				return true, nil
			}
			if errors.Is(err, build.ErrUnsupported) && !errors.Is(err, build.ErrSideEffects) {
				// Valid SQL the planner does not take (the jsonb ?
				// operator, say): no verdict either way, with the reason,
				// never an error (issue 35). A reference that names what
				// the schema lacks, does not parse, or has side effects
				// (the proxy refuses those, it never judges them) stays
				// an error.
				j.v = finishTooLarge(Difference{Component: ComponentReferenceUnsupported, Reference: err.Error()}, j.start)
				return true, nil
			}
			return true, fmt.Errorf("reference: %w", err)
		}
		if q, err = prepare(j.ctx, j.s, p, j.opts, p.Ordered); err != nil {
			return true, stopped(err)
		}
		q.spellings, q.rowChoices = choices.spellings, choices.withLimits(q.p)
		q.exec = q.exec.withSQL(j.reference)
		keep(q)
	}
	j.ref = q
	j.v.Timings.Plan = time.Since(j.start)
	return false, nil
}

// prepareCandidate plans and rewrites the candidate against the
// reference's row order. done is set with a verdict in j.v when the
// candidate does not plan.
func (j *judgement) prepareCandidate() (done bool, err error) {
	role := roleCandidate
	if j.ref.p.Ordered {
		role = roleOrderedCandidate
	}
	q, keep := j.memo.query(j.s, role, j.candidate, j.opts)
	if q != nil {
		j.cand = q
		return false, nil
	}
	t := time.Now()
	var choices builtChoices
	cp, err := planner.Plan(j.ctx, j.s, j.candidate, planner.Options{Built: choices.read})
	j.v.Timings.Plan += time.Since(t)
	if err != nil {
		if j.ctx.Err() != nil {
			return true, stopped(j.ctx.Err())
		}
		if isTooLarge(err) {
			j.v = finishTooLarge(Difference{Component: ComponentTooLarge, Candidate: err.Error()}, j.start)
			return true, nil
		}
		j.unplanned(err)
		return true, nil
	}
	t = time.Now()
	if q, err = prepare(j.ctx, j.s, cp, j.opts, j.ref.p.Ordered); err != nil {
		return true, stopped(err)
	}
	q.spellings, q.rowChoices = choices.spellings, choices.withLimits(q.p)
	q.exec = q.exec.withSQL(j.candidate)
	j.v.Timings.Rules = time.Since(t)
	keep(q)
	j.cand = q
	return false, nil
}

// unplanned is the verdict on a candidate that does not plan: unknown,
// saying why, and likely different.
func (j *judgement) unplanned(err error) {
	v := &j.v
	v.Label = Unknown
	component := ComponentCandidateUnplanned
	switch {
	case errors.Is(err, build.ErrSQLiteRejects):
		component = ComponentCandidateRejected
	case errors.Is(err, build.ErrUnknownName):
		component = ComponentCandidateUnknownName
	case errors.Is(err, build.ErrUnsupported):
		component = ComponentCandidateUnsupported
	}
	v.Differences = []Difference{{Component: component, Candidate: err.Error()}}
	v.Likely = score.LikelyDifferent
	v.Timings.Total = time.Since(j.start)
	if errors.Is(err, build.ErrUnsupported) {
		// Valid SQL the planner cannot take: a second opinion is all
		// there is. (A query that names what the schema lacks would not
		// run, whatever an adviser thinks.)
		advise(j.ctx, j.s, j.reference, j.candidate, v, j.opts)
	}
}

// prepared is a query ready for comparison: planned, rewritten by the
// ESM+ rules, with the structures comparison and scoring read. It is
// read-only once built, so a cached reference serves concurrent judges.
type prepared struct {
	p           *plan.Plan
	rules       []string
	assumptions []Assumption
	fp          string
	canon       string // the canonical text fp hashes; likelyDifferent reads it
	notes       []string
	comps       components
	shape       *score.Shape   // what the structural scores read
	graph       *score.Graph   // the GMN's graph of the plan before the ESM+ rules, when Options.GMN is set
	key         *cache.PlanKey // set once the query is in a Judger's cache
	normFP      string         // fingerprint of the normalized plan before the ESM+ rules
	normPlan    *plan.Plan     // the normalized plan before the ESM+ rules, for the prover
	trustFK     bool           // declared foreign keys hold (the prover's option)
	sqlite      bool           // the schema's dialect is sqlite (the prover's option)
	exec        *execPlan      // the plan to execute for the refuter, planned on first use
	volatile    string         // a volatile function the query calls (random()), or ""
	// spellings are the operators of the plan as built that choose one
	// of several spellings a nondeterministic collation calls equal
	// (spelling.go).
	spellings []plan.SpellingChoice
	// orderedPlan is the plan after the ESM+ rules with its output
	// columns in the query's order, under column_order=ignore only: a
	// proof with the columns in order holds in any order, and sorting the
	// columns by their text can set two equal outputs apart (a scalar
	// subquery the rules made a MAX on one side, a MAX on the other).
	orderedPlan *plan.Plan
	// rowChoices are the SQLite aggregates of the plan as built whose
	// bare columns take a row the engine picks (plan.RowChoices).
	rowChoices []plan.RowChoice
}

// prepare rewrites p with the ESM+ rules and applies the order and column
// policies; refOrdered says whether the reference has a top-level ORDER BY.
func prepare(ctx context.Context, s *catalog.Schema, p *plan.Plan, opts Options, refOrdered bool) (*prepared, error) {
	trust := s.Dialect == catalog.Postgres
	if opts.TrustForeignKeys != nil {
		trust = *opts.TrustForeignKeys
	}
	q := &prepared{p: p, trustFK: trust, sqlite: s.Dialect == catalog.SQLite, volatile: plan.NodeVolatile(p.Root)}
	if opts.GMN != nil {
		// The network was trained on normalized plans before the ESM+
		// rewrites; score the same form. Its cross-graph attention costs
		// the product of the two graphs' sizes, so large plans go without.
		if size := planSize(p.Root, gmnMaxPlanSize); size > gmnMaxPlanSize {
			q.notes = append(q.notes, fmt.Sprintf("gmn skipped: the plan has over %d nodes and expressions", gmnMaxPlanSize))
		} else {
			// The embeddings wait until a pair needs the GMN: proved and
			// refuted pairs never do.
			g, err := score.NewGraph(p)
			if err != nil {
				return nil, err
			}
			q.graph = g
		}
	}
	// The normalized plan before any ESM+ rule: two queries alike here are
	// equivalent with no assumption, whatever the rules would assume to
	// rewrite both sides alike.
	q.normFP = fingerprint(p.Canonical())
	// The refuter executes this plan, not the rewritten one (see
	// execPlan): a copy now is much cheaper than planning the text again.
	if !opts.Refute.Off && planSize(p.Root, refuteMaxPlanSize) <= refuteMaxPlanSize {
		q.exec = &execPlan{p: p.Clone()}
	}
	// The rules rewrite p in place; the prover reads the plan before them
	// too, where a proof needs no assumption the rules made.
	if planSize(p.Root, prove.MaxPlanSize) <= prove.MaxPlanSize {
		np := *p
		np.Root = p.Root.Copy()
		q.normPlan = &np
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	fired := func(name string) {
		if !seen[name] {
			seen[name] = true
			q.rules = append(q.rules, name)
		}
	}
	assume := func(a rewrite.Assumption) {
		q.assumptions = append(q.assumptions, Assumption{Kind: AssumptionKind(a.Kind), Subject: a.Subject})
	}
	var ro rewrite.Options
	if opts.rewriteHooks != nil {
		ro = *opts.rewriteHooks
	}
	ro.TrustForeignKeys = trust
	if err := rewrite.Run(ctx, p, s, ro, fired, assume); err != nil {
		return nil, err
	}
	applyOrderPolicy(p, refOrdered)
	if opts.ColumnOrder == ColumnOrderIgnore {
		if planSize(p.Root, prove.MaxPlanSize) <= prove.MaxPlanSize {
			op := *p
			op.Root = p.Root.Copy()
			q.orderedPlan = &op
		}
		sortOutputColumns(p)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q.canon = p.Canonical()
	q.fp = fingerprint(q.canon)
	// One formatter serves the three structures: each NewFormatter walks
	// the whole plan.
	f := plan.NewFormatter(p.Meta, p.Root, true)
	q.comps = extract(p, f)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q.shape = score.NewShape(p, f)
	return q, ctx.Err()
}

// applyOrderPolicy drops the top-level ORDER BY of p when the reference
// has none (row order then does not count, and a candidate's extra
// ORDER BY is harmless), and marks a plan of at most one row unordered.
func applyOrderPolicy(p *plan.Plan, refOrdered bool) {
	dropVacuousSorts(p)
	if atMostOneRow(p.Root, p.Meta) {
		p.Ordered = false
	}
	if refOrdered && p.Ordered {
		return
	}
	p.Ordered = false
	// Walk the root chain: Project/Distinct above a Sort not under LIMIT.
	slot := &p.Root
	for {
		n := *slot
		switch n.Op {
		case plan.OpProject, plan.OpDistinct:
			slot = &n.Inputs[0]
			continue
		case plan.OpSort:
			*slot = n.Inputs[0]
		}
		return
	}
}

// sortOutputColumns reorders the root projection canonically, for the
// column_order=ignore policy.
func sortOutputColumns(p *plan.Plan) {
	n := p.Root
	for n.Op == plan.OpDistinct || n.Op == plan.OpSort || n.Op == plan.OpLimit {
		n = n.Inputs[0]
	}
	if n.Op != plan.OpProject {
		return
	}
	f := plan.NewFormatter(p.Meta, p.Root, true)
	sort.SliceStable(n.Proj, func(i, j int) bool { return f.Expr(n.Proj[i].Expr) < f.Expr(n.Proj[j].Expr) })
}

// ComponentUnmodelled is the Difference component of a verdict left
