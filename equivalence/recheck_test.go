package equivalence_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// The tests in recheck_*_test.go take every counterexample the judge
// reports and load it into the real engine of its dialect: a
// counterexample that does not reproduce there is a wrong proved
// not_equivalent label. RECHECK_FULL=1 judges every pair with the judge's
// default refutation budget; the default run uses a shorter one (and, for
// PostgreSQL, every pair too: the suites are small).

// recheckBudget is the refutation budget of the re-check runs.
func recheckBudget() time.Duration {
	if os.Getenv("RECHECK_FULL") != "" {
		return equivalence.DefaultRefuteBudget
	}
	return 5 * time.Millisecond
}

// engineRun is a query's result on the real engine: rows of canonical
// values (numbers by value, text and numbers distinct, NULL as "NULL").
type engineRun struct {
	rows [][]string
	err  error
}

// orderTies returns the sort-key groups of the reference's and the
// candidate's rows on the loaded database (see exec.Result.Ties), or an
// error when they cannot be had; only asked for when both results order
// and hold the same bag.
type orderTies func() (ref, cand []int, err error)

// recheckOutcome classifies what the real engine showed.
type recheckOutcome struct {
	reproduces bool
	// class names the outcome for the report.
	class string
}

// recheck decides whether the real engine's results differ the way the
// judge's counterexample says: as bags (or, where both queries order,
// across sort-key peer groups), or, for a column-order-only
// counterexample, in column order alone.
func recheck(ce *equivalence.Counterexample, ref, cand engineRun, bothOrdered bool, ties orderTies) recheckOutcome {
	if ref.err != nil || cand.err != nil {
		return recheckOutcome{false, "query error on the real engine"}
	}
	o := recheckDiffer(ce, ref, cand, bothOrdered, ties)
	if len(ref.rows) != ce.Reference.Count || len(cand.rows) != ce.Candidate.Count {
		o.class += "; result sizes differ from the judge's"
	}
	return o
}

func recheckDiffer(ce *equivalence.Counterexample, ref, cand engineRun, bothOrdered bool, ties orderTies) recheckOutcome {
	width := func(rows [][]string) int {
		if len(rows) == 0 {
			return -1
		}
		return len(rows[0])
	}
	if len(ref.rows) != len(cand.rows) || (len(ref.rows) > 0 && width(ref.rows) != width(cand.rows)) {
		if ce.ColumnOrderOnly {
			return recheckOutcome{true, "reproduces (more than column order)"}
		}
		return recheckOutcome{true, "reproduces"}
	}
	if ce.ColumnOrderOnly {
		if !bagsDiffer(ref.rows, cand.rows, nil) {
			return recheckOutcome{false, "column-order-only counterexample: same columns in the same order"}
		}
		found := false
		permutations(width(ref.rows), func(p []int) bool {
			found = !bagsDiffer(ref.rows, cand.rows, p)
			return found
		})
		if found {
			return recheckOutcome{true, "reproduces (column order only)"}
		}
		return recheckOutcome{true, "reproduces (more than column order)"}
	}
	if bagsDiffer(ref.rows, cand.rows, nil) {
		return recheckOutcome{true, "reproduces"}
	}
	if ce.RowOrderOnly {
		return recheckRowOrder(ref, ties)
	}
	if !bothOrdered {
		return recheckOutcome{false, "same bag of rows"}
	}
	rt, ct, err := ties()
	if err != nil {
		return recheckOutcome{false, "same bag; order not verifiable: " + err.Error()}
	}
	if len(rt) != len(ref.rows) || len(ct) != len(cand.rows) {
		return recheckOutcome{false, "same bag; executor's row count differs from the engine's"}
	}
	// Rows never leave their peer group, whatever order the engine picks
	// within it: compare segment by segment between positions that are
	// group boundaries on both sides.
	start := 0
	for p := 1; p <= len(ref.rows); p++ {
		if p < len(ref.rows) && (rt[p] == rt[p-1] || ct[p] == ct[p-1]) {
			continue
		}
		if bagsDiffer(ref.rows[start:p], cand.rows[start:p], nil) {
			return recheckOutcome{true, "reproduces (row order)"}
		}
		start = p
	}
	return recheckOutcome{false, "same rows in an order the ORDER BY allows"}
}

// bagsDiffer compares two results as bags of rows, the candidate's
// columns taken in the order perm gives (nil: as they are).
func bagsDiffer(a, b [][]string, perm []int) bool {
	if len(a) != len(b) {
		return true
	}
	count := map[string]int{}
	for _, row := range a {
		count[strings.Join(row, "\x00")]++
	}
	for _, row := range b {
		r := row
		if perm != nil {
			if len(row) != len(perm) {
				return true
			}
			r = make([]string, len(row))
			for i := range row {
				r[i] = row[perm[i]]
			}
		}
		k := strings.Join(r, "\x00")
		if count[k] == 0 {
			return true
		}
		count[k]--
	}
	return false
}

