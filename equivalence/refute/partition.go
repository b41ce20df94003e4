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

// Partition is the outcome of running several plans on the same
// generated databases: plans that returned different results on some
// database are in different classes. Plans in one class agreed on every
// database tried, which proves nothing about their equivalence; plans in
// different classes are proved different by the database that split them.
type Partition struct {
	// Classes lists plan indexes, each class in input order, the classes
	// in order of their first member. Plans that are nil or cannot be
	// executed are in no class.
	Classes [][]int
	// CannotExecute maps the index of each plan the executor does not
	// model to the reason.
	CannotExecute map[int]string
	// Stats holds one entry per plan (zero for nil plans).
	Stats []PlanStats
	// Instances is the number of databases generated.
	Instances int
	// Splits are the databases that split a class, in the order found;
	// Witness names, per pair of classes, the one that tells them apart.
	Splits []exec.Database `json:"-"`
	// Agree and Compared count, per pair of plans (Agree[i][j], i < j),
	// the databases on which both had a comparable result and at least
	// one had rows (Compared), and those of them on which the results
	// were the same (Agree). Their ratio is a soft agreement: two plans
	// that differ only on rare edge cases agree on most databases.
	Agree, Compared [][]int
	// Elapsed is the whole run.
	Elapsed time.Duration
}

// minAgreementInstances is the number of databases run even after every
// class holds a single plan, so that agreement rates rest on a sample.
const minAgreementInstances = 200

// PlanStats counts how one plan fared on the generated databases.
type PlanStats struct {
	// Ran counts databases with a comparable result; Empty those of them
	// whose result had no rows.
	Ran, Empty int
	// Skipped counts databases without a comparable result: a query
	// error (division by zero, a scalar subquery of several rows in
	// PostgreSQL) or a nondeterministic result.
	Skipped int
}

// PartitionPlans runs every non-nil plan on the same databases, generated
// once from the schema and the literals of all plans, and splits the
// plans into classes of identical results. Results compare the way
// Refute compares a pair: as bags, in order only where both are ordered,
// up to column order under Options.IgnoreColumnOrder. A plan whose result
// on a database is not comparable (a query error, a nondeterministic
// result) gives no evidence about that database and stays in the class
// it is in. Plans with different numbers of output columns start in
// different classes (see byArity).
//
// Options.Budget bounds the whole run (default 20 ms, as for a pair, so
// callers partitioning many plans should give more). The run stops early
// once every class holds a single plan and enough databases ran for
// agreement rates. The error is non-nil only for a nil schema or a ctx
// that ended; the Partition then holds the classes found before it did.
func PartitionPlans(ctx context.Context, s *catalog.Schema, plans []*plan.Plan, opts Options) (Partition, error) {
	start := time.Now()
	if s == nil {
		return Partition{}, errors.New("refute: partition: schema is required")
	}
	opts = opts.withDefaults()
	s = generationSchema(s) // deferrable foreign keys hold in every committed state
	part := Partition{CannotExecute: map[int]string{}, Stats: make([]PlanStats, len(plans)),
		Agree: make([][]int, len(plans)), Compared: make([][]int, len(plans))}
	for i := range plans {
		part.Agree[i], part.Compared[i] = make([]int, len(plans)), make([]int, len(plans))
	}
	var live []int
	var nonNil []*plan.Plan
	for i, p := range plans {
		if p != nil && p.Root != nil {
			live = append(live, i)
			nonNil = append(nonNil, p)
		}
	}
	if len(live) == 0 {
		part.Elapsed = time.Since(start)
		return part, nil
	}
	// Literals in a canonical order, so that the databases (and so the
	// partition) do not depend on the order the plans come in.
	fp := make(map[*plan.Plan]string, len(nonNil))
	for _, p := range nonNil {
		fp[p] = p.Fingerprint()
	}
	slices.SortStableFunc(nonNil, func(a, b *plan.Plan) int { return strings.Compare(fp[a], fp[b]) })
	rules := opts.constraints()
	if opts.NonEmpty {
		rules.read = readTables(nonNil...)
	}
	g := newGenerator(s, rules, collectLiteralsFor(s.Dialect, withRulePlans(s, nonNil...)...))
	classes := dropCannot(byArity(plans, live), part.CannotExecute)
	sctx, cancel := context.WithTimeout(ctx, opts.Budget)
	defer cancel()
	results := make([]*exec.Result, len(plans))
	for inst := 0; inst < opts.MaxInstances && sctx.Err() == nil && (inst < minAgreementInstances || !allSingletons(classes)); inst++ {
		db := g.instance(opts.Seed, inst)
		if g.cannot != "" {
			// The databases may not be ones the engine accepts: no split
			// on them can be trusted.
			for _, i := range live {
				part.CannotExecute[i] = "constraints not modelled: " + g.cannot
			}
			classes = nil
			break
		}
		if rules.check(s, db) != "" {
			continue // repairing a reference broke an assumption of opts
		}
		budgetOut := false
		for _, cl := range classes {
			for _, i := range cl {
				results[i] = nil
				r, err := exec.ExecuteWith(sctx, plans[i], db, exec.Options{Dialect: s.Dialect})
				switch {
				case err == nil && !r.Nondeterministic:
					results[i] = r
					part.Stats[i].Ran++
					if len(r.Rows) == 0 {
						part.Stats[i].Empty++
					}
				case err == nil || errors.Is(err, exec.ErrQuery):
					part.Stats[i].Skipped++
				case errors.Is(err, exec.ErrCannotExecute):
					part.CannotExecute[i] = err.Error()
				default:
					budgetOut = true // the budget ran out inside an execution
				}
				if budgetOut {
					break
				}
			}
			if budgetOut {
				break
			}
		}
		if budgetOut {
			// Results of this database are partial; a split on them would
			// still be sound, but stopping keeps every class's evidence on
			// the same databases.
			break
		}
		part.Instances++
		classes = dropCannot(classes, part.CannotExecute)
		part.count(live, results, opts.IgnoreColumnOrder)
		next, split := refine(classes, results, opts.IgnoreColumnOrder)
		if split {
			part.Splits = append(part.Splits, db)
		}
		classes = next
	}
	if part.Instances == 0 {
		// No database ran: nothing groups the plans.
		classes = nil
		for _, i := range live {
			if _, bad := part.CannotExecute[i]; !bad {
				classes = append(classes, []int{i})
			}
		}
	}
	part.Classes = classes
	part.Elapsed = time.Since(start)
	if err := ctx.Err(); err != nil {
		// The classes so far are sound (every split has its database);
		// the caller decides whether to use them.
		return part, fmt.Errorf("refute: partition: %w", err)
	}
	return part, nil
}

