package equivalence

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/equivalence/treeedit"
	"github.com/pgequiv/pgequiv/gmn"
	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/norm"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Column-order policies.
const (
	ColumnOrderStrict = "strict"
	ColumnOrderIgnore = "ignore"
)

// Options are the judge's policies. The zero value is the default.
type Options struct {
	// ColumnOrder is "strict" (default) or "ignore".
	ColumnOrder string
	// TrustForeignKeys says declared foreign keys hold. nil means the
	// dialect's default: true for postgres (enforced), false for sqlite
	// (declared but not enforced), where proofs name the assumption.
	TrustForeignKeys *bool
	// AcceptAssumptions lists assumption kinds that count as a pass for
	// exit codes and the proxy's enforce mode.
	AcceptAssumptions []AssumptionKind
	// LikelyThreshold splits unknown verdicts into likely equivalent and
	// likely different by Score; 0 means 0.5.
	LikelyThreshold float64
	// Combiner turns component scores into Score; nil means the built-in
	// logistic combiner (GMNCombiner when GMN is set).
	Combiner Combiner
	// GMN, when set, adds the graph matching network's similarity to the
	// scores (gmn/model.Default() is the shipped model). It costs about a
	// millisecond per pair, so it is off by default. Plans above
	// gmnMaxPlanSize are scored without it (Verdict.Notes says so).
	GMN *gmn.Model
	// Refute tunes the counterexample search run on every pair that is
	// not proved equivalent; a database found makes it not_equivalent.
	Refute RefuteOptions
	// Adviser, when set, is asked for a second opinion on unknown
	// verdicts (an LLM, package llmjudge); its answer moves the score
	// within the unknown band and is reported as Verdict.LLM. nil: off.
	Adviser Adviser
	// MaxQueryBytes bounds the length of either query: a longer one gets
	// an unknown verdict saying it is too large to judge. 0 means
	// DefaultMaxQueryBytes; negative means no limit.
	MaxQueryBytes int

	// pkProbe, when set, is offered to the counterexample search's
	// checkpoint (SQLite keys; pknotnull.go).
	pkProbe *pkProbe
	// proveOnly leaves an unproved pair unscored: the caller wants a
	// proof or nothing.
	proveOnly bool
}

// SetPolicy sets one option from its key=value form, as the CLI and case
// files give them.
func (o *Options) SetPolicy(key, value string) error {
	switch key {
	case "column_order":
		if value != ColumnOrderStrict && value != ColumnOrderIgnore {
			return fmt.Errorf("policy column_order: %q is not strict or ignore", value)
		}
		o.ColumnOrder = value
	case "trust_foreign_keys":
		switch value {
		case "true":
			t := true
			o.TrustForeignKeys = &t
		case "false":
			f := false
			o.TrustForeignKeys = &f
		default:
			return fmt.Errorf("policy trust_foreign_keys: %q is not true or false", value)
		}
	case "accept_assumptions":
		o.AcceptAssumptions = nil
		for _, k := range strings.Split(value, ",") {
			k = strings.TrimSpace(k)
			switch AssumptionKind(k) {
			case AssumeNonEmpty, AssumeForeignKey, AssumePrimaryKeyNotNull:
				o.AcceptAssumptions = append(o.AcceptAssumptions, AssumptionKind(k))
			case "":
			default:
				return fmt.Errorf("policy accept_assumptions: unknown assumption kind %q", k)
			}
		}
	case "likely_threshold":
		var t float64
		if _, err := fmt.Sscanf(value, "%g", &t); err != nil || t < 0 || t > 1 {
			return fmt.Errorf("policy likely_threshold: %q is not a number in [0,1]", value)
		}
		o.LikelyThreshold = t
	default:
		return fmt.Errorf("unknown policy %q (want column_order, trust_foreign_keys, accept_assumptions or likely_threshold)", key)
	}
	return nil
}

// Passes reports whether v counts as a pass under o: equivalent, or
// equivalent under assumptions that are all accepted.
func (o Options) Passes(v Verdict) bool {
	switch v.Label {
	case Equivalent:
		return true
	case EquivalentUnderAssumptions:
		for _, a := range v.Assumptions {
			ok := false
			for _, k := range o.AcceptAssumptions {
				if a.Kind == k {
					ok = true
				}
			}
			if !ok {
				return false
			}
		}
		return true
	}
	return false
}

