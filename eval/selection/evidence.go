package selection

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// workClass is a class while it is being built.
type workClass struct {
	members  []int
	executed bool
	// degenerate: every executed member returned no rows, or no
	// comparable result, on every database it ran on.
	degenerate bool
	score      float64
	rep        int
	why        []string
}

// pairVerdict is the judge's verdict on two candidates, the one with the
// ORDER BY (or the lower index) as the reference.
type pairVerdict struct {
	label       equivalence.Label
	assumptions []equivalence.Assumption
	// sim is the structural similarity (the judge's combined score),
	// meaningful whatever the label.
	sim float64
}

type pairKey [2]int

func key(i, j int) pairKey {
	if i > j {
		i, j = j, i
	}
	return pairKey{i, j}
}

// judgePairs judges every pair of planned candidates, or, when there are
// too many, every pair of class representatives.
func judgePairs(ctx context.Context, s *catalog.Schema, cs []candidate, classes []*workClass, opts Options, res *Result) map[pairKey]pairVerdict {
	var idx []int
	for i := range cs {
		if cs[i].plan != nil {
			idx = append(idx, i)
		}
	}
	if len(idx)*(len(idx)-1)/2 > opts.MaxJudgedPairs {
		idx = idx[:0]
		for _, c := range classes {
			idx = append(idx, c.members[0])
		}
		slices.Sort(idx)
		res.Notes = append(res.Notes, fmt.Sprintf("%d candidates: judged class representatives only", len(cs)))
	}
	// The judge is asked for proofs and scores only: the shared databases
	// are this selection's refuter, and a per-pair search against a clock
	// would make the classes depend on the machine's load.
	jopts := opts.Judge
	jopts.Refute.Off = true
	out := map[pairKey]pairVerdict{}
	for a := 0; a < len(idx); a++ {
		for b := a + 1; b < len(idx); b++ {
			if ctx.Err() != nil {
				res.Notes = append(res.Notes, fmt.Sprintf("budget ran out after judging %d pairs", len(out)))
				return out
			}
			i, j := idx[a], idx[b]
			// The judge's score is not symmetric in its two roles: pick
			// them by the queries, not by their position, so the choice
			// does not depend on the order the candidates came in.
			ref, cand := i, j
			if cs[j].sql < cs[i].sql {
				ref, cand = j, i
			}
			if cs[j].plan.Ordered != cs[i].plan.Ordered {
				ref, cand = i, j
				if cs[j].plan.Ordered {
					ref, cand = j, i
				}
			}
			var v equivalence.Verdict
			var err error
			if opts.Judger != nil {
				v, err = opts.Judger.Judge(ctx, s, cs[ref].sql, cs[cand].sql, jopts)
			} else {
				v, err = equivalence.Judge(ctx, s, cs[ref].sql, cs[cand].sql, jopts)
			}
			if err != nil {
				continue // no evidence; the budget note says why when it ran out
			}
			sim := v.Scores.Combined
			if v.Label.Proved() {
				sim = 1
			}
			out[key(i, j)] = pairVerdict{label: v.Label, assumptions: v.Assumptions, sim: sim}
		}
	}
	return out
}

// mergeByProof joins classes whose members were proved equivalent,
// unless both were executed: two executed classes were told apart by a
// database, and a proof between them rests on an assumption that
// database breaks (an unenforced foreign key, a non-empty table), or one
// of the two is wrong; the class why says which pair.
func mergeByProof(classes []*workClass, pj map[pairKey]pairVerdict, cs []candidate) []*workClass {
	of := map[int]int{}
	for k, c := range classes {
		for _, m := range c.members {
			of[m] = k
		}
	}
	parent := make([]int, len(classes))
	for k := range parent {
		parent[k] = k
	}
	var find func(int) int
	find = func(k int) int {
		for parent[k] != k {
			k = parent[k]
		}
		return k
	}
	executed := func(root int) bool {
		for k := range classes {
			if find(k) == root && classes[k].executed {
				return true
			}
		}
		return false
	}
	keys := make([]pairKey, 0, len(pj))
	for k := range pj {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pairKey) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	var notes []struct {
		root int
		text string
	}
	for _, k := range keys {
		v := pj[k]
		if !v.label.Proved() {
			continue
		}
		a, b := find(of[k[0]]), find(of[k[1]])
		proof := fmt.Sprintf("#%d and #%d proved %s", k[0], k[1], proofText(v))
		if a == b {
			notes = append(notes, struct {
				root int
				text string
			}{a, proof})
			continue
		}
		if executed(a) && executed(b) {
			conflict := proof + ", but a generated database tells them apart"
			notes = append(notes, struct {
				root int
				text string
			}{a, conflict}, struct {
				root int
				text string
			}{b, conflict})
			continue
		}
		parent[b] = a
		notes = append(notes, struct {
			root int
			text string
		}{a, proof})
	}
	var out []*workClass
	merged := map[int]*workClass{}
	for k, c := range classes {
		r := find(k)
		m, ok := merged[r]
		if !ok {
			m = &workClass{}
			merged[r] = m
			out = append(out, m)
		}
		m.members = append(m.members, c.members...)
		m.executed = m.executed || c.executed
		m.why = append(m.why, c.why...)
	}
	for _, n := range notes {
		m := merged[find(n.root)]
		if !slices.Contains(m.why, n.text) {
			m.why = append(m.why, n.text)
		}
	}
	for _, m := range out {
		slices.Sort(m.members)
	}
	return out
}

