package equivalence

import (
	"slices"
	"strings"

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

// builtChoices are the engine's choices read on a plan as built, before
// normalization reorders or prunes what the engine would see.
type builtChoices struct {
	spellings []plan.SpellingChoice
	rows      []plan.RowChoice
	scans     string // plan.ScanOrder
}

// read is a planner.Options.Built.
func (c *builtChoices) read(p *plan.Plan) {
	c.spellings = plan.SpellingChoices(p.Meta, p.Root)
	c.rows = plan.RowChoices(p.Meta, p.Root)
	c.scans = plan.ScanOrder(p.Meta, p.Root)
}

// withLimits adds the LIMITs over ties of the rewritten plan p to the
// row choices, each keyed by its subtree and, where its tied rows come
// in the order of the engine's loops, the order the query as written
// reads its tables: the rewrites sort join inputs, and SQLite's loops
// follow the written order where costs tie.
func (c *builtChoices) withLimits(p *plan.Plan) []plan.RowChoice {
	out := c.rows
	for _, l := range plan.LimitChoices(p.Meta, p.Root) {
		if l.FollowsScans {
			l.Key += "\nreads " + c.scans
		}
		out = append(out, l)
	}
	return out
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

// unproveRowChoices takes back a proof between SQLite queries that pick
// rows the query does not tell apart with different operators
// (plan.RowChoices): a bare column beside min() or max() takes the row
// of whichever such call the engine evaluated last, without one a row
// in scan order; a LIMIT over ties keeps the rows met first; a scalar
// subquery of several rows returns the first (issue 33, causes 8 and
// 9). The proof compared them as if one row stood for the choice. The
// pair is left to the search, which never counts a database on which
// such a choice decides the result.
func (j *judgement) unproveRowChoices() {
	v := &j.v
	if !v.Label.Proved() || plan.SameRowChoices(j.ref.rowChoices, j.cand.rowChoices) {
		return
	}
	var subjects []string
	for _, c := range append(slices.Clone(j.ref.rowChoices), j.cand.rowChoices...) {
		if !slices.Contains(subjects, c.Subject) {
			subjects = append(subjects, c.Subject)
		}
	}
	slices.Sort(subjects)
	v.Label, v.Assumptions = Unknown, nil
	v.Notes = append(v.Notes, "not proved: SQLite picks "+strings.Join(subjects, "; ")+
		" by the query's min()/max() calls or its scan and join order, and the two queries pick with different operators")
	j.open = true
}
