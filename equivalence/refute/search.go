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

// A refuteRun is one search of refute over its tiers: the search's
// budget (sctx, within the caller's ctx), the tiers' constraints and
// generators, the widest constraints (all), the comparer, and what the
// search has found so far (res, columnsOnly: a difference in column or
// row order only).
type refuteRun struct {
	ctx, sctx   context.Context
	s           *catalog.Schema
	ref         *plan.Plan
	opts        Options
	start       time.Time
	c           *comparer
	targets     *targets
	all         constraints
	tiers       []constraints
	gens        []*generator
	res         Result
	columnsOnly *hit
	// literalTry is shared by the tiers' seeders (seeder.tries).
	literalTry int
}

// searchTiers returns the schema's constraints on the tables read (all)
// and the tiers of constraints the search goes through, typical
// databases first.
func searchTiers(s *catalog.Schema, ref, cand *plan.Plan, read map[string]bool, opts Options) (constraints, []constraints) {
	all := opts.constraints()
	all.read = read
	tiers := []constraints{typical(read), all}
	// The widest tier also stores in SQLite INTEGER columns what SQLite
	// keeps there as given (5.5, 'abc'); Needs then says so.
	tiers[1].nonIntegers = s.Dialect == catalog.SQLite
	if all.noNulls && all.nonEmpty && all.trustFK {
		tiers = tiers[1:] // the caller's assumptions are already typical
	}
	if opq := opaqueColumns(s, s.Tables, ref, cand); opq != nil {
		for i := range tiers {
			tiers[i].opaque = opq
		}
		all.opaque = opq
	}
	return all, tiers
}

// done is the result so far, with the time spent.
func (r *refuteRun) done() (Result, error) {
	r.res.Elapsed = time.Since(r.start)
	return r.res, nil
}

// found is the result with counterexample ce.
func (r *refuteRun) found(ce *Counterexample) (Result, error) {
	r.res.Found, r.res.Counterexample = true, ce
	return r.done()
}

// reaches says whether the reference returns a row on db: a literal
// base must (seeds.go). These are its own executions, apart from the
// comparer's scratch memory.
func (r *refuteRun) reaches(db exec.Database) bool {
	res, err := exec.ExecuteWith(r.sctx, r.ref, db, exec.Options{Dialect: r.s.Dialect})
	return err == nil && len(res.Rows) > 0
}

// searchTier searches tier ti (typicalTier: the first of two, which
// gets half the instances and half the budget) for a database that
// tells the plans apart; stopped says the caller's checkpoint ended the
// search.
func (r *refuteRun) searchTier(ti int, typicalTier bool) (h *hit, stopped bool, err error) {
	n := r.opts.MaxInstances - r.res.Instances
	tctx, cancelTier := r.sctx, context.CancelFunc(func() {})
	if typicalTier {
		n = r.opts.MaxInstances / 2
		tctx, cancelTier = context.WithTimeout(r.sctx, r.opts.Budget/2)
	}
	defer cancelTier()
	// The targets' databases come early, a quarter of the tier at
	// most (see seeds.go); the wider tier's own are built on its
	// bases, and an emptied parent's only there.
	seeds := newSeeder(r.gens[ti], r.gens[0], r.opts.Seed, r.targets, n/4)
	if seeds != nil {
		seeds.reaches, seeds.tries = r.reaches, &r.literalTry
	}
	c, g := r.c, r.gens[ti]
	if ti != 0 || r.opts.Checkpoint == nil {
		h, err = c.search(tctx, r.ctx, r.s, g, seeds, 0, n, &r.res, &r.columnsOnly)
		return h, false, err
	}
	// The checkpoint comes after the first databases of the first
	// tier, where most differences show.
	first := min(n, r.opts.CheckpointAfter)
	h, err = c.search(tctx, r.ctx, r.s, g, seeds, 0, first, &r.res, &r.columnsOnly)
	if err == nil && h == nil && !r.res.CannotExecute && !c.columnsProved && r.opts.Checkpoint() {
		return nil, true, nil
	}
	if err == nil && h == nil && !r.res.CannotExecute && !c.columnsProved {
		h, err = c.search(tctx, r.ctx, r.s, g, seeds, first, n, &r.res, &r.columnsOnly)
	}
	return h, false, err
}

// permutedLookahead is how many more databases a search tries once the
// results have differed in column order only.
const permutedLookahead = 32