// maxRuleRounds bounds ESM+ rewriting; each round is followed by
// renormalization, which can enable another rule.
const maxRuleRounds = 4

// Judge decides whether candidate means the same as reference under s.
// An error means the reference itself could not be planned or ctx ended;
// a candidate that cannot be planned yields an unknown verdict saying why.
// Judge keeps nothing between calls; a Judger caches prepared references.
func Judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options) (Verdict, error) {
	return judge(ctx, s, reference, candidate, opts, nil)
}

func judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options, j *Judger) (Verdict, error) {
	if probe := newPKProbe(ctx, s, reference, candidate, opts, j); probe != nil {
		return judgeSQLiteKeys(ctx, s, reference, candidate, opts, j, probe)
	}
	return judgeUnder(ctx, s, reference, candidate, opts, j)
}

func judgeUnder(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options, j *Judger) (Verdict, error) {
	start := time.Now()
	var v Verdict
	if tl, ok := tooLargeInput(reference, candidate, opts); ok {
		return finishTooLarge(tl, start), nil
	}
	var ref *prepared
	var refKey cache.PlanKey
	if j != nil {
		refKey = j.queries.key(s, roleReference, reference, opts)
		ref = j.queries.get(refKey)
	}
	if ref == nil {
		p, err := planner.Plan(ctx, s, reference, planner.Options{})
		if err != nil {
			if ctx.Err() != nil {
				return v, stopped(ctx.Err())
			}
			if isTooLarge(err) {
				return finishTooLarge(Difference{Component: ComponentTooLarge, Reference: err.Error()}, start), nil
			}
			return v, fmt.Errorf("reference: %w", err)
		}
		if ref, err = prepare(ctx, s, p, opts, p.Ordered); err != nil {
			return v, stopped(err)
		}
		ref.exec = ref.exec.withSQL(reference)
		if j != nil {
			j.queries.add(refKey, ref)
		}
	}
	v.Timings.Plan = time.Since(start)

	var cand *prepared
	var candKey cache.PlanKey
	if j != nil {
		role := roleCandidate
		if ref.p.Ordered {
			role = roleOrderedCandidate
		}
		candKey = j.queries.key(s, role, candidate, opts)
		cand = j.queries.get(candKey)
	}
	if cand == nil {
		t := time.Now()
		cp, err := planner.Plan(ctx, s, candidate, planner.Options{})
		v.Timings.Plan += time.Since(t)
		if err != nil {
			if ctx.Err() != nil {
				return v, stopped(ctx.Err())
			}
			if isTooLarge(err) {
				return finishTooLarge(Difference{Component: ComponentTooLarge, Candidate: err.Error()}, start), nil
			}
			v.Label = Unknown
			what := "does not plan"
			switch {
			case errors.Is(err, build.ErrSQLiteRejects):
				what = "is invalid: SQLite rejects it"
			case errors.Is(err, build.ErrUnsupported):
				what = "uses unsupported syntax"
			}
			v.Differences = []Difference{{Component: "candidate " + what, Candidate: err.Error()}}
			v.Likely = "likely different"
			v.Timings.Total = time.Since(start)
			if errors.Is(err, build.ErrUnsupported) {
				// Valid SQL the planner cannot take: a second opinion is
				// all there is. (A query that names what the schema lacks
				// would not run, whatever an adviser thinks.)
				advise(ctx, s, reference, candidate, &v, opts)
			}
			return v, nil
		}
		t = time.Now()
		if cand, err = prepare(ctx, s, cp, opts, ref.p.Ordered); err != nil {
			return v, stopped(err)
		}
		cand.exec = cand.exec.withSQL(candidate)
		v.Timings.Rules = time.Since(t)
		if j != nil {
			j.queries.add(candKey, cand)
		}
	}
	v, err := verdictOf(ctx, s, ref, cand, opts, start, v, j)
	if err != nil {
		return v, stopped(err)
	}
	if opts.pkProbe.settled() {
		return v, nil // the caller takes the probe's proof instead
	}
	advise(ctx, s, reference, candidate, &v, opts)
	return v, nil
}

