package refute

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Agreement is the outcome of Agree.
type Agreement struct {
	// Instances counts the databases both plans ran on; Skipped of them
	// were not comparable (a nondeterministic result, or a query error on
	// either side), and Rejected databases failed the caller's filter.
	Instances, Skipped, Rejected int
	// CannotExecute is true when the executor does not model one of the
	// plans; Reason then says what.
	CannotExecute bool
	Reason        string
	// Counterexample is the first database on which the plans differ
	// (minimized when no filter was given), or nil.
	Counterexample *Counterexample
}

// Agree runs a and b on the first n databases of a fixed sequence
// (deterministic in opts.Seed) and reports the first on which they
// differ. It is the check of an equivalence believed proved (a rewrite
// rule's input and output, two plans the judge proved equivalent): unlike
// Refute it has no time budget and tries every database up to n, half
// of them typical (see Needs), half anything the schema's declared
// constraints allow. keep, when set, narrows the databases further to
// those satisfying assumptions a proof made (a table is not empty, a
// primary key holds no NULL); rejected ones are counted, not compared.
// Results compare column order strictly unless opts.IgnoreColumnOrder.
// The error is non-nil only for unusable input or a cancelled ctx.
func Agree(ctx context.Context, s *catalog.Schema, a, b *plan.Plan, n int, opts Options, keep func(exec.Database) bool) (Agreement, error) {
	steps, err := Chain(ctx, s, []*plan.Plan{a, b}, n, opts, keep)
	if len(steps) == 0 {
		return Agreement{}, err
	}
	return steps[0], err
}

// Chain is Agree for a sequence of plans, each a rewrite of the one
// before (a plan before and after every rule that fired on it): every
// database runs every plan once, and step i compares plans[i] with
// plans[i+1]. A step stops at its first difference; a plan the executor
// cannot run marks both steps around it CannotExecute.
func Chain(ctx context.Context, s *catalog.Schema, plans []*plan.Plan, n int, opts Options, keep func(exec.Database) bool) ([]Agreement, error) {
	if s == nil || len(plans) < 2 {
		return nil, errors.New("agree: a schema and at least two plans are required")
	}
	for _, p := range plans {
		if p == nil || p.Root == nil {
			return nil, errors.New("agree: every plan is required")
		}
	}
	c := newChainRun(s, plans, opts.withDefaults(), keep)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return c.steps, fmt.Errorf("agree: %w", err)
		}
		more, err := c.instance(ctx, i)
		if err != nil {
			return c.steps, err
		}
		if !more {
			break
		}
	}
	return c.steps, nil
}

// chainRun is one Chain under way: the plans as bound for each parameter
// assignment, the generators, and every step's outcome so far.
type chainRun struct {
	s       *catalog.Schema // the generation schema (see generationSchema)
	opts    Options
	keep    func(exec.Database) bool
	engine  exec.Options
	all     constraints
	sets    [][]*plan.Plan // the plans, bound to assigns[i] where they have parameters
	assigns [][]Param
	gens    []*generator // typical databases, then any the constraints allow
	steps   []Agreement
	cannot  []string // per plan: why the executor cannot run it, or ""
	runs    []chainResult
}

// chainResult is one plan's result on the current database.
type chainResult struct {
	r   *exec.Result
	err error
}

// newChainRun binds the plans' parameters and builds the generators,
// seeded with the literals of the plans as bound.
func newChainRun(s *catalog.Schema, plans []*plan.Plan, opts Options, keep func(exec.Database) bool) chainRun {
	// Plans with parameters run with values bound, a different
	// assignment on successive databases (see params.go).
	sets, assigns := [][]*plan.Plan{plans}, [][]Param{nil}
	if params := paramsOf(plans...); len(params) > 0 {
		sets, assigns = nil, assignments(s, params, withRulePlans(s, plans...)...)
		for _, a := range assigns {
			bound := make([]*plan.Plan, len(plans))
			for j, p := range plans {
				bound[j] = bindParams(p, a)
			}
			sets = append(sets, bound)
		}
	}
	s = generationSchema(s) // deferrable foreign keys hold in every committed state
	litPlans := plans
	if assigns[0] != nil {
		litPlans = nil // the bound values are literals to build data around
		for _, set := range sets {
			litPlans = append(litPlans, set...)
		}
	}
	lits := collectLiteralsFor(s.Dialect, withRulePlans(s, litPlans...)...)
	lits.alongForeignKeys(s)
	read := readTables(plans...)
	engine := exec.Options{Dialect: s.Dialect}
	all := opts.constraints()
	all.read = read
	gens := newGenerators(s, lits, typical(read), all)
	return chainRun{s: s, opts: opts, keep: keep, engine: engine, all: all, sets: sets, assigns: assigns, gens: gens,
		steps: make([]Agreement, len(plans)-1), cannot: make([]string, len(plans)), runs: make([]chainResult, len(plans))}
}