// minimize shrinks h under the schema's constraints alone (the smallest
// real counterexample, even when a typical one was found) within the
// shrink budget, and returns its counterexample.
func (c *comparer) minimize(ctx context.Context, s *catalog.Schema, h *hit, rules constraints, res *Result) *Counterexample {
	shrinkCtx, cancel := context.WithTimeout(ctx, c.opts.ShrinkBudget)
	defer cancel()
	c.lite.Rows = true // the candidates share rows
	db, out := shrink(shrinkCtx, s, c, cloneDB(h.db), h.out, rules)
	ce := c.counterexample(s, db, out)
	if msg := legalCounterexample(s, ce.Database, c.opts.TrustForeignKeys); msg != "" {
		// Every step keeps the constraints, so this is a bug in the
		// shrinker: the database found, checked before, is reported
		// instead.
		res.Illegal++
		slog.Debug("refute: minimized counterexample breaks a constraint; reporting it unminimized", "violation", msg)
		ce = c.counterexample(s, h.db, h.out)
	}
	return ce
}

// legalCounterexample is the safety net under every reported database:
// the first constraint of the schema the engine would enforce that db
// breaks (NOT NULL, keys, foreign keys where trusted, declared widths,
// CHECKs, unique indexes, partition bounds, generated values, enum
// labels), or "" when it breaks none.
func legalCounterexample(s *catalog.Schema, db exec.Database, trustFK bool) string {
	return validate(s, db, trustFK)
}

// hit is a database on which the plans differ, before minimization.
type hit struct {
	db  exec.Database
	out outcome
}

// search tries databases from to n of g within sctx (the search's budget;
// ctx is the caller's), counting into res: seeds' databases (nil: none)
// where seeds takes a turn, otherwise g's random ones, numbered from 0
// apart from the seeds. It returns the first database that tells the
// plans apart, or nil.
func (c *comparer) search(sctx, ctx context.Context, s *catalog.Schema, g *generator, seeds *seeder, from, n int, res *Result, columnsOnly **hit) (*hit, error) {
	for i := from; i < n; i++ {
		if sctx.Err() != nil {
			res.Cut = true
			return nil, nil
		}
		db := seeds.database(i)
		if db == nil {
			db = g.instance(c.opts.Seed, i-seeds.count())
		}
		if g.cannot != "" {
			res.CannotExecute = true
			res.Reason = "cannot execute: constraints not modelled: " + g.cannot
			return nil, nil
		}
		// The generator keeps the declared constraints by construction;
		// the assumptions of a typical tier need checking, as repairing
		// a reference may set it NULL and a row may fail to generate.
		if (g.rules.noNulls || g.rules.nonEmpty) && g.rules.assumptionBroken(s, db) != "" {
			g.recycle()
			continue // repairing a reference broke an assumption: not a database of this tier
		}
		out, err := c.run(sctx, db)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("refute: %w", ctx.Err())
			}
			if errors.Is(err, exec.ErrCannotExecute) {
				res.CannotExecute = true
				res.Reason = "cannot execute: " + err.Error()
				return nil, nil
			}
			res.Cut = true
			return nil, nil // the budget ran out inside an execution
		}
		res.Instances++
		if out.ref != nil && len(out.ref.Rows) > 0 {
			res.NonEmpty++
		}
		if out.kind != skip {
			for name := range c.unpopulated {
				if len(db[name]) > 0 {
					delete(c.unpopulated, name)
				}
			}
		}
		switch out.kind {
		case skip:
			res.Skipped++
		case differ:
			if msg := legalCounterexample(s, db, c.opts.TrustForeignKeys); msg != "" {
				res.Illegal++
				slog.Debug("refute: a generated database breaks a constraint; not reported", "violation", msg)
				break
			}
			g.keep()
			return &hit{db: db, out: out}, nil
		case permuted, reordered:
			if msg := legalCounterexample(s, db, c.opts.TrustForeignKeys); msg != "" {
				res.Illegal++
				slog.Debug("refute: a generated database breaks a constraint; not reported", "violation", msg)
				break
			}
			// A difference in column or row order only is kept in case
			// no stronger one turns up; the search then looks a little
			// further, not to its end: such queries usually agree on
			// everything else.
			if *columnsOnly == nil {
				g.keep()
				*columnsOnly = &hit{db: db, out: out}
				n = min(n, i+1+permutedLookahead)
				if f := c.opts.EquivalentUpToColumnOrder; out.kind == permuted && f != nil && f() {
					c.columnsProved = true
					return nil, nil
				}
				continue
			}
		}
		g.recycle() // db is kept nowhere: the next database may reuse its memory
	}
	return nil, nil
}
