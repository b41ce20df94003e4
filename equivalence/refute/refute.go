// Package refute searches for a small database, consistent with a
// schema's declared constraints, on which two query plans return
// different results. A found database is a proof that the queries are
// not equivalent; finding none proves nothing, it only measures how hard
// the search tried.
//
// Soundness is the point: a reported difference must be one PostgreSQL
// would show on the same database. So generated databases satisfy every
// declared constraint, results compare as bags (in order only where the
// reference orders them, and then only across sort-key peer groups),
// nondeterministic results are skipped, and anything the executor cannot
// evaluate stops the search instead of being guessed.
package refute

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Options bound and tune the search. The zero value is usable.
type Options struct {
	// Budget bounds the search's wall-clock time; default 20 ms.
	Budget time.Duration
	// ShrinkBudget bounds minimization of a found counterexample on top
	// of Budget; default 10 ms.
	ShrinkBudget time.Duration
	// MaxInstances bounds the number of databases tried; default 2000.
	MaxInstances int
	// Seed makes the search reproducible; the same seed, schema and plans
	// try the same databases.
	Seed uint64
	// TrustForeignKeys makes generated databases satisfy declared foreign
	// keys; when false they may violate them, as SQLite (which does not
	// enforce them by default) allows.
	TrustForeignKeys bool
	// IgnoreColumnOrder compares rows up to one permutation of the
	// candidate's columns, for the judge's column_order: ignore policy.
	IgnoreColumnOrder bool
	// EquivalentUpToColumnOrder, when set, is asked once (IgnoreColumnOrder
	// false) when the results first differ in the order of their columns
	// only. True must mean the caller has proved the plans equivalent up
	// to the order of their columns, with no assumption beyond the
	// constraints the search keeps: then no database can show a stronger
	// difference, and the search stops there with the column-order
	// counterexample it would otherwise have reached after trying every
	// remaining database.
	EquivalentUpToColumnOrder func() bool
	// Dialect selects the SQL of the counterexample's INSERT statements.
	Dialect catalog.Dialect
	// MaxShownRows bounds the result rows kept per side; default 5.
	MaxShownRows int
	// NoNulls and NonEmpty narrow the search to databases that hold no
	// NULL in any stored column and no empty table. They are assumptions
	// about the data beyond the schema (a counterexample found under them
	// is still a counterexample under the schema alone, but a search that
	// finds none has not tried NULLs or empty tables): execution-labelled
	// benchmarks such as Spider come from databases like that, while the
	// schemas declare few NOT NULLs.
	NoNulls, NonEmpty bool
	// Checkpoint, when set, is called once, after CheckpointAfter
	// databases of the first tier showed no difference (or when that
	// tier ends sooner). True stops the search there, with no
	// counterexample and Result.Stopped set. The judge asks there for a
	// proof under an assumption that every database still to come from
	// that tier satisfies, which would make the rest of the search (the
	// costlier part for a pair that holds) pointless.
	Checkpoint      func() bool
	CheckpointAfter int
}

// constraints are what every generated database satisfies.
func (o Options) constraints() constraints {
	return constraints{trustFK: o.TrustForeignKeys, noNulls: o.NoNulls, nonEmpty: o.NonEmpty}
}

func (o Options) withDefaults() Options {
	if o.Budget <= 0 {
		o.Budget = 20 * time.Millisecond
	}
	if o.ShrinkBudget <= 0 {
		o.ShrinkBudget = 10 * time.Millisecond
	}
	if o.MaxInstances <= 0 {
		o.MaxInstances = 2000
	}
	if o.MaxShownRows <= 0 {
		o.MaxShownRows = 5
	}
	return o
}

