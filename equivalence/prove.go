package equivalence

import (
	"slices"
	"sort"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The compare and prove stages.

// compare lists the rules that fired on either side, the final plans'
// fingerprints, and the components in which the queries differ.
func (j *judgement) compare() {
	seen := map[string]bool{}
	for _, r := range append(append([]string(nil), j.ref.rules...), j.cand.rules...) {
		if !seen[r] {
			seen[r] = true
			j.v.Rules = append(j.v.Rules, r)
		}
	}
	j.v.ReferenceFingerprint, j.v.CandidateFingerprint = j.ref.fp, j.cand.fp
	j.cmp = compare(j.ref, j.cand)
	j.v.Differences = j.cmp.differences
	j.unmodelled = unmodelledReads(j.ref.p, j.cand.p)
}

// prove settles what equal plans and the prover can: equivalent, perhaps
// under assumptions. A pair it cannot settle stays unknown, open to the
// refute stage; one it must not judge (a table the catalog does not
// fully model, a volatile function) is labelled here.
func (j *judgement) prove() error {
	ref, cand, v := j.ref, j.cand, &j.v
	switch {
	case len(j.unmodelled) > 0:
		// The catalog knows it misses something about a table read (a
		// row security policy, a rule, a constraint it cannot read): no
		// proof and no counterexample can be trusted.
		um := j.unmodelled
		v.Label = Unknown
		v.Differences = append(v.Differences, Difference{Component: ComponentUnmodelled, Reference: strings.Join(um, "; ")})
		v.Notes = append(v.Notes, "neither proved nor refuted: "+strings.Join(um, "; "))
	case ref.volatile != "" || cand.volatile != "":
		// Two evaluations of a volatile call differ, even of one query
		// text: there is no single result to prove equal, and none the
		// executor could compute (issue 18, cause 13). Only a different
		// number of output columns tells them apart whatever the calls
		// return.
		v.Label = Unknown
		if len(ref.p.Root.OutCols()) != len(cand.p.Root.OutCols()) {
			v.Label = NotEquivalent
		}
		v.Differences = append([]Difference{volatileDifference(ref.volatile, cand.volatile)}, v.Differences...)
	case ref.normFP == cand.normFP:
		// Alike before the ESM+ rules: whatever those assumed, they
		// rewrote both sides alike, so nothing needs assuming.
		v.Label = Equivalent
		v.Differences = nil
	case ref.p.Raises != "" || cand.p.Raises != "":
		// PostgreSQL answers one query or both with an error whatever
		// the data, or may (planner/norm/raises.go): an error is not an
		// empty result, and two errors are alike whatever columns the
		// queries name. Only a search that meets a database on which one
		// fails and the other returns rows could tell them apart; the
		// search skips such databases, so the pair stays unknown
		// (docs/soundness.md, issue 33 item 5).
		v.Label = Unknown
		v.Notes = append(v.Notes, "neither proved nor refuted: PostgreSQL fails, or may fail, "+raisesNote(ref.p, cand.p))
	case ref.fp == cand.fp && len(ref.assumptions)+len(cand.assumptions) == 0:
		v.Label = Equivalent
		v.Differences = nil
	case ref.fp == cand.fp:
		// Assumptions made on either side are what the proof rests on,
		// unless the prover needs none on the plans before the rules.
		v.Assumptions = mergeAssumptions(ref.assumptions, cand.assumptions)
		v.Label = EquivalentUnderAssumptions
		v.Differences = nil
		res, err := prove.Equivalent(j.ctx, ref.normPlan, cand.normPlan, j.proveOptions())
		if err != nil {
			return err
		}
		if res.Proved && len(res.Assumptions) == 0 {
			v.Label, v.Assumptions = Equivalent, nil
			j.addRules(res.Rules)
		}
	default:
		v.Label = Unknown
		j.open = true
		if j.structurallyDifferent() {
			return nil // no proof to seek: the refute stage labels it
		}
		return j.proveRewritten()
	}
	return nil
}

// proveRewritten runs the prover on the plans before the ESM+ rules and,
// failing a proof there, on the rewritten ones, whose proof rests on the
// rules' assumptions too.
func (j *judgement) proveRewritten() error {
	ref, cand, v := j.ref, j.cand, &j.v
	popts := j.proveOptions()
	res, err := prove.Equivalent(j.ctx, ref.normPlan, cand.normPlan, popts)
	if err != nil {
		return err
	}
	if !res.Proved && (ref.normFP != ref.fp || cand.normFP != cand.fp) {
		// The rules or the order policy changed a plan: try again on the
		// rewritten plans.
		if ref.orderedPlan != nil && cand.orderedPlan != nil {
			// Under column_order=ignore: the rewritten plans with their
			// columns in the queries' order first (issue 35).
			if res, err = prove.Equivalent(j.ctx, ref.orderedPlan, cand.orderedPlan, popts); err != nil {
				return err
			}
		}
		if !res.Proved {
			if res, err = prove.Equivalent(j.ctx, ref.p, cand.p, popts); err != nil {
				return err
			}
		}
		if res.Proved {
			v.Assumptions = mergeAssumptions(ref.assumptions, cand.assumptions)
		}
	}
	if !res.Proved {
		return nil
	}
	for _, a := range res.Assumptions {
		v.Assumptions = mergeAssumptions(v.Assumptions, []Assumption{{Kind: AssumptionKind(a.Kind), Subject: a.Subject}})
	}
	v.Label = Equivalent
	if len(v.Assumptions) > 0 {
		v.Label = EquivalentUnderAssumptions
	}
	v.Differences = nil
	j.addRules(res.Rules)
	return nil
}

func (j *judgement) proveOptions() prove.Options {
	return prove.Options{TrustForeignKeys: j.ref.trustFK, SQLite: j.ref.sqlite}
}

// addRules adds the prover's rules to the verdict's, once each.
func (j *judgement) addRules(rules []string) {
	for _, r := range rules {
		if !slices.Contains(j.v.Rules, r) {
			j.v.Rules = append(j.v.Rules, r)
		}
	}
}

// ComponentVolatile is the Difference component of a verdict left
// unknown because a query calls a volatile function.
const ComponentVolatile = "volatile function"

// volatileDifference names the volatile calls that keep a pair from
// being judged.
func volatileDifference(ref, cand string) Difference {
	name := func(f string) string {
		if f == "" {
			return "none"
		}
		return f + "() (its value differs between evaluations)"
	}
	return Difference{Component: ComponentVolatile, Reference: name(ref), Candidate: name(cand)}
}

func mergeAssumptions(a, b []Assumption) []Assumption {
	seen := map[Assumption]bool{}
	var out []Assumption
	for _, x := range append(append([]Assumption(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// ComponentUnmodelled is the Difference component of a verdict left
// unknown because a table either query reads has facts the catalog does
// not model (catalog.Table.Unmodelled).
const ComponentUnmodelled = "unmodelled schema"

// unmodelledReads lists, for each table either plan reads, what the
// catalog says it does not model about it.
func unmodelledReads(plans ...*plan.Plan) []string {
	var out []string
	seen := map[*catalog.Table]bool{}
	for _, p := range plans {
		for _, in := range p.Meta.Instances {
			t := in.Table
			if t == nil || seen[t] || len(t.Unmodelled) == 0 {
				continue
			}
			seen[t] = true
			out = append(out, "table "+t.Name+": "+strings.Join(t.Unmodelled, ", "))
		}
	}
	return out
}

// raisesNote names the query or queries PostgreSQL fails (or may) whatever the
// data, and why.
func raisesNote(ref, cand *plan.Plan) string {
	switch {
	case ref.Raises != "" && cand.Raises != "":
		return "both queries (" + ref.Raises + "; " + cand.Raises + ")"
	case ref.Raises != "":
		return "the reference (" + ref.Raises + ")"
	}
	return "the candidate (" + cand.Raises + ")"
}