func proofText(v pairVerdict) string {
	if len(v.assumptions) == 0 {
		return string(v.label)
	}
	as := make([]string, len(v.assumptions))
	for i, a := range v.assumptions {
		as[i] = a.String()
	}
	return "equivalent if " + strings.Join(as, ", ")
}

// scoreClasses scores each class by its size (each member a vote) plus
// NearWeight times the mean similarity of its members to the candidates
// outside it: a near miss supports a class a little, the way minimum
// Bayes risk selection prefers the candidate closest to all others. The
// similarity of two executed candidates is their agreement rate on the
// generated databases (a soft vote: candidates that differ only on rare
// edge cases mostly agree); for a candidate that was not executed it is
// the judge's structural score. The mean is at most one, so with
// NearWeight below one a larger class always wins over a smaller one.
func scoreClasses(classes []*workClass, pj map[pairKey]pairVerdict, part refute.Partition, cs []candidate, opts Options) {
	for _, c := range classes {
		var sum float64
		n := 0
		for j := range cs {
			if cs[j].plan == nil || slices.Contains(c.members, j) {
				continue
			}
			for _, i := range c.members {
				if rate, compared := part.AgreementRate(i, j); compared > 0 {
					sum += rate
					n++
				} else if v, ok := pj[key(i, j)]; ok {
					sum += v.sim
					n++
				}
			}
		}
		near := 0.0
		if n > 0 {
			near = sum / float64(n)
		}
		c.score = float64(len(c.members)) + opts.NearWeight*near
		c.why = append(c.why, fmt.Sprintf("score %.3f = %d member(s) + %.2f × mean agreement %.3f with the other candidates (%d pairs)",
			c.score, len(c.members), opts.NearWeight, near, n))
		ran, empty := 0, 0
		for _, i := range c.members {
			if i < len(part.Stats) {
				ran += part.Stats[i].Ran
				empty += part.Stats[i].Empty
			}
		}
		if c.executed && part.Instances > 0 && (ran == 0 || empty == ran) {
			c.degenerate = true
			if ran == 0 {
				c.why = append(c.why, "no comparable result on any generated database (errors or nondeterminism)")
			} else {
				c.why = append(c.why, "no rows on any generated database")
			}
		}
	}
}

// compareClasses orders classes best first: higher score; then a class
// whose results say something (not empty on every database); then one
// whose candidates were executed (its agreement is evidence); then the
// simpler representative (the smaller plan, then the shorter and
// lexically first text). Input order never decides, so the choice does
// not depend on the order candidates come in.
func compareClasses(a, b *workClass, cs []candidate) int {
	switch {
	// Scores are sums of rates: the order candidates come in changes
	// their last bits, which must not decide.
	case math.Abs(a.score-b.score) > 1e-9:
		if a.score > b.score {
			return -1
		}
		return 1
	case a.degenerate != b.degenerate:
		if b.degenerate {
			return -1
		}
		return 1
	case a.executed != b.executed:
		if a.executed {
			return -1
		}
		return 1
	}
	ra, rb := cs[a.rep], cs[b.rep]
	if ra.size != rb.size {
		return ra.size - rb.size
	}
	if len(ra.sql) != len(rb.sql) {
		return len(ra.sql) - len(rb.sql)
	}
	return strings.Compare(ra.sql, rb.sql)
}

// representative is the member most similar to all other candidates,
// then the one with the smallest plan, then the first.
func representative(c *workClass, pj map[pairKey]pairVerdict, cs []candidate) int {
	best, bestSim := -1, -1.0
	for _, i := range c.members {
		var sim float64
		for j := range cs {
			if j != i {
				sim += pj[key(i, j)].sim
			}
		}
		if best < 0 || sim > bestSim+1e-9 || (sim > bestSim-1e-9 && simpler(cs[i], cs[best])) {
			best, bestSim = i, sim
		}
	}
	return best
}

func simpler(a, b candidate) bool {
	if a.size != b.size {
		return a.size < b.size
	}
	if len(a.sql) != len(b.sql) {
		return len(a.sql) < len(b.sql)
	}
	return a.sql < b.sql
}

// separations explain why each pair of classes is apart: a database on
// which their representatives differ, else a proof of difference.
func separations(ctx context.Context, s *catalog.Schema, classes []*workClass, cs []candidate, pj map[pairKey]pairVerdict, part refute.Partition, ropts refute.Options) []Separation {
	var out []Separation
	for a := 0; a < len(classes); a++ {
		for b := a + 1; b < len(classes); b++ {
			ra, rb := classes[a].rep, classes[b].rep
			if ctx.Err() == nil && classes[a].executed && classes[b].executed {
				if ce := part.Witness(ctx, s, cs[ra].plan, cs[rb].plan, ropts); ce != nil {
					ce.Database = nil
					out = append(out, Separation{A: a, B: b, By: "database", Counterexample: ce})
					continue
				}
			}
			if v, ok := pj[key(ra, rb)]; ok && v.label == equivalence.NotEquivalent {
				out = append(out, Separation{A: a, B: b, By: "proof"})
				continue
			}
			if wa, wb := len(cs[ra].plan.Root.OutCols()), len(cs[rb].plan.Root.OutCols()); wa != wb {
				out = append(out, Separation{A: a, B: b, By: fmt.Sprintf("columns (%d vs %d)", wa, wb)})
				continue
			}
			if classes[a].executed && classes[b].executed {
				out = append(out, Separation{A: a, B: b, By: "database (indirect)"})
			}
		}
	}
	return out
}
