package refute

import (
	"context"
	"errors"
	"slices"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The comparer runs both plans on a database and classifies what they
// return: the same, different, not comparable (skip), or different in
// column or row order only.

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

// newComparer compares ref and cand on databases of s, running them in
// scratch; the tables read start unpopulated.
func newComparer(s *catalog.Schema, ref, cand *plan.Plan, opts Options, scratch *exec.Scratch, read map[string]bool) *comparer {
	c := &comparer{ref: ref, cand: cand, opts: opts, engine: exec.Options{Dialect: s.Dialect, Scratch: scratch}}
	c.unpopulated = make(map[string]bool, len(read))
	for name := range read {
		if t := s.Table(name); t != nil && !t.IsView() {
			c.unpopulated[name] = true
		}
	}
	c.lite.Recycle = true // run is done with each converted database when it returns
	return c
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