func (p *Partition) count(live []int, results []*exec.Result, ignoreColumnOrder bool) {
	for a, i := range live {
		ri := results[i]
		if ri == nil {
			continue
		}
		for _, j := range live[a+1:] {
			rj := results[j]
			if rj == nil || len(ri.Rows) == 0 && len(rj.Rows) == 0 {
				continue
			}
			p.Compared[i][j]++
			if !differs(ri, rj, ignoreColumnOrder) {
				p.Agree[i][j]++
			}
		}
	}
}

// AgreementRate is the share of compared databases on which plans i and j
// had the same result, and the number compared.
func (p Partition) AgreementRate(i, j int) (float64, int) {
	if i > j {
		i, j = j, i
	}
	if i < 0 || j >= len(p.Compared) || p.Compared[i][j] == 0 {
		return 0, 0
	}
	return float64(p.Agree[i][j]) / float64(p.Compared[i][j]), p.Compared[i][j]
}

// byArity groups plans by their number of output columns: results of
// different widths differ on every database where either has a row, so
// they start in different classes even if the search never fills the
// tables a query needs (a rare combination of rows).
func byArity(plans []*plan.Plan, live []int) [][]int {
	var classes [][]int
	at := map[int]int{}
	for _, i := range live {
		w := len(plans[i].Root.OutCols())
		k, ok := at[w]
		if !ok {
			k = len(classes)
			at[w] = k
			classes = append(classes, nil)
		}
		classes[k] = append(classes[k], i)
	}
	return classes
}

func allSingletons(classes [][]int) bool {
	for _, c := range classes {
		if len(c) > 1 {
			return false
		}
	}
	return true
}

func dropCannot(classes [][]int, cannot map[int]string) [][]int {
	if len(cannot) == 0 {
		return classes
	}
	var out [][]int
	for _, c := range classes {
		var kept []int
		for _, i := range c {
			if _, bad := cannot[i]; !bad {
				kept = append(kept, i)
			}
		}
		if len(kept) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// refine splits each class by the results on one database. Within a
// class, each plan joins the first subclass whose first comparable
// result does not differ from its own; plans without a comparable result
// join the largest subclass, as nothing sets them apart from it.
func refine(classes [][]int, results []*exec.Result, ignoreColumnOrder bool) ([][]int, bool) {
	var out [][]int
	split := false
	for _, c := range classes {
		var subs [][]int
		var reps []*exec.Result
		var blind []int
		for _, i := range c {
			r := results[i]
			if r == nil {
				blind = append(blind, i)
				continue
			}
			placed := false
			for k, rep := range reps {
				if !differs(rep, r, ignoreColumnOrder) {
					subs[k] = append(subs[k], i)
					placed = true
					break
				}
			}
			if !placed {
				subs = append(subs, []int{i})
				reps = append(reps, r)
			}
		}
		if len(subs) == 0 {
			out = append(out, c)
			continue
		}
		if len(subs) > 1 {
			split = true
		}
		if len(blind) > 0 {
			big := 0
			for k := range subs {
				if len(subs[k]) > len(subs[big]) {
					big = k
				}
			}
			subs[big] = mergeSorted(subs[big], blind)
		}
		out = append(out, subs...)
	}
	return out, split
}

func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || (i < len(a) && a[i] < b[j]) {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}

// Witness finds, among the databases that split classes, one on which
// plans a and b (from different classes) differ, and returns it as a
// counterexample with a as the reference side, minimized within
// opts.ShrinkBudget. It returns nil when none of them tells a and b
// apart (they were split by results compared through other plans, or a
// skipped one).
func (p Partition) Witness(ctx context.Context, s *catalog.Schema, a, b *plan.Plan, opts Options) *Counterexample {
	opts = opts.withDefaults()
	s = generationSchema(s)
	c := &comparer{ref: a, cand: b, opts: opts, engine: exec.Options{Dialect: s.Dialect}}
	for _, db := range p.Splits {
		out, err := c.run(ctx, db)
		if err != nil {
			return nil
		}
		if out.kind == differ {
			if legalCounterexample(s, db, opts.TrustForeignKeys) != "" {
				continue // never reported (see legalCounterexample)
			}
			sctx, cancel := context.WithTimeout(ctx, opts.ShrinkBudget)
			sdb, sout := shrink(sctx, s, c, cloneDB(db), out, opts.constraints())
			cancel()
			if legalCounterexample(s, sdb, opts.TrustForeignKeys) == "" {
				db, out = sdb, sout
			}
			ce := c.counterexample(s, db, out)
			ce.Needs = needs(s, ce.Database, readTables(a, b), constraints{})
			return ce
		}
	}
	return nil
}
