// Package score is the judge's graded stage: for a pair that proof and
// refutation did not settle, how likely the two queries are equivalent;
// for a settled pair, its place within its label's band. It holds the
// component scores (ESM, RelPM, AST-TE), the graph matching network's
// similarity, the logistic combiner with its fitted weights, the bands,
// the split of unknown verdicts into likely equivalent and likely
// different, and the shift an adviser's opinion makes. It knows nothing
// of verdicts: package equivalence maps its labels onto Outcome.
package score

import "math"

// Scores are the graded similarity measures, each in [0, 1].
type Scores struct {
	ESM      float64 `json:"esm"`
	RelPM    float64 `json:"relpm"`
	ASTTE    float64 `json:"astte"`
	GMN      float64 `json:"gmn,omitempty"`
	Combined float64 `json:"combined"`
}

// Logistic is σ(bias + Σ wᵢ·xᵢ) over the component scores and the
// refuter's search evidence.
type Logistic struct {
	Bias, ESM, RelPM, ASTTE, GMN float64
	// Search weighs the search evidence: how many generated databases the
	// pair survived (SearchEvidence).
	Search float64
}

// Combine is the logistic of s and the search evidence.
func (c Logistic) Combine(s Scores, searchEvidence float64) float64 {
	z := c.Bias + c.ESM*s.ESM + c.RelPM*s.RelPM + c.ASTTE*s.ASTTE + c.GMN*s.GMN +
		c.Search*searchEvidence
	return 1 / (1 + math.Exp(-z))
}

// SearchEvidence maps a search that ran on instances databases, both
// queries agreeing, to [0, 1]: the share of full, the databases a whole
// search tries.
func SearchEvidence(instances, full int) float64 {
	return min(1, float64(instances)/float64(full))
}

// StructuralWeights weigh the structural scores and the refuter's search
// evidence. They are a logistic regression fit on the shared Spider pairs
// the judge neither proves nor leaves to the refuter alone (unknown and
// refuted verdicts; proved ones keep their band):
// `FIT_COMBINER=1 go test ./eval/evaluation -run FitCombiner -v`.
// Fit on four db-grouped folds and scored on the fifth, the judge's score
// reaches a pooled AUC of 0.977 (0.976 with the previous, search-blind
// weights; README, "Scores").
var StructuralWeights = Logistic{Bias: -5.65, ESM: 8.31, RelPM: 0.32, ASTTE: -3.53, Search: 2.49}

// GMNWeights score with the graph matching network and the refuter's
// search evidence, for the pairs neither proof nor search settles. Fit by
// logistic regression on out-of-fold GMN scores (pgequiv train --cv 5
// --oof) over the unknown and refuted verdicts: `FIT_COMBINER=1
// FIT_GMN_OOF=oof.jsonl go test ./eval/evaluation -run FitCombiner
// -v`. The structural scores add nothing once the GMN is there (README,
// "Scores").
var GMNWeights = Logistic{Bias: -3.55, GMN: 4.65, Search: 2.37}
