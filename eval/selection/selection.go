// Package selection picks the best of several candidate queries for one
// question without a database: candidates are split into classes of the
// same meaning (proved equivalent, or never told apart on generated
// databases) and different meaning (told apart by a generated database,
// or proved different), and the best supported class wins, the way
// self-consistency voting picks the most common execution result, but
// with results from databases generated from the schema instead of the
// real one.
package selection

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Options tune a selection. The zero value is usable.
type Options struct {
	// Judge holds the judge's policies (column order, foreign keys, GMN);
	// they also set how the refuter compares results.
	Judge equivalence.Options
	// Judger, when set, judges the pairs and keeps its caches across
	// groups.
	Judger *equivalence.Judger
	// Budget bounds the whole selection of one group; default 10 s, a
	// safety net: the work is bounded by MaxInstances and MaxJudgedPairs,
	// so that a selection does not depend on the machine's load. About
	// half goes to running the candidates on generated databases, the
	// rest to judging pairs; what is left when the budget runs out is
	// decided on the evidence gathered so far (Result.Notes says so).
	Budget time.Duration
	// Seed makes the generated databases reproducible.
	Seed uint64
	// MaxInstances bounds the generated databases; default 300. With
	// the budget to spare, the same seed gives the same databases and the
	// same selection on any machine.
	MaxInstances int
	// MaxJudgedPairs bounds the candidate pairs judged; default 120 (all
	// pairs of 16 candidates). Beyond it only class representatives are
	// judged against each other.
	MaxJudgedPairs int
	// NearWeight weighs the structural similarity of a class to the
	// candidates outside it against the candidates inside it; default
	// 0.5: the members of a class are votes, a near miss half a vote at
	// most.
	NearWeight float64
}

// DefaultBudget is Options.Budget's default: a safety net far above what
// the default work bounds take on the shared Spider groups.
const DefaultBudget = 10 * time.Second

func (o Options) withDefaults() Options {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.MaxInstances <= 0 {
		o.MaxInstances = 300
	}
	if o.MaxJudgedPairs <= 0 {
		o.MaxJudgedPairs = 120
	}
	if o.NearWeight == 0 {
		o.NearWeight = 0.5
	}
	return o
}