// Result is the outcome of a search.
type Result struct {
	// Found is true when Counterexample tells the queries apart.
	Found          bool
	Counterexample *Counterexample
	// Instances is the number of databases both plans ran on; Typical of
	// them were typical databases (see Needs) on which they agreed.
	Instances, Typical int
	// Skipped counts databases on which the comparison was not possible
	// (a nondeterministic result, or a query error on either side).
	Skipped int
	// NonEmpty counts databases on which the reference returned a row:
	// a rough measure of how much of the query the search exercised.
	NonEmpty int
	// Unpopulated lists, sorted, the tables the queries read that no
	// compared database gave a row (a table of an unmodelled NOT NULL
	// column, a CHECK the generator never met): the search says nothing
	// about data there, so its agreement is no evidence of equivalence.
	// Set only when nothing was found.
	Unpopulated []string
	// CannotExecute is true when the executor does not model one of the
	// plans; Reason then says what.
	CannotExecute bool
	// Reason says why nothing was found, when Found is false.
	Reason string
	// Illegal counts databases on which the plans differed but that
	// broke a constraint of the schema when checked before reporting
	// (see legalCounterexample): never reported. Nonzero means the
	// generator let one through, which is a bug.
	Illegal int
	// Stopped is true when Options.Checkpoint ended the search.
	Stopped bool
	// Cut is true when the budget ended the search before its instance
	// count did: on an idle machine it would have tried more databases.
	Cut bool
	// Elapsed is the whole search; FoundAfter the time until the first
	// difference, before minimization.
	Elapsed, FoundAfter time.Duration
	// DisplayOnly, when not empty, shows a database's results that agree
	// under = (the comparison) but print differently: numeric scale
	// (1.0, 1.00), -0 and 0, a real and its float8 widening, intervals
	// spelled apart. Not a counterexample; see compare.go.
	DisplayOnly string
}

// Counterexample is a database on which the queries differ.
type Counterexample struct {
	// Inserts fill the database, parents before children, in the
	// dialect of Options.Dialect. Tables not named are empty.
	Inserts []string
	// Rows is the number of rows in the database.
	Rows int
	// Needs is empty when the difference showed on a typical database
	// (see tiers.go). Otherwise the search found none there, and Needs
	// lists what the minimized database has beyond typical data
	// (NeedsNull, NeedsEmptyTable, NeedsOrphanedRow).
	Needs []string
	// ColumnOrderOnly is true when the results differ only in the order
	// of their columns (Options.IgnoreColumnOrder is false, and no
	// database showed a stronger difference).
	ColumnOrderOnly bool
	// RowOrderOnly is true when the results hold the same rows and the
	// reference orders them in a way the candidate, without an ORDER BY,
	// does not promise: two different rows in different sort groups.
	RowOrderOnly bool
	// Duplicates and Ties say what the two results' difference is made
	// of (see shapes in tiers.go): rows that differ only in how often
	// they repeat, or a LIMIT cutting through rows tied on the sort key.
	Duplicates, Ties bool
	// Params are the values bound to the queries' parameters ($1, ...),
	// in order; empty for queries without parameters.
	Params []Param
	// Reference and Candidate are the two results.
	Reference, Candidate Output
	// Database is the counterexample itself, for re-running.
	Database exec.Database `json:"-"`
}

// Output is one query's result on the counterexample.
type Output struct {
	Count int        // rows in the result
	Rows  [][]string // the first rows, NULL written as "NULL"
}

// Refute searches for a database on which ref and cand differ: first
// among typical databases (see Needs), then among all the schema allows.
// The error is non-nil only for a cancelled ctx or unusable input;
// running out of budget is a Result with a Reason.
//
// Plans with parameters are searched for values of the parameters too
// (see params.go): the counterexample's Params bind them.
func Refute(ctx context.Context, s *catalog.Schema, ref, cand *plan.Plan, opts Options) (Result, error) {
	if s == nil || ref == nil || cand == nil || ref.Root == nil || cand.Root == nil {
		return Result{}, errors.New("refute: schema and both plans are required")
	}
	opts = opts.withDefaults()
	params := paramsOf(ref, cand)
	if len(params) == 0 {
		return refute(ctx, s, ref, cand, opts)
	}
	return refuteParams(ctx, s, ref, cand, params, opts)
}

