package score

import "math"

// Outcome is what proof and refutation settled about a pair, as far as
// its band depends on it.
type Outcome int

// Outcomes.
const (
	// Unsettled: neither proved nor refuted; the score leans one way.
	Unsettled Outcome = iota
	// Proved: equivalent with no assumption.
	Proved
	// ProvedUnderAssumptions: equivalent if named assumptions hold.
	ProvedUnderAssumptions
	// Refuted: a counterexample on ordinary data.
	Refuted
	// RefutedWeakly: a counterexample that needs a NULL or an empty
	// table, or that differs only in column order.
	RefutedWeakly
	// RefutedByStructure: not equivalent without a counterexample to show.
	RefutedByStructure
	// UnsettledDifferent: neither proved nor refuted, but the plans
	// differ in a way most databases show (a LIMIT value, a sort
	// direction, a missing ORDER BY) and no database has shown yet.
	UnsettledDifferent
)

// Band places a combined score in [0, 1] within its outcome's band: the
// bands do not overlap, so every proof ranks above every unsettled pair,
// and every unsettled pair above every refuted one.
func Band(o Outcome, combined float64) float64 {
	switch o {
	case Proved:
		return 0.95 + 0.05*combined
	case ProvedUnderAssumptions:
		return 0.9 + 0.05*combined
	case Refuted:
		// A counterexample on ordinary data is the strongest evidence of
		// a difference; one that needs a NULL or an empty table, or that
		// differs only in column order, ranks a little closer to
		// equivalent, as ordinary use shows it less.
		return 0.025 * combined
	case RefutedWeakly:
		return 0.025 + 0.025*combined
	case RefutedByStructure:
		return 0.05 * combined
	case UnsettledDifferent:
		// At the likely-different end of the unsettled band, above
		// every refuted pair: evidence of a difference, not proof.
		return 0.05 + 0.1*combined
	}
	return 0.05 + 0.85*combined
}

// Unsettled pairs lean one way or the other.
const (
	LikelyEquivalent = "likely equivalent"
	LikelyDifferent  = "likely different"
	// NoEvidence: structure alone would lean equivalent, but no
	// database of the search gave a table the queries read a row, so
	// nothing supports it.
	NoEvidence = "no evidence either way"
)

// BelowLikely is the highest score that does not lean likely
// equivalent under threshold (0: DefaultLikelyThreshold).
func BelowLikely(threshold float64) float64 {
	if threshold == 0 {
		threshold = DefaultLikelyThreshold
	}
	return math.Nextafter(threshold, 0)
}

// DefaultLikelyThreshold splits unsettled pairs when no threshold is set.
const DefaultLikelyThreshold = 0.5

// Likely says which way an unsettled pair's score leans: likely
// equivalent at threshold or above (0 means DefaultLikelyThreshold).
func Likely(score, threshold float64) string {
	if threshold == 0 {
		threshold = DefaultLikelyThreshold
	}
	if score >= threshold {
		return LikelyEquivalent
	}
	return LikelyDifferent
}

// adviceWeight is how far a unanimous opinion moves an unsettled score
// towards the top (0.90) or bottom (0.05) of the unsettled band; a split
// vote moves it in proportion to its majority, a weak equivalence half as
// far. The band keeps advised scores below every proof.
const adviceWeight = 0.5

// Advised moves an unsettled score by an adviser's opinion: towards
// equivalent (weakly: same result up to row order, duplicates or output
// names) or towards different, as votes of samples answers (samples > 0)
// agreed.
func Advised(score float64, equivalent, weak bool, votes, samples int) float64 {
	w := adviceWeight * float64(votes) / float64(samples)
	if equivalent {
		if weak {
			w /= 2
		}
		return score + (0.90-score)*w
	}
	// A verdict may already sit below the band (a candidate that does
	// not plan scores 0): never move it up.
	if score > 0.05 {
		score -= (score - 0.05) * w
	}
	return score
}
