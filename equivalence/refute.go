package equivalence

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The refute stage: a pair the prove stage left open is not equivalent
// when its structure shows a difference every database of the schema
// exposes, or when the counterexample search finds a database on which
// the two differ.

// Bounds beyond which the refuter does not search (see refutePair).
const (
	refuteMaxQueryBytes = 64 << 10
	refuteMaxPlanSize   = 2000
)

// refuteByStructure labels an open pair not equivalent when its
// structure alone shows a difference on every database (shapeDifferent).
// A difference that only some databases show (a LIMIT value, a flipped
// sort key, a missing ORDER BY) needs one: the search must find it.
func (j *judgement) refuteByStructure() {
	if j.open && shapeDifferent(j.ref, j.cand) {
		j.v.Label = NotEquivalent
	}
}

// structurallyDifferent reports whether the pair's structure shows or
// suggests a difference (shapeDifferent, likelyDifferent), computed
// once; the verdict keeps a likely difference in LeansDifferent.
func (j *judgement) structurallyDifferent() bool {
	if j.different == nil {
		why := likelyDifferent(j.ref, j.cand)
		d := shapeDifferent(j.ref, j.cand) || why != ""
		j.different = &d
		j.v.LeansDifferent = why
	}
	return *j.different
}

// refuteBySearch looks for a database that tells an unproved pair apart
// (a structural not_equivalent gains one to show); a pair whose tables
// the catalog does not fully model is not searched.
func (j *judgement) refuteBySearch() error {
	if j.v.Label.Proved() || len(j.unmodelled) > 0 {
		return nil
	}
	return refutePair(j.ctx, j.s, j.ref, j.cand, j.opts, &j.v, j.memo)
}

// refutePair searches for a counterexample; it fills v.Counterexample
// (and makes the verdict not_equivalent) or v.Search. An error is only
// ever ctx's.
func refutePair(ctx context.Context, s *catalog.Schema, ref, cand *prepared, opts Options, v *Verdict, m memo) error {
	if opts.Refute.Off || s == nil || ref.exec == nil || cand.exec == nil {
		return nil
	}
	t := time.Now()
	defer func() { v.Timings.Refute = time.Since(t) }()
	if out, ok := m.refutation(ref, cand, opts.Refute); ok {
		out.apply(v)
		return nil
	}
	// A query of thousands of operators and expressions (a 100,000-item
	// IN list, a 2,000-way UNION) would cost its planning time again and
	// then more per database than the whole budget: such pairs are left
	// to structure, and the verdict says so.
	for _, q := range []*prepared{ref, cand} {
		if len(q.exec.sql) > refuteMaxQueryBytes || planSize(q.p.Root, refuteMaxPlanSize) > refuteMaxPlanSize {
			v.Search = &Search{CannotExecute: "too large to search"}
			return nil
		}
	}
	rp, err := ref.exec.get(ctx, s)
	if err != nil {
		return ctx.Err()
	}
	cp, err := cand.exec.get(ctx, s)
	if err != nil {
		return ctx.Err()
	}
	trust := s.Dialect == catalog.Postgres
	if opts.TrustForeignKeys != nil {
		trust = *opts.TrustForeignKeys
	}
	budget := opts.Refute.Budget
	if budget <= 0 {
		budget = DefaultRefuteBudget
	}
	instances := opts.Refute.MaxInstances
	if instances <= 0 {
		instances = DefaultRefuteInstances
	}
	ignoreColumns := opts.ColumnOrder == ColumnOrderIgnore
	var upToColumns func() bool
	if !ignoreColumns {
		upToColumns = func() bool { return equivalentUpToColumnOrder(ctx, s, ref.exec.sql, cand.exec.sql, opts) }
	}
	ropts := refute.Options{
		Budget:            budget,
		ShrinkBudget:      budget / 4,
		MaxInstances:      instances,
		Seed:              opts.Refute.Seed,
		TrustForeignKeys:  trust,
		IgnoreColumnOrder: ignoreColumns,
		Dialect:           s.Dialect,

		EquivalentUpToColumnOrder: upToColumns,
	}
	if opts.pkProbe != nil {
		ropts.Checkpoint, ropts.CheckpointAfter = opts.pkProbe.prove, pkProbeAfter
	}
	res, err := refute.Refute(ctx, s, rp, cp, ropts)
	if err != nil {
		return ctx.Err()
	}
	if res.Stopped {
		return nil // the probe proved the pair; the search's end is moot
	}
	var out refutation
	if !res.Found {
		out.search = &Search{Instances: res.Instances - res.Skipped, Typical: res.Typical, Unpopulated: res.Unpopulated, Cut: res.Cut}
		if res.CannotExecute {
			// "cannot execute: exec: cannot execute: X" reads X: the
			// package prefixes are not the user's language.
			why := strings.TrimPrefix(res.Reason, "cannot execute: ")
			out.search.CannotExecute = strings.TrimPrefix(why, exec.ErrCannotExecute.Error()+": ")
		}
		out.search.DisplayOnly = res.DisplayOnly
		out.apply(v)
		// A search the clock cut short would have gone further on an
		// idle machine: only complete ones are remembered.
		if res.CannotExecute || !res.Cut {
			m.keepRefutation(ref, cand, opts.Refute, out)
		}
		return nil
	}
	ce := res.Counterexample
	out.ce = &Counterexample{
		Inserts:   ce.Inserts,
		Rows:      ce.Rows,
		Params:    ce.Params,
		Reference: ResultSample{Count: ce.Reference.Count, Rows: rowsOrEmpty(ce.Reference.Rows)},
		Candidate: ResultSample{Count: ce.Candidate.Count, Rows: rowsOrEmpty(ce.Candidate.Rows)},
		Needs:     ce.Needs,

		ColumnOrderOnly: ce.ColumnOrderOnly,
		RowOrderOnly:    ce.RowOrderOnly,
		Class:           classify(ce),
	}
	out.apply(v)
	m.keepRefutation(ref, cand, opts.Refute, out)
	return nil
}

