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
	"log/slog"
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
	c := &comparer{ref: ref, cand: cand, opts: opts, engine: exec.Options{Dialect: s.Dialect, Scratch: scratch}}
	c.unpopulated = make(map[string]bool, len(read))
	for name := range read {
		if t := s.Table(name); t != nil && !t.IsView() {
			c.unpopulated[name] = true
		}
	}
	c.lite.Recycle = true // run is done with each converted database when it returns
	sctx, cancel := context.WithTimeout(ctx, opts.Budget)
	defer cancel()

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
	var res Result
	var columnsOnly *hit
	found := func(ce *Counterexample) (Result, error) {
		res.Found, res.Counterexample = true, ce
		res.Elapsed = time.Since(start)
		return res, nil
	}
	gens := newGenerators(s, lits, tiers...)
	// A literal base must let the reference return a row (seeds.go);
	// its own executions, apart from the comparer's scratch memory.
	reaches := func(db exec.Database) bool {
		r, err := exec.ExecuteWith(sctx, ref, db, exec.Options{Dialect: s.Dialect})
		return err == nil && len(r.Rows) > 0
	}
	literalTry := -1
	if why := unmodelledTables(s, gens[len(gens)-1].order); why != "" {
		// The engine's constraints on a table the search fills cannot
		// be kept: no database it writes could be trusted.
		res.CannotExecute, res.Reason = true, "cannot execute: "+why
		res.Elapsed = time.Since(start)
		return res, nil
	}
	for ti := range tiers {
		// The first tier gets half the instances and half the budget:
		// most differences show on typical data, and quickly.
		typicalTier := ti == 0 && len(tiers) > 1
		n := opts.MaxInstances - res.Instances
		tctx, cancelTier := sctx, context.CancelFunc(func() {})
		if typicalTier {
			n = opts.MaxInstances / 2
			tctx, cancelTier = context.WithTimeout(sctx, opts.Budget/2)
		}
		var h *hit
		var err error
		var seeds *seeder
		// The targets' databases come early, a quarter of the tier at
		// most (see seeds.go); the wider tier's own are built on its
		// bases, and an emptied parent's only there.
		seeds = newSeeder(gens[ti], gens[0], opts.Seed, targets, n/4)
		if seeds != nil {
			seeds.reaches, seeds.tries = reaches, &literalTry
		}
		if ti == 0 && opts.Checkpoint != nil {
			// The checkpoint comes after the first databases of the
			// first tier, where most differences show.
			first := min(n, opts.CheckpointAfter)
			h, err = c.search(tctx, ctx, s, gens[ti], seeds, 0, first, &res, &columnsOnly)
			if err == nil && h == nil && !res.CannotExecute && !c.columnsProved && opts.Checkpoint() {
				cancelTier()
				res.Stopped = true
				res.Elapsed = time.Since(start)
				return res, nil
			}
			if err == nil && h == nil && !res.CannotExecute && !c.columnsProved {
				h, err = c.search(tctx, ctx, s, gens[ti], seeds, first, n, &res, &columnsOnly)
			}
		} else {
			h, err = c.search(tctx, ctx, s, gens[ti], seeds, 0, n, &res, &columnsOnly)
		}
		cancelTier()
		if err != nil {
			return res, err
		}
		if res.CannotExecute {
			res.Elapsed = time.Since(start)
			return res, nil
		}
		if c.columnsProved {
			break
		}
		if h != nil {
			res.FoundAfter = time.Since(start)
			ce := c.minimize(ctx, s, h, tiers[len(tiers)-1], &res)
			if len(tiers) > 1 && !typicalTier {
				ce.Needs = needs(s, ce.Database, read, all)
			}
			if nonIntegers(s, ce.Database) {
				ce.Needs = append(ce.Needs, NeedsNonInteger)
			}
			return found(ce)
		}
		if typicalTier {
			res.Typical = res.Instances
		}
	}
	if columnsOnly != nil {
		res.FoundAfter = time.Since(start)
		ce := c.minimize(ctx, s, columnsOnly, all, &res)
		ce.ColumnOrderOnly = columnsOnly.out.kind == permuted
		ce.RowOrderOnly = columnsOnly.out.kind == reordered
		return found(ce)
	}
	res.Reason = fmt.Sprintf("no difference on %d databases (%d not comparable)", res.Instances, res.Skipped)
	res.Unpopulated = c.unpopulatedTables()
	if len(res.Unpopulated) > 0 {
		res.Reason += "; no database gave a row to " + strings.Join(res.Unpopulated, ", ")
	}
	res.DisplayOnly = c.displayOnly
	res.Elapsed = time.Since(start)
	return res, nil
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

type outcomeKind int

