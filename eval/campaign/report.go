package campaign

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Report writes the run's summary: pairs tried, labels, wrong labels by
// cause with up to two repros each, display-only equivalences, refused
// generated databases.
func (s *Stats) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "campaign %s: %d pairs in %v: %d equivalent, %d equivalent under assumptions, %d not_equivalent, %d unknown, %d judge errors\n",
		s.Engine, s.Pairs, s.Elapsed.Round(time.Second), s.Equivalent, s.UnderAssumptions, s.NotEquivalent, s.Unknown, s.JudgeErrors)
	fmt.Fprintf(&b, "  checked: %d databases for proved equivalences (%d pairs stopped at a slow query), %d counterexamples (%d where the engine fails both queries)\n", s.StatesChecked, s.Slow, s.CounterexChecked, s.BothFail)
	for _, k := range sortedKeys(s.JudgeErrorKinds) {
		fmt.Fprintf(&b, "  judge error (%d): %s\n", s.JudgeErrorKinds[k], k)
	}
	for i, e := range s.OracleErrors {
		if i == 3 {
			break
		}
		fmt.Fprintf(&b, "  ORACLE ERROR (%d in all): %s\n", len(s.OracleErrors), e)
	}
	for _, p := range s.LoadProblems {
		fmt.Fprintf(&b, "  schema load problem: %s\n", p)
	}
	fmt.Fprintf(&b, "  WRONG proved labels: %d\n", len(s.Wrong))
	byClass := map[string][]Finding{}
	for _, f := range s.Wrong {
		byClass[f.Class] = append(byClass[f.Class], f)
	}
	for _, c := range sortedKeys(byClass) {
		fs := byClass[c]
		kinds := map[string]int{}
		for _, f := range fs {
			kinds[f.Kind]++
		}
		muts := map[string]int{}
		for _, f := range fs {
			muts[f.Pair.Schema+"/"+f.Pair.Mutation]++
		}
		top := sortedKeys(muts)
		sort.SliceStable(top, func(i, j int) bool { return muts[top[i]] > muts[top[j]] })
		if len(top) > 4 {
			top = top[:4]
		}
		for i, k := range top {
			top[i] = fmt.Sprintf("%s ×%d", k, muts[k])
		}
		fmt.Fprintf(&b, "    cause %s (%s): %d %v; most from %s\n", c, classTitles[c], len(fs), kinds, strings.Join(top, ", "))
		for i, f := range fs {
			if i == 2 {
				break
			}
			fmt.Fprintf(&b, "      [%s %s/%s, %s] %s\n        ref:  %s\n        cand: %s\n        db:   %s\n        results: %s vs %s\n",
				f.Kind, f.Pair.Schema, f.Pair.Mutation, f.Loader, f.Why, f.Pair.Reference, f.Pair.Candidate, strings.Join(f.Database, " "), f.RefResult, f.CandResult)
		}
	}
	if len(s.Display) > 0 {
		fmt.Fprintf(&b, "  equivalences that hold by value but print differently, or print alike in columns of other types (not counted as wrong): %d\n", len(s.Display))
		for i, f := range s.Display {
			if i == 2 {
				break
			}
			fmt.Fprintf(&b, "      [%s/%s] %s\n        ref:  %s\n        cand: %s\n", f.Pair.Schema, f.Pair.Mutation, f.Why, f.Pair.Reference, f.Pair.Candidate)
		}
	}
	if len(s.Illegal) > 0 {
		fmt.Fprintf(&b, "  refuter-made databases the engine refuses (no label rests on them here), by cause:\n")
		for _, c := range sortedKeys(s.Illegal) {
			fmt.Fprintf(&b, "    cause %s (%s): %d, e.g. %s\n", c, classTitles[c], s.Illegal[c], s.IllegalExample[c])
		}
	}
	fmt.Fprintf(&b, "  per family (equivalent / not_equivalent / unknown):")
	for _, k := range sortedKeys(s.ByFamily) {
		v := s.ByFamily[k]
		fmt.Fprintf(&b, " %s %d/%d/%d (%v);", k, v[0], v[1], v[2], s.FamilyTime[k].Round(time.Second))
	}
	b.WriteString("\n")
	return b.String()
}