// prepared is a query ready for comparison: planned, rewritten by the
// ESM+ rules, with the structures comparison and scoring read. It is
// read-only once built, so a cached reference serves concurrent judges.
type prepared struct {
	p           *plan.Plan
	rules       []string
	assumptions []Assumption
	fp          string
	canon       string // the canonical text fp hashes; provedDifferent reads it
	notes       []string
	comps       components
	rel         *relNode
	ast         *treeedit.Node
	gmnProg     *plangraph.Program // the GMN's graph of the plan before the ESM+ rules, when Options.GMN is set
	embMu       sync.Mutex
	emb         *gmnmodel.Embedded // gmnProg's node embeddings, computed on first use
	key         *cache.PlanKey     // set once the query is in a Judger's cache
	normFP      string             // fingerprint of the normalized plan before the ESM+ rules
	normPlan    *plan.Plan         // the normalized plan before the ESM+ rules, for the prover
	trustFK     bool               // declared foreign keys hold (the prover's option)
	sqlite      bool               // the schema's dialect is sqlite (the prover's option)
	exec        *execPlan          // the plan to execute for the refuter, planned on first use
	volatile    string             // a volatile function the query calls (random()), or ""
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
			prog, err := plangraph.BuildProgram(p)
			if err != nil {
				return nil, fmt.Errorf("gmn graph: %w", err)
			}
			// The embeddings wait until a pair needs the GMN (see
			// embedding): proved and refuted pairs never do.
			q.gmnProg = prog
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
	addRule := func(name string) {
		if !seen[name] {
			seen[name] = true
			q.rules = append(q.rules, name)
		}
	}
	for _, r := range p.Rules {
		addRule(r)
	}
	rc := &ruleCtx{ctx: ctx, p: p, schema: s, trustFK: trust, fired: addRule, assume: func(a Assumption) { q.assumptions = append(q.assumptions, a) }}
	for round := 0; round < maxRuleRounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fired, err := applyRules(rc)
		if err != nil {
			return nil, err
		}
		if !fired {
			break
		}
		if _, err := norm.NormalizeContext(ctx, p); err != nil {
			return nil, err
		}
		for _, r := range p.Rules {
			addRule(r)
		}
	}
	applyOrderPolicy(p, refOrdered)
	if opts.ColumnOrder == ColumnOrderIgnore {
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
	q.rel = relTree(p, f)
	q.ast = astTree(p, f)
	return q, ctx.Err()
}

// scoreGMN runs the graph matching network on two prepared queries.
func scoreGMN(ctx context.Context, m *gmn.Model, ref, cand *prepared) (float64, error) {
	re, err := ref.embedding(m)
	if err != nil {
		return 0, err
	}
	ce, err := cand.embedding(m)
	if err != nil {
		return 0, err
	}
	return gmnmodel.ScoreEmbeddedContext(ctx, m, re, ce)
}

// embedding returns the query's GMN node embeddings under m, computing
// them on first use; a cached query serves concurrent judges.
func (q *prepared) embedding(m *gmn.Model) (*gmnmodel.Embedded, error) {
	q.embMu.Lock()
	defer q.embMu.Unlock()
	if q.emb == nil {
		e, err := gmnmodel.Embed(m, q.gmnProg)
		if err != nil {
			return nil, fmt.Errorf("gmn embeddings: %w", err)
		}
		q.emb = e
	}
	return q.emb, nil
}