// permutations calls f with each permutation of 0..n-1 (n ≤ 6) until f
// returns true.
func permutations(n int, f func([]int) bool) {
	if n > 6 {
		return
	}
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == n {
			return f(p)
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			if rec(k + 1) {
				return true
			}
			p[k], p[i] = p[i], p[k]
		}
		return false
	}
	rec(0)
}

// execTies plans both queries as the refuter does (normalized, no ESM+
// rewrites) and runs them on db, read back from the engine, for their
// sort-key groups.
func execTies(ctx context.Context, s *catalog.Schema, ref, cand string, db exec.Database, d catalog.Dialect) ([]int, []int, error) {
	var ties [2][]int
	for i, q := range []string{ref, cand} {
		p, err := planner.Plan(ctx, s, q, planner.Options{})
		if err != nil {
			return nil, nil, err
		}
		r, err := exec.ExecuteWith(ctx, p, db, exec.Options{Dialect: d})
		if err != nil {
			return nil, nil, err
		}
		if i == 1 && !r.Ordered {
			break // a row-order counterexample's candidate: its order is none
		}
		if !r.Ordered || len(r.Ties) != len(r.Rows) {
			return nil, nil, fmt.Errorf("query %d does not order", i+1)
		}
		ties[i] = r.Ties
	}
	return ties[0], ties[1], nil
}

// bothOrder reports whether both queries have a top-level ORDER BY.
func bothOrder(ctx context.Context, s *catalog.Schema, ref, cand string) bool {
	for _, q := range []string{ref, cand} {
		p, err := planner.Plan(ctx, s, q, planner.Options{})
		if err != nil || !p.Ordered {
			return false
		}
	}
	return true
}

// recheckTally counts outcomes and keeps the examples of each class.
type recheckTally struct {
	checked, reproduced int
	classes             map[string][]string
	failing             map[string]bool
}

func (t *recheckTally) add(o recheckOutcome, example string) {
	if t.classes == nil {
		t.classes, t.failing = map[string][]string{}, map[string]bool{}
	}
	t.checked++
	if o.reproduces {
		t.reproduced++
	} else {
		t.failing[o.class] = true
	}
	t.classes[o.class] = append(t.classes[o.class], example)
}

// report logs the tally and fails the test for every counterexample
// that does not reproduce.
func (t *recheckTally) report(tb testing.TB, engine string) {
	tb.Logf("%s: %d counterexamples re-checked, %d reproduce", engine, t.checked, t.reproduced)
	keys := make([]string, 0, len(t.classes))
	for k := range t.classes {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(t.classes[keys[i]]) > len(t.classes[keys[j]]) })
	for _, k := range keys {
		tb.Logf("  %s: %d", k, len(t.classes[k]))
		if t.failing[k] {
			for _, ex := range t.classes[k] {
				tb.Errorf("%s: counterexample does not reproduce (%s):\n%s", engine, k, ex)
			}
		}
	}
}

func describe(id, ref, cand string, v equivalence.Verdict, r, c engineRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n  reference: %s\n  candidate: %s\n", id, ref, cand)
	for _, ins := range v.Counterexample.Inserts {
		b.WriteString("  " + ins + "\n")
	}
	fmt.Fprintf(&b, "  judge: %s\n  engine: reference %v (err %v), candidate %v (err %v)", v.Counterexample.String(), r.rows, r.err, c.rows, c.err)
	return b.String()
}

// recheckRowOrder checks a row-order counterexample: the engine's
// reference result holds two different rows in different peer groups
// of its ORDER BY, an order the candidate, without one, need not give.
func recheckRowOrder(ref engineRun, ties orderTies) recheckOutcome {
	rt, _, err := ties()
	if err != nil {
		return recheckOutcome{false, "row-order counterexample; order not verifiable: " + err.Error()}
	}
	if len(rt) != len(ref.rows) {
		return recheckOutcome{false, "row-order counterexample; executor's row count differs from the engine's"}
	}
	for p := range ref.rows {
		for q := p + 1; q < len(ref.rows); q++ {
			if rt[p] != rt[q] && strings.Join(ref.rows[p], "\x00") != strings.Join(ref.rows[q], "\x00") {
				return recheckOutcome{true, "reproduces (row order: the candidate has no ORDER BY)"}
			}
		}
	}
	return recheckOutcome{false, "row-order counterexample: every row ties or the rows are alike"}
}
