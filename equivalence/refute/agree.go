package refute

import (
	"context"
	"errors"
	"fmt"
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
	if s == nil || a == nil || b == nil || a.Root == nil || b.Root == nil {
		return Agreement{}, errors.New("agree: schema and both plans are required")
	}
	opts = opts.withDefaults()
	lits := collectLiterals(a, b)
	read := readTables(a, b)
	c := &comparer{ref: a, cand: b, opts: opts, engine: exec.Options{Dialect: s.Dialect}}
	all := opts.constraints()
	all.read = read
	gens := []*generator{newGenerator(s, typical(read), lits), newGenerator(s, all, lits)}
	var res Agreement
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("agree: %w", err)
		}
		g := gens[i%2]
		db := g.instance(opts.Seed, i/2)
		if (g.rules.noNulls || g.rules.nonEmpty) && g.rules.check(s, db) != "" {
			res.Rejected++
			continue
		}
		if keep != nil && !keep(db) {
			res.Rejected++
			continue
		}
		out, err := c.run(ctx, db)
		if err != nil {
			if errors.Is(err, exec.ErrCannotExecute) {
				res.CannotExecute = true
				res.Reason = "cannot execute: " + err.Error()
				return res, nil
			}
			return res, fmt.Errorf("agree: %w", err)
		}
		res.Instances++
		switch out.kind {
		case skip:
			res.Skipped++
		case differ, permuted:
			if keep == nil {
				sctx, cancel := context.WithTimeout(ctx, max(opts.ShrinkBudget, 200*time.Millisecond))
				db, out = shrink(sctx, s, c, db, out, all)
				cancel()
			}
			res.Counterexample = c.counterexample(s, db, out)
			res.Counterexample.ColumnOrderOnly = out.kind == permuted
			return res, nil
		}
	}
	return res, nil
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
	s += fmt.Sprintf("  first: %d rows %v\n  second: %d rows %v", ce.Reference.Count, ce.Reference.Rows, ce.Candidate.Count, ce.Candidate.Rows)
	if ce.ColumnOrderOnly {
		s += " (column order only)"
	}
	return s
}