// refuteParams searches under each of a few assignments of values to the
// parameters in turn: the first (the queries' own literals) gets half the
// budget and instances, the others share the rest.
func refuteParams(ctx context.Context, s *catalog.Schema, ref, cand *plan.Plan, params []paramSlot, opts Options) (Result, error) {
	start := time.Now()
	as := assignments(s, params, withRulePlans(s, ref, cand)...)
	var total Result
	for i, a := range as {
		o := opts
		if len(as) > 1 {
			share := 2 * (len(as) - 1)
			if i == 0 {
				share = 2
			}
			o.Budget = max(opts.Budget/time.Duration(share), time.Millisecond)
			o.MaxInstances = max(opts.MaxInstances/share, 1)
		}
		res, err := refute(ctx, s, bindParams(ref, a), bindParams(cand, a), o)
		if err != nil {
			return total, err
		}
		total.Instances += res.Instances
		total.Typical += res.Typical
		total.Skipped += res.Skipped
		total.NonEmpty += res.NonEmpty
		total.Illegal += res.Illegal
		// A table is unpopulated when no assignment's search gave it a row.
		if i == 0 {
			total.Unpopulated = res.Unpopulated
		} else {
			total.Unpopulated = slices.DeleteFunc(total.Unpopulated, func(name string) bool { return !slices.Contains(res.Unpopulated, name) })
		}
		total.Cut = total.Cut || res.Cut
		if total.DisplayOnly == "" {
			total.DisplayOnly = res.DisplayOnly
		}
		if res.Found {
			total.Found, total.Counterexample = true, res.Counterexample
			total.Counterexample.Params = a
			total.FoundAfter = time.Since(start) - res.Elapsed + res.FoundAfter
			break
		}
		if res.CannotExecute {
			total.CannotExecute, total.Reason = true, res.Reason
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	if !total.Found && !total.CannotExecute {
		total.Reason = fmt.Sprintf("no difference on %d databases under %d assignments of the parameters (%d not comparable)",
			total.Instances, len(as), total.Skipped)
		if len(total.Unpopulated) > 0 {
			total.Reason += "; no database gave a row to " + strings.Join(total.Unpopulated, ", ")
		}
	}
	if total.Found || total.CannotExecute {
		total.Unpopulated = nil
	}
	total.Elapsed = time.Since(start)
	return total, nil
}

// refute is Refute for plans without parameters.
func refute(ctx context.Context, s *catalog.Schema, ref, cand *plan.Plan, opts Options) (Result, error) {
	start := time.Now()
	s = generationSchema(s) // deferrable foreign keys hold in every committed state
	lits := collectLiteralsFor(s.Dialect, withRulePlans(s, ref, cand)...)
	lits.alongForeignKeys(s)
	read := readTables(ref, cand)
	targets := collectTargets(ref, cand)
	// The comparer runs its plans one execution after another: they
	// share one Scratch, which the next search reuses.
	scratch := exec.GetScratch()
	defer scratch.Release()
	c := newComparer(s, ref, cand, opts, scratch, read)
	sctx, cancel := context.WithTimeout(ctx, opts.Budget)
	defer cancel()

	r := &refuteRun{ctx: ctx, sctx: sctx, s: s, ref: ref, opts: opts, start: start, c: c, targets: targets, literalTry: -1}
	r.all, r.tiers = searchTiers(s, ref, cand, read, opts)
	r.gens = newGenerators(s, lits, r.tiers...)
	if why := unmodelledTables(s, r.gens[len(r.gens)-1].order); why != "" {
		// The engine's constraints on a table the search fills cannot
		// be kept: no database it writes could be trusted.
		r.res.CannotExecute, r.res.Reason = true, "cannot execute: "+why
		return r.done()
	}
	for ti := range r.tiers {
		// The first tier gets half the instances and half the budget:
		// most differences show on typical data, and quickly.
		typicalTier := ti == 0 && len(r.tiers) > 1
		h, stopped, err := r.searchTier(ti, typicalTier)
		if err != nil {
			return r.res, err
		}
		if stopped {
			r.res.Stopped = true
			return r.done()
		}
		if r.res.CannotExecute {
			return r.done()
		}
		if c.columnsProved {
			break
		}
		if h != nil {
			r.res.FoundAfter = time.Since(start)
			ce := c.minimize(ctx, s, h, r.tiers[len(r.tiers)-1], &r.res)
			if len(r.tiers) > 1 && !typicalTier {
				ce.Needs = needs(s, ce.Database, read, r.all)
			}
			if nonIntegers(s, ce.Database) {
				ce.Needs = append(ce.Needs, NeedsNonInteger)
			}
			return r.found(ce)
		}
		if typicalTier {
			r.res.Typical = r.res.Instances
		}
	}
	if r.columnsOnly != nil {
		r.res.FoundAfter = time.Since(start)
		ce := c.minimize(ctx, s, r.columnsOnly, r.all, &r.res)
		ce.ColumnOrderOnly = r.columnsOnly.out.kind == permuted
		ce.RowOrderOnly = r.columnsOnly.out.kind == reordered
		return r.found(ce)
	}
	r.res.Reason = fmt.Sprintf("no difference on %d databases (%d not comparable)", r.res.Instances, r.res.Skipped)
	r.res.Unpopulated = c.unpopulatedTables()
	if len(r.res.Unpopulated) > 0 {
		r.res.Reason += "; no database gave a row to " + strings.Join(r.res.Unpopulated, ", ")
	}
	r.res.DisplayOnly = c.displayOnly
	return r.done()
}