// verdictOf compares two prepared queries; j, when not nil, supplies
// cached GMN pair similarities.
func verdictOf(ctx context.Context, s *catalog.Schema, ref, cand *prepared, opts Options, start time.Time, v Verdict, j *Judger) (Verdict, error) {
	t := time.Now()
	seen := map[string]bool{}
	for _, r := range append(append([]string(nil), ref.rules...), cand.rules...) {
		if !seen[r] {
			seen[r] = true
			v.Rules = append(v.Rules, r)
		}
	}
	v.ReferenceFingerprint, v.CandidateFingerprint = ref.fp, cand.fp
	cmp := compare(ref, cand)
	v.Differences = cmp.differences
	um := unmodelledReads(ref.p, cand.p)
	switch {
	case len(um) > 0:
		// The catalog knows it misses something about a table read (a
		// row security policy, a rule, a constraint it cannot read): no
		// proof and no counterexample can be trusted.
		v.Label = Unknown
		v.Differences = append(v.Differences, Difference{Component: ComponentUnmodelled, Reference: strings.Join(um, "; ")})
		v.Notes = append(v.Notes, "neither proved nor refuted: "+strings.Join(um, "; "))
	case ref.volatile != "" || cand.volatile != "":
		// Two evaluations of a volatile call differ, even of one query
		// text: there is no single result to prove equal, and none the
		// executor could compute (issue 18, cause 13). Only a different
		// number of output columns tells them apart whatever the calls
		// return.
		v.Label = Unknown
		if len(ref.p.Root.OutCols()) != len(cand.p.Root.OutCols()) {
			v.Label = NotEquivalent
		}
		v.Differences = append([]Difference{volatileDifference(ref.volatile, cand.volatile)}, v.Differences...)
	case ref.normFP == cand.normFP:
		// Alike before the ESM+ rules: whatever those assumed, they
		// rewrote both sides alike, so nothing needs assuming.
		v.Label = Equivalent
		v.Differences = nil
	case ref.fp == cand.fp && len(ref.assumptions)+len(cand.assumptions) == 0:
		v.Label = Equivalent
		v.Differences = nil
	case ref.fp == cand.fp:
		// Assumptions made on either side are what the proof rests on,
		// unless the prover needs none on the plans before the rules.
		v.Assumptions = mergeAssumptions(ref.assumptions, cand.assumptions)
		v.Label = EquivalentUnderAssumptions
		v.Differences = nil
		res, err := prove.Equivalent(ctx, ref.normPlan, cand.normPlan, prove.Options{TrustForeignKeys: ref.trustFK, SQLite: ref.sqlite})
		if err != nil {
			return v, err
		}
		if res.Proved && len(res.Assumptions) == 0 {
			v.Label, v.Assumptions = Equivalent, nil
			for _, r := range res.Rules {
				if !seen[r] {
					seen[r] = true
					v.Rules = append(v.Rules, r)
				}
			}
		}
	case cmp.provedDifferent:
		v.Label = NotEquivalent
	default:
		v.Label = Unknown
		popts := prove.Options{TrustForeignKeys: ref.trustFK, SQLite: ref.sqlite}
		res, err := prove.Equivalent(ctx, ref.normPlan, cand.normPlan, popts)
		if err != nil {
			return v, err
		}
		if !res.Proved && (ref.normFP != ref.fp || cand.normFP != cand.fp) {
			// The rules or the order policy changed a plan: try again on
			// the rewritten plans.
			if res, err = prove.Equivalent(ctx, ref.p, cand.p, popts); err != nil {
				return v, err
			}
			if res.Proved {
				v.Assumptions = mergeAssumptions(ref.assumptions, cand.assumptions)
			}
		}
		if res.Proved {
			for _, a := range res.Assumptions {
				v.Assumptions = mergeAssumptions(v.Assumptions, []Assumption{{Kind: AssumptionKind(a.Kind), Subject: a.Subject}})
			}
		}
		if res.Proved {
			v.Label = Equivalent
			if len(v.Assumptions) > 0 {
				v.Label = EquivalentUnderAssumptions
			}
			v.Differences = nil
			for _, r := range res.Rules {
				if !seen[r] {
					seen[r] = true
					v.Rules = append(v.Rules, r)
				}
			}
		}
	}
	v.Timings.Compare = time.Since(t)
	if !v.Label.Proved() && len(um) == 0 {
		// Structure could not prove them equivalent: look for a database
		// that tells them apart (a structural not_equivalent gains one
		// to show).
		if err := refutePair(ctx, s, ref, cand, opts, &v, j); err != nil {
			return v, err
		}
	}
	if opts.pkProbe.settled() || opts.proveOnly && !v.Label.Proved() {
		return v, nil // the caller discards this verdict: no scores needed
	}
	for _, n := range append(append([]string(nil), ref.notes...), cand.notes...) {
		if !slices.Contains(v.Notes, n) {
			v.Notes = append(v.Notes, n)
		}
	}
	if err := ctx.Err(); err != nil {
		return v, err
	}

	t = time.Now()
	scores, notes, err := scorePrepared(ctx, ref, cand, cmp)
	if err != nil {
		return v, err
	}
	v.Scores = scores
	v.Notes = append(v.Notes, notes...)
	combiner := opts.Combiner
	if combiner == nil {
		combiner = DefaultCombiner
	}
	if err := ctx.Err(); err != nil {
		return v, err
	}
	// The GMN scores only what neither proof nor search settled: within
	// the proved and refuted bands the structural scores order pairs.
	if opts.GMN != nil && v.Label == Unknown && ref.gmnProg != nil && cand.gmnProg != nil {
		g, err := j.gmnScore(ctx, opts.GMN, ref, cand)
		if ctx.Err() != nil {
			return v, ctx.Err()
		}
		if err == nil {
			v.Scores.GMN = g
			if opts.Combiner == nil {
				combiner = GMNCombiner
			}
		}
	}
	v.Scores.Combined = combiner.Combine(Features{Scores: v.Scores, Label: v.Label, Components: cmp, Search: v.Search})
	band(&v, opts)
	v.Timings.Score = time.Since(t)
	v.Timings.Total = time.Since(start)
	return v, ctx.Err()
}