// Result is the selection for one group.
type Result struct {
	// Chosen is the index of the chosen candidate, -1 when no candidate
	// could be planned.
	Chosen int `json:"chosen"`
	// Classes are ordered best first; Classes[0] holds Chosen.
	Classes []Class `json:"classes"`
	// Dropped lists the candidates that could not be planned (or not
	// within the budget).
	Dropped []Dropped `json:"dropped,omitempty"`
	// Separations say why classes are apart, where a database or a proof
	// says so.
	Separations []Separation `json:"separations,omitempty"`
	// Instances is the number of generated databases every executable
	// candidate ran on.
	Instances int `json:"instances"`
	// Notes say where the selection did less than usual (budget).
	Notes   []string      `json:"notes,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Class is a set of candidates that agreed on every generated database or
// were proved equivalent.
type Class struct {
	Members []int `json:"members"`
	// Representative is the member chosen to stand for the class: the
	// most central, then the smallest plan.
	Representative int `json:"representative"`
	// Score is the class's support: its size plus NearWeight times its
	// mean structural similarity to the candidates outside it.
	Score float64 `json:"score"`
	// Executed is false for a class whose candidates the executor does
	// not model; they are grouped by proofs alone.
	Executed bool `json:"executed"`
	// Why says how the members were grouped and scored.
	Why []string `json:"why"`
}

// Dropped is a candidate left out of the selection.
type Dropped struct {
	Index  int    `json:"index"`
	Reason string `json:"reason"`
	// Invalid: the engine would reject the candidate too (the planner
	// refused it as SQLite does, or it names what the schema lacks);
	// execution accuracy counts such a query wrong. Otherwise the planner
	// may be what lacks.
	Invalid bool `json:"invalid,omitempty"`
}

// Separation says why two classes (indexes into Result.Classes) differ.
type Separation struct {
	A int `json:"a"`
	B int `json:"b"`
	// By is "database" (a generated database tells their
	// representatives apart), "proof" (the judge proved them not
	// equivalent), "columns (N vs M)" (their numbers of output columns
	// differ, so their results differ wherever either has a row) or
	// "database (indirect)" (split by a database on which other members'
	// results differ).
	By             string                 `json:"by"`
	Counterexample *refute.Counterexample `json:"counterexample,omitempty"`
}

// candidate is the working state of one input query.
type candidate struct {
	sql  string
	plan *plan.Plan
	size int
}

// Select picks the best of candidates under schema s. The error is
// non-nil only when ctx is cancelled or s is nil; bad candidates are
// reported in Result.Dropped, never an error.
func Select(ctx context.Context, s *catalog.Schema, candidates []string, opts Options) (Result, error) {
	start := time.Now()
	if s == nil {
		return Result{Chosen: -1}, errors.New("selection: schema is required")
	}
	opts = opts.withDefaults()
	bctx, cancel := context.WithTimeout(ctx, opts.Budget)
	defer cancel()
	res := Result{Chosen: -1}
	cs := make([]candidate, len(candidates))
	plans := make([]*plan.Plan, len(candidates))
	for i, sql := range candidates {
		cs[i].sql = sql
		// Each candidate gets a quarter of the budget at most, so that one
		// huge query cannot leave the others unplanned.
		pctx, pcancel := context.WithTimeout(bctx, opts.Budget/4)
		p, err := planCandidate(pctx, s, sql, opts.Judge)
		timedOut := pctx.Err() != nil
		pcancel()
		if err != nil {
			if ctx.Err() != nil {
				return res, fmt.Errorf("selection: %w", ctx.Err())
			}
			reason := "does not plan: " + err.Error()
			if timedOut {
				reason = "not planned within the budget"
			}
			invalid := errors.Is(err, build.ErrSQLiteRejects) || errors.Is(err, build.ErrUnknownName)
			res.Dropped = append(res.Dropped, Dropped{Index: i, Reason: reason, Invalid: invalid})
			continue
		}
		cs[i].plan, plans[i] = p, p
		cs[i].size = planSize(p)
	}
	if len(res.Dropped) == len(candidates) {
		res.Notes = append(res.Notes, "no candidate could be planned")
		res.Elapsed = time.Since(start)
		return res, nil
	}

	if len(candidates)-len(res.Dropped) == 1 {
		for i := range cs {
			if cs[i].plan != nil {
				res.Chosen = i
				res.Classes = []Class{{Members: []int{i}, Representative: i, Score: 1, Why: []string{"the only candidate that plans"}}}
			}
		}
		res.Elapsed = time.Since(start)
		return res, nil
	}

	// Execution: the same databases for every candidate.
	ropts := refuteOptions(s, opts)
	ropts.Budget = remaining(bctx, opts.Budget) / 2
	ropts.MaxInstances = opts.MaxInstances

	part, err := partition(bctx, s, plans, ropts)
	if err != nil {
		if ctx.Err() != nil {
			return res, fmt.Errorf("selection: %w", ctx.Err())
		}
		if bctx.Err() != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("the budget stopped execution after %d databases", part.Instances))
		} else {
			res.Notes = append(res.Notes, "execution stopped: "+err.Error())
		}
	}
	res.Instances = part.Instances
	if part.Instances < opts.MaxInstances && !allSingletonClasses(part.Classes) {
		res.Notes = append(res.Notes, fmt.Sprintf("ran %d of %d databases within the budget", part.Instances, opts.MaxInstances))
	}
	classes := make([]*workClass, 0, len(part.Classes)+len(part.CannotExecute))
	for _, members := range part.Classes {
		classes = append(classes, &workClass{members: members, executed: true})
	}
	for i := range cs {
		if cs[i].plan == nil {
			continue
		}
		if reason, ok := part.CannotExecute[i]; ok {
			classes = append(classes, &workClass{members: []int{i}, why: []string{fmt.Sprintf("#%d not executed (%s)", i, reason)}})
		} else if !inAny(part.Classes, i) {
			// The budget ran out before the candidate ran at all.
			classes = append(classes, &workClass{members: []int{i}})
		}
	}

	// Proofs and scores between candidates.
	pj, err := judgePairsSafely(bctx, s, cs, classes, opts, &res)
	if err != nil {
		res.Notes = append(res.Notes, err.Error())
	}
	classes = mergeByProof(classes, pj, cs)
	for _, c := range classes {
		if c.executed && len(c.members) > 1 && part.Instances > 0 {
			c.why = append(c.why, fmt.Sprintf("same results on all %d generated databases", part.Instances))
		}
	}
	scoreClasses(classes, pj, part, cs, opts)
	for _, c := range classes {
		c.rep = representative(c, pj, cs)
	}
	slices.SortStableFunc(classes, func(a, b *workClass) int { return compareClasses(a, b, cs) })
	for _, c := range classes {
		res.Classes = append(res.Classes, Class{Members: c.members, Representative: c.rep, Score: c.score, Executed: c.executed, Why: c.why})
	}
	res.Chosen = res.Classes[0].Representative
	res.Separations = separations(bctx, s, classes, cs, pj, part, ropts)
	if bctx.Err() != nil && ctx.Err() == nil {
		res.Notes = append(res.Notes, fmt.Sprintf("budget %v ran out; chosen on the evidence gathered", opts.Budget))
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("selection: %w", ctx.Err())
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// partition runs refute.PartitionPlans, turning a panic in the executor
// (a bug, on some odd plan) into an error: the selection goes on without
// execution evidence rather than ending the process.
func partition(ctx context.Context, s *catalog.Schema, plans []*plan.Plan, o refute.Options) (part refute.Partition, err error) {
	defer func() {
		if r := recover(); r != nil {
			part, err = refute.Partition{}, fmt.Errorf("executor failed: %v", r)
		}
	}()
	return refute.PartitionPlans(ctx, s, plans, o)
}

// judgePairsSafely is judgePairs with a panic turned into an error, for
// the same reason.
func judgePairsSafely(ctx context.Context, s *catalog.Schema, cs []candidate, classes []*workClass, opts Options, res *Result) (pj map[pairKey]pairVerdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			pj, err = map[pairKey]pairVerdict{}, fmt.Errorf("judge failed: %v", r)
		}
	}()
	return judgePairs(ctx, s, cs, classes, opts, res), nil
}

// planCandidate plans sql and never panics on it: a planner bug on odd
// input costs that candidate, not the process.
func planCandidate(ctx context.Context, s *catalog.Schema, sql string, jo equivalence.Options) (p *plan.Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("planner failed: %v", r)
		}
	}()
	if max := jo.MaxQueryBytes; max == 0 && len(sql) > equivalence.DefaultMaxQueryBytes || max > 0 && len(sql) > max {
		return nil, fmt.Errorf("too large to judge (%d bytes)", len(sql))
	}
	return planner.Plan(ctx, s, sql, planner.Options{})
}

func refuteOptions(s *catalog.Schema, opts Options) refute.Options {
	trust := s.Dialect == catalog.Postgres
	if opts.Judge.TrustForeignKeys != nil {
		trust = *opts.Judge.TrustForeignKeys
	}
	return refute.Options{
		Seed:              opts.Seed,
		TrustForeignKeys:  trust,
		IgnoreColumnOrder: opts.Judge.ColumnOrder == equivalence.ColumnOrderIgnore,
		Dialect:           s.Dialect,
	}
}

func remaining(ctx context.Context, fallback time.Duration) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Millisecond)
	}
	return fallback
}

func planSize(p *plan.Plan) int {
	n := 0
	p.Root.WalkNodes(func(x *plan.Node) {
		n++
		x.WalkExprs(func(*plan.Expr) { n++ })
	})
	return n
}

func allSingletonClasses(classes [][]int) bool {
	for _, c := range classes {
		if len(c) > 1 {
			return false
		}
	}
	return true
}

func inAny(classes [][]int, i int) bool {
	for _, c := range classes {
		if slices.Contains(c, i) {
			return true
		}
	}
	return false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
