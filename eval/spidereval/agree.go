package spidereval

import (
	"sort"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence"
)

// Classes of an item where the judge's label and test-suite EX disagree
// (or where EX is not defined). Agreement is "".
const (
	// The judge refuted the prediction with a counterexample the
	// official databases do not exercise; Why names its classes.
	DisRefutedEXCorrect = "refuted_ex_correct"
	// As above, but DISTINCT, which the official metric removes from both
	// queries by default, is what tells them apart.
	DisDistinctStripped = "distinct_stripped"
	// The judge proved the queries equivalent; EX says wrong because a
	// query timed out, the prediction failed, quick_rej's sort artefact
	// rejected equal results, or (DisProvedEXWrong) for no known reason:
	// a disagreement to read.
	DisEXTimeout     = "ex_timeout"
	DisEXError       = "proved_ex_error"
	DisEXQuickRej    = "ex_quick_rej_artefact"
	DisProvedEXWrong = "proved_ex_wrong"
	// The prediction would not run for the judge, but EX counts it right.
	DisInvalidEXCorrect = "invalid_ex_correct"
	// The gold query fails on a database file: EX is not defined.
	DisGoldError = "gold_error"
)

// NoDatabase is the class of a not_equivalent verdict without a
// counterexample (a proof from structure, or another judge's word).
const NoDatabase = "no_database"

// classOf is a not_equivalent verdict's classes, nil for other labels.
func classOf(v equivalence.Verdict) []string {
	if !Refuted(v) {
		return nil
	}
	if v.Counterexample == nil {
		return []string{NoDatabase}
	}
	if len(v.Counterexample.Class) == 0 {
		return []string{equivalence.ClassOther}
	}
	return v.Counterexample.Class
}

// disagreement says where the judge and test-suite EX part, and why.
func disagreement(r Result, e *Execution) (string, string) {
	if e == nil || r.Err != nil {
		return "", ""
	}
	if e.GoldError != "" {
		return DisGoldError, e.GoldError
	}
	v := r.Verdict
	switch {
	case Refuted(v) && e.TestSuite:
		why := "counterexample class " + strings.Join(classOf(v), ", ")
		if v.Counterexample != nil {
			why += ": " + v.Counterexample.String()
		}
		if e.KeepDistinct != nil && !*e.KeepDistinct {
			return DisDistinctStripped, "the official metric removed DISTINCT; " + why
		}
		return DisRefutedEXCorrect, why
	case v.Label.Proved() && !e.TestSuite:
		switch {
		case e.TimedOut:
			return DisEXTimeout, "a query timed out on " + e.FailedOn
		case e.PredError != "":
			return DisEXError, e.FailedOn + ": " + e.PredError
		case e.QuickRejOnly:
			return DisEXQuickRej, "equal results that quick_rej's str(x)+str(type(x)) sort rejects, on " + e.FailedOn
		}
		return DisProvedEXWrong, "results differ on " + e.FailedOn
	case isInvalid(v) && e.TestSuite:
		why, _ := v.Invalid()
		return DisInvalidEXCorrect, why
	}
	return "", ""
}

// countClasses tallies the classes of not_equivalent items and the
// disagreement classes.
func countClasses(results []Result) (classes, dis map[string]int) {
	classes, dis = map[string]int{}, map[string]int{}
	for _, r := range results {
		if r.Err != nil {
			continue
		}
		for _, c := range classOf(r.Verdict) {
			classes[c]++
		}
		if r.Disagreement != "" {
			dis[r.Disagreement]++
		}
	}
	return classes, dis
}

// sortedKeys is m's keys by count, then name.
func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
