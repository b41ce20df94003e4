// Package metrics scores the equivalence judge against labelled pairs:
// ranking quality (ROC AUC, ROC curves), agreement between two scorings
// (Spearman's ρ, Kendall's τ-b) and thresholded verdicts (confusion matrix,
// precision, recall, F1), overall or per group of pairs.
//
// Functions validate their input and return errors wrapping the sentinels
// below rather than NaN, so that a broken evaluation fails loudly.
package metrics

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

var (
	// ErrLength reports slices that should be parallel but differ in length.
	ErrLength = errors.New("metrics: length mismatch")
	// ErrEmpty reports an empty input.
	ErrEmpty = errors.New("metrics: empty input")
	// ErrNaN reports a NaN value, which has no rank.
	ErrNaN = errors.New("metrics: NaN value")
	// ErrOneClass reports labels that are all positive or all negative, for
	// which a ROC curve and its area are undefined.
	ErrOneClass = errors.New("metrics: labels have a single class")
	// ErrConstant reports an input whose values are all tied, for which a
	// rank correlation is undefined.
	ErrConstant = errors.New("metrics: all values tied")
)

// checkScores validates a score slice against a parallel slice of length n.
func checkScores(name string, x []float64, n int) error {
	if len(x) != n {
		return fmt.Errorf("%s has %d values, want %d: %w", name, len(x), n, ErrLength)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", name, ErrEmpty)
	}
	for i, v := range x {
		if math.IsNaN(v) {
			return fmt.Errorf("%s[%d]: %w", name, i, ErrNaN)
		}
	}
	return nil
}

// averageRanks returns the 1-based ranks of x in increasing order, giving
// tied values the mean of the ranks they span. x must not contain NaN.
func averageRanks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && x[idx[end]] == x[idx[start]] {
			end++
		}
		// Positions start..end-1 hold ranks start+1..end; their mean is:
		avg := float64(start+end+1) / 2
		for _, i := range idx[start:end] {
			r[i] = avg
		}
		start = end
	}
	return r
}