// ComponentVolatile is the Difference component of a verdict left
// unknown because a query calls a volatile function.
const ComponentVolatile = "volatile function"

// volatileDifference names the volatile calls that keep a pair from
// being judged.
func volatileDifference(ref, cand string) Difference {
	name := func(f string) string {
		if f == "" {
			return "none"
		}
		return f + "() (its value differs between evaluations)"
	}
	return Difference{Component: ComponentVolatile, Reference: name(ref), Candidate: name(cand)}
}

// band places the combined score in its label's band and, for unknown
// verdicts, says which way the score leans.
func band(v *Verdict, opts Options) {
	v.Score = v.Scores.Combined
	v.Likely = ""
	switch v.Label {
	case Equivalent:
		v.Score = 0.95 + 0.05*v.Score
	case EquivalentUnderAssumptions:
		v.Score = 0.9 + 0.05*v.Score
	case NotEquivalent:
		// A counterexample on ordinary data is the strongest evidence of
		// a difference; one that needs a NULL or an empty table, or that
		// differs only in column order, ranks a little closer to
		// equivalent, as ordinary use shows it less.
		switch {
		case v.Counterexample != nil && !v.Counterexample.Weak():
			v.Score = 0.025 * v.Score
		case v.Counterexample != nil:
			v.Score = 0.025 + 0.025*v.Score
		default:
			v.Score = 0.05 * v.Score
		}
	default:
		v.Score = 0.05 + 0.85*v.Score
		th := opts.LikelyThreshold
		if th == 0 {
			th = 0.5
		}
		if v.Score >= th {
			v.Likely = "likely equivalent"
		} else {
			v.Likely = "likely different"
		}
	}
}

// RescoreGMN returns v as if the judge had scored it with a GMN similarity
// of gmnScore: the label, rules and differences stay; the combined score
// is recomputed with GMNCombiner (or opts.Combiner) and banded again. It
// lets a cross-validation score each pair with a model that did not see it
// (`pgequiv eval --gmn-scores`). v must come from a judge that planned
// both queries (a candidate that does not plan has no scores to combine).
func RescoreGMN(v Verdict, gmnScore float64, opts Options) Verdict {
	// As in the judge, the GMN scores only unknown pairs.
	if v.Label != Unknown || v.Scores == (Scores{}) {
		return v
	}
	combiner := opts.Combiner
	if combiner == nil {
		combiner = GMNCombiner
	}
	v.Scores.GMN = gmnScore
	return Rescore(v, combiner, opts)
}

// Rescore returns v with its combined score recomputed by c and banded
// again; the label and everything else stay. It serves fitting and
// cross-validating combiners on judged pairs.
func Rescore(v Verdict, c Combiner, opts Options) Verdict {
	v.Scores.Combined = c.Combine(Features{Scores: v.Scores, Label: v.Label, Search: v.Search})
	band(&v, opts)
	return v
}

func mergeAssumptions(a, b []Assumption) []Assumption {
	seen := map[Assumption]bool{}
	var out []Assumption
	for _, x := range append(append([]Assumption(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
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
// unknown because a table either query reads has facts the catalog does
// not model (catalog.Table.Unmodelled).
const ComponentUnmodelled = "unmodelled schema"

// unmodelledReads lists, for each table either plan reads, what the
// catalog says it does not model about it.
func unmodelledReads(plans ...*plan.Plan) []string {
	var out []string
	seen := map[*catalog.Table]bool{}
	for _, p := range plans {
		for _, in := range p.Meta.Instances {
			t := in.Table
			if t == nil || seen[t] || len(t.Unmodelled) == 0 {
				continue
			}
			seen[t] = true
			out = append(out, "table "+t.Name+": "+strings.Join(t.Unmodelled, ", "))
		}
	}
	return out
}