// done reports whether step i is settled: a plan of it cannot run, or
// it has its counterexample.
func (c *chainRun) done(i int) bool {
	return c.steps[i].CannotExecute || c.steps[i].Counterexample != nil
}

// instance runs the plans on database i and compares them; more is false
// once no step is left to decide. The error is a failure of the
// executor's other than a query error.
func (c *chainRun) instance(ctx context.Context, i int) (more bool, err error) {
	g := c.gens[i%2]
	db := g.instance(c.opts.Seed, i/2)
	if g.cannot != "" {
		for j := range c.steps {
			if !c.done(j) {
				c.steps[j].CannotExecute, c.steps[j].Reason = true, "cannot execute: constraints not modelled: "+g.cannot
			}
		}
		return false, nil
	}
	rejected := (g.rules.noNulls || g.rules.nonEmpty) && g.rules.check(c.s, db) != "" || c.keep != nil && !c.keep(db)
	live := false
	for j := range c.steps {
		if !c.done(j) {
			live = true
			if rejected {
				c.steps[j].Rejected++
			}
		}
	}
	if !live {
		return false, nil
	}
	if rejected {
		return true, nil
	}
	bound, assign := c.sets[i%len(c.sets)], c.assigns[i%len(c.sets)]
	if err := c.execute(ctx, bound, db); err != nil {
		return false, err
	}
	c.compare(ctx, bound, assign, db)
	return true, nil
}

// execute runs every plan a live step needs on db into c.runs; a plan
// the executor cannot run settles the steps around it.
func (c *chainRun) execute(ctx context.Context, bound []*plan.Plan, db exec.Database) error {
	for j, p := range bound {
		c.runs[j] = chainResult{}
		if c.cannot[j] != "" || (j == 0 || c.done(j-1)) && (j == len(c.steps) || c.done(j)) {
			continue // no live step needs this plan
		}
		r, err := exec.ExecuteWith(ctx, p, db, c.engine)
		if err != nil && !errors.Is(err, exec.ErrQuery) {
			if !errors.Is(err, exec.ErrCannotExecute) {
				return fmt.Errorf("agree: %w", err)
			}
			c.cannot[j] = "cannot execute: " + err.Error()
			for _, k := range []int{j - 1, j} {
				if k >= 0 && k < len(c.steps) && !c.done(k) {
					c.steps[k].CannotExecute, c.steps[k].Reason = true, c.cannot[j]
				}
			}
			continue
		}
		c.runs[j] = chainResult{r: r, err: err}
	}
	return nil
}

// compare compares each live step's two results on db, recording the
// first difference (minimized when no filter was given) as its
// counterexample.
func (c *chainRun) compare(ctx context.Context, bound []*plan.Plan, assign []Param, db exec.Database) {
	s, opts := c.s, c.opts
	for j := range c.steps {
		if c.done(j) {
			continue
		}
		a, b := c.runs[j], c.runs[j+1]
		c.steps[j].Instances++
		out := classify(a.r, a.err, b.r, b.err, opts.IgnoreColumnOrder)
		if out.kind == skip {
			c.steps[j].Skipped++
			continue
		}
		if out.kind == same {
			continue
		}
		if msg := legalCounterexample(s, db, opts.TrustForeignKeys); msg != "" {
			slog.Debug("agree: a generated database breaks a constraint; not reported", "violation", msg)
			continue
		}
		cmp := &comparer{ref: bound[j], cand: bound[j+1], opts: opts, engine: c.engine}
		cmp.lite.Rows = true // shrink's candidates share rows
		cdb := db
		if c.keep == nil {
			sctx, cancel := context.WithTimeout(ctx, max(opts.ShrinkBudget, 200*time.Millisecond))
			sdb, sout := shrink(sctx, s, cmp, cloneDB(db), out, c.all)
			cancel()
			if legalCounterexample(s, sdb, opts.TrustForeignKeys) == "" {
				cdb, out = sdb, sout
			}
		}
		c.steps[j].Counterexample = cmp.counterexample(s, cdb, out)
		c.steps[j].Counterexample.Params = assign
		c.steps[j].Counterexample.ColumnOrderOnly = out.kind == permuted
		c.steps[j].Counterexample.RowOrderOnly = out.kind == reordered
	}
}

// String describes a counterexample for a test failure: the database and
// both results.
func (ce *Counterexample) String() string {
	if ce == nil {
		return "<nil>"
	}
	s := fmt.Sprintf("%d-row database:\n", ce.Rows)
	for _, ins := range ce.Inserts {
		s += "  " + ins + "\n"
	}
	for _, p := range ce.Params {
		s += "  " + p.String() + "\n"
	}
	s += fmt.Sprintf("  first: %d rows %v\n  second: %d rows %v", ce.Reference.Count, ce.Reference.Rows, ce.Candidate.Count, ce.Candidate.Rows)
	if ce.ColumnOrderOnly {
		s += " (column order only)"
	}
	return s
}