// equivalentUpToColumnOrder reports whether the judge proves reference
// and candidate equivalent, with no assumption, under the column_order:
// ignore policy. The refuter asks once their results have differed in
// column order only: on the shared Spider pairs such a pair is nearly
// always a proved rewrite with its columns permuted, and without the
// proof the search would try every remaining database (a quarter of
// eval's databases went to 68 such pairs) only to report the same
// column-order counterexample.
func equivalentUpToColumnOrder(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options) bool {
	o := opts
	o.ColumnOrder = ColumnOrderIgnore
	o.Refute.Off = true
	o.GMN, o.Adviser = nil, nil // the label is structure's and the prover's
	v, err := judge(ctx, s, reference, candidate, o, noMemo{})
	return err == nil && v.Label == Equivalent
}

// rowsOrEmpty makes an empty result [] in JSON rather than null, as the
// verdict's other lists are.
func rowsOrEmpty(rows [][]string) [][]string {
	if rows == nil {
		return [][]string{}
	}
	return rows
}

// refutation is the outcome of a search: a counterexample, or how far
// the search went.
type refutation struct {
	ce     *Counterexample
	search *Search
}

func (r refutation) apply(v *Verdict) {
	if r.ce != nil {
		v.Label = NotEquivalent
		v.Counterexample = r.ce
		return
	}
	v.Search = r.search
	if r.search != nil && r.search.DisplayOnly != "" {
		n := "display-only difference: results equal under = print differently (" + r.search.DisplayOnly + ")"
		if !slices.Contains(v.Notes, n) {
			v.Notes = append(v.Notes, n)
		}
	}
}

// refuteKey identifies a search: the two cached queries (whose keys hold
// the schema and the policies) and the search's own options.
type refuteKey struct {
	pair pairKey
	opts RefuteOptions
}

// shapeDifferent reports a difference every database shows, whatever
// its rows: a different number of output columns (the row descriptions
// differ even where both results are empty). It is the only difference
// labelled without a database that shows it (docs/soundness.md, "The
// evidence rule").
func shapeDifferent(refQ, candQ *prepared) bool {
	return len(refQ.p.Root.OutCols()) != len(candQ.p.Root.OutCols())
}

// likelyDifferent reports differences that most databases of the schema
// expose but some may not: a required row order the candidate does not
// give, or plans identical except for one LIMIT value or one sort
// direction over input that can have two rows. Such a pair is not
// labelled by structure (the LIMIT may exceed every row the filter
// lets through, the flipped key may be pinned): the search must show a
// database, and without one the pair stays unknown, leaning different.
// No proof is sought for it either: the prover compares bags, and a
// LIMIT or a direction is exactly what it does not decide.
func likelyDifferent(refQ, candQ *prepared) string {
	ref, cand := refQ.p, candQ.p
	refMany := !atMostOneRow(ref.Root, ref.Meta)
	if ref.Ordered && !cand.Ordered && refMany {
		return LeanRowOrder
	}
	a, b := strings.Split(refQ.canon, "\n"), strings.Split(candQ.canon, "\n")
	if len(a) != len(b) {
		return ""
	}
	diff := -1
	for i := range a {
		if a[i] != b[i] {
			if diff >= 0 {
				return ""
			}
			diff = i
		}
	}
	if diff < 0 {
		return ""
	}
	la, lb := strings.TrimSpace(a[diff]), strings.TrimSpace(b[diff])
	node := nodeAtLine(ref.Root, diff-boolToInt(ref.Ordered))
	if node == nil || (node.Op != plan.OpLimit && node.Op != plan.OpSort) || !inRootChain(ref.Root, node) || atMostOneRow(node.Inputs[0], ref.Meta) {
		return ""
	}
	switch {
	case strings.HasPrefix(la, "limit ") && strings.HasPrefix(lb, "limit ") && node.Op == plan.OpLimit:
		return LeanLimit
	case strings.HasPrefix(la, "sort ") && strings.HasPrefix(lb, "sort ") && node.Op == plan.OpSort && stripDirections(la) == stripDirections(lb):
		// Same keys, one direction flipped: a database with two rows of
		// different key values orders them differently.
		return LeanSortDirection
	}
	return ""
}

// Why a pair leans different before any database shows it
// (Verdict.LeansDifferent).
const (
	LeanRowOrder      = "the candidate does not give the reference's row order (no ORDER BY)"
	LeanLimit         = "the plans differ only in a LIMIT or OFFSET"
	LeanSortDirection = "the plans differ only in a sort direction"
)

// inRootChain reports whether n is reached from root through the
// operators that shape the final result (projection, DISTINCT, ORDER BY,
// LIMIT): a difference there shows in the result.
func inRootChain(root, n *plan.Node) bool {
	for x := root; ; x = x.Inputs[0] {
		if x == n {
			return true
		}
		switch x.Op {
		case plan.OpProject, plan.OpDistinct, plan.OpSort, plan.OpLimit:
		default:
			return false
		}
	}
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nodeAtLine returns the node printed on line i of the indented form.
func nodeAtLine(root *plan.Node, i int) *plan.Node {
	var found *plan.Node
	line := 0
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if found != nil {
			return
		}
		if line == i {
			found = n
		}
		line++
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(root)
	return found
}

func stripDirections(s string) string {
	for _, w := range []string{" desc", " nulls first", " nulls last"} {
		s = strings.ReplaceAll(s, w, "")
	}
	return s
}
