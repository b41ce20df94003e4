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
	opts = opts.withDefaults()
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
	steps := make([]Agreement, len(plans)-1)
	cannot := make([]string, len(plans))
	done := func(i int) bool { return steps[i].CannotExecute || steps[i].Counterexample != nil }
	type run struct {
		r   *exec.Result
		err error
	}
	runs := make([]run, len(plans))
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return steps, fmt.Errorf("agree: %w", err)
		}
		g := gens[i%2]
		db := g.instance(opts.Seed, i/2)
		if g.cannot != "" {
			for j := range steps {
				if !done(j) {
					steps[j].CannotExecute, steps[j].Reason = true, "cannot execute: constraints not modelled: "+g.cannot
				}
			}
			break
		}
		rejected := (g.rules.noNulls || g.rules.nonEmpty) && g.rules.check(s, db) != "" || keep != nil && !keep(db)
		live := false
		for j := range steps {
			if !done(j) {
				live = true
				if rejected {
					steps[j].Rejected++
				}
			}
		}
		if !live {
			break
		}
		if rejected {
			continue
		}
		bound, assign := sets[i%len(sets)], assigns[i%len(sets)]
		for j, p := range bound {
			runs[j] = run{}
			if cannot[j] != "" || (j == 0 || done(j-1)) && (j == len(steps) || done(j)) {
				continue // no live step needs this plan
			}
			r, err := exec.ExecuteWith(ctx, p, db, engine)
			if err != nil && !errors.Is(err, exec.ErrQuery) {
				if !errors.Is(err, exec.ErrCannotExecute) {
					return steps, fmt.Errorf("agree: %w", err)
				}
				cannot[j] = "cannot execute: " + err.Error()
				for _, k := range []int{j - 1, j} {
					if k >= 0 && k < len(steps) && !done(k) {
						steps[k].CannotExecute, steps[k].Reason = true, cannot[j]
					}
				}
				continue
			}
			runs[j] = run{r: r, err: err}
		}
		for j := range steps {
			if done(j) {
				continue
			}
			a, b := runs[j], runs[j+1]
			steps[j].Instances++
			out := classify(a.r, a.err, b.r, b.err, opts.IgnoreColumnOrder)
			if out.kind == skip {
				steps[j].Skipped++
				continue
			}
			if out.kind == same {
				continue
			}
			if msg := legalCounterexample(s, db, opts.TrustForeignKeys); msg != "" {
				slog.Debug("agree: a generated database breaks a constraint; not reported", "violation", msg)
				continue
			}
			c := &comparer{ref: bound[j], cand: bound[j+1], opts: opts, engine: engine}
			c.lite.Rows = true // shrink's candidates share rows
			cdb := db
			if keep == nil {
				sctx, cancel := context.WithTimeout(ctx, max(opts.ShrinkBudget, 200*time.Millisecond))
				sdb, sout := shrink(sctx, s, c, cloneDB(db), out, all)
				cancel()
				if legalCounterexample(s, sdb, opts.TrustForeignKeys) == "" {
					cdb, out = sdb, sout
				}
			}
			steps[j].Counterexample = c.counterexample(s, cdb, out)
			steps[j].Counterexample.Params = assign
			steps[j].Counterexample.ColumnOrderOnly = out.kind == permuted
		}
	}
	return steps, nil
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