const (
	same outcomeKind = iota
	differ
	skip
	// permuted: the results differ, but only in the order of their
	// columns (under a strict column-order policy).
	permuted
	// reordered: the results hold the same rows, the reference orders
	// them, and the candidate, with no ORDER BY, need not: two different
	// rows fall in different sort groups of the reference (orderShows).
	reordered
)

type outcome struct {
	kind      outcomeKind
	ref, cand *exec.Result
}

type comparer struct {
	ref, cand *plan.Plan
	opts      Options
	// engine is the schema's dialect: a SQLite schema's queries run with
	// SQLite's semantics (affinity, integer division, comparisons).
	engine exec.Options
	// columnsProved is set when Options.EquivalentUpToColumnOrder said
	// yes: the search is over.
	columnsProved bool
	// lite converts databases for a SQLite schema's plans.
	lite exec.SQLiteConverter
	// displayOnly is the first display-only difference seen.
	displayOnly string
	// unpopulated holds the tables the plans read that no compared
	// database has given a row yet (see Result.Unpopulated).
	unpopulated map[string]bool
}

// unpopulatedTables lists c.unpopulated sorted; nil when empty.
func (c *comparer) unpopulatedTables() []string {
	if len(c.unpopulated) == 0 {
		return nil
	}
	out := make([]string, 0, len(c.unpopulated))
	for name := range c.unpopulated {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// run executes both plans on db and compares them. The error is
// ErrCannotExecute or a context error; query errors are outcomes.
func (c *comparer) run(ctx context.Context, db exec.Database) (outcome, error) {
	if c.engine.Dialect == catalog.SQLite {
		db = c.lite.Database(db) // once, not at every scan of either plan
	}
	r1, err1 := exec.ExecuteWith(ctx, c.ref, db, c.engine)
	if err1 != nil && !errors.Is(err1, exec.ErrQuery) {
		return outcome{}, err1
	}
	r2, err2 := exec.ExecuteWith(ctx, c.cand, db, c.engine)
	if err2 != nil && !errors.Is(err2, exec.ErrQuery) {
		return outcome{}, err2
	}
	out := classify(r1, err1, r2, err2, c.opts.IgnoreColumnOrder)
	if out.kind == skip && err1 == nil && err2 == nil && countFixed(r1) && countFixed(r2) && len(r1.Rows) != len(r2.Rows) {
		// Whichever rows a top-level LIMIT keeps, the sizes differ.
		out.kind = differ
	}
	if out.kind == skip && err1 == nil && err2 == nil && (r1.OnlyPicks || r2.OnlyPicks) {
		if out, err1 = c.compareChoices(ctx, db, r1, r2); err1 != nil {
			return outcome{}, err1
		}
	}
	if out.kind == same && c.displayOnly == "" {
		c.displayOnly = displayDiffers(r1, r2)
	}
	return out, nil
}

// classify compares two executions' results (err: a query error, such
// as a division by zero). A query error on one side only is not counted
// as a difference: PostgreSQL may evaluate conjuncts and join inputs in
// any order, so whether a division by zero is reached depends on the
// physical plan, and equivalent rewrites (predicate pushdown) change it.
// Results that depend on the database's free choices are not compared.
func classify(r1 *exec.Result, err1 error, r2 *exec.Result, err2 error, ignoreColumnOrder bool) outcome {
	out := outcome{ref: r1, cand: r2}
	switch {
	case err1 != nil || err2 != nil || r1.Nondeterministic || r2.Nondeterministic:
		out.kind = skip
	case !differs(r1, r2, ignoreColumnOrder):
		out.kind = same
		if r1.Ordered && !ordersRows(r2) && orderShows(r1) {
			out.kind = reordered
		}
	case !ignoreColumnOrder && !differs(r1, r2, true):
		out.kind = permuted
	default:
		out.kind = differ
	}
	return out
}

func (c *comparer) counterexample(s *catalog.Schema, db exec.Database, out outcome) *Counterexample {
	db = dropUnread(s, db, readTables(c.ref, c.cand))
	ce := &Counterexample{Database: db, Inserts: inserts(s, db, c.opts.Dialect)}
	for _, rows := range db {
		ce.Rows += len(rows)
	}
	show := func(r *exec.Result) Output {
		o := Output{Count: len(r.Rows)}
		for i, row := range r.Rows {
			if i == c.opts.MaxShownRows {
				break
			}
			vals := make([]string, len(row))
			for j, v := range row {
				vals[j] = v.String()
			}
			o.Rows = append(o.Rows, vals)
		}
		return o
	}
	ce.Reference, ce.Candidate = show(out.ref), show(out.cand)
	if out.kind == differ {
		ce.Duplicates, ce.Ties = onlyDuplicates(out.ref, out.cand, c.opts.IgnoreColumnOrder), cutTies(out.ref, out.cand)
	}
	return ce
}
