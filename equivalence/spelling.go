package equivalence

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// A proof shows that two queries return equal rows, = deciding what is
// equal. Under a nondeterministic collation that is not enough: 'a' and
// 'A' are equal under NOCASE, and an operator that merges equal rows
// (DISTINCT, GROUP BY, UNION, INTERSECT, EXCEPT, MIN, MAX) returns
// whichever spelling the engine's plan meets first, or last. SQLite's
// DISTINCT keeps the first row it meets; SELECT name FROM t UNION SELECT
// name FROM t returns 'A' on SQLite 3.40 where SELECT DISTINCT name FROM
// t returns 'a'; swapping a join's tables moves which row comes first. Unless both queries choose spellings with the same
// operators over the same subqueries, their proof rests on an
// assumption, which the verdict names.

// readSpellings returns a planner.Options.Built that records the
// spelling choices of the plan as built into *out.
func readSpellings(out *[]plan.SpellingChoice) func(*plan.Plan) {
	return func(p *plan.Plan) { *out = plan.SpellingChoices(p.Meta, p.Root) }
}

// assumeSpellings turns a proof into one under AssumeSameSpelling when
// the two queries choose spellings differently.
func (j *judgement) assumeSpellings() {
	v := &j.v
	if !v.Label.Proved() || plan.SameSpellingChoices(j.ref.spellings, j.cand.spellings) {
		return
	}
	var subjects []string
	for _, c := range append(slices.Clone(j.ref.spellings), j.cand.spellings...) {
		if !slices.Contains(subjects, c.Subject) {
			subjects = append(subjects, c.Subject)
		}
	}
	slices.Sort(subjects)
	for _, s := range subjects {
		v.Assumptions = mergeAssumptions(v.Assumptions, []Assumption{{Kind: AssumeSameSpelling, Subject: s}})
	}
	v.Label = EquivalentUnderAssumptions
}
