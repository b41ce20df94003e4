package metrics

import "fmt"

// Confusion counts a binary prediction against the truth, with "positive"
// meaning equivalent.
type Confusion struct {
	TP, FP, TN, FN int
}

// NewConfusion tallies parallel slices of predictions and true labels.
func NewConfusion(predicted, actual []bool) (Confusion, error) {
	var c Confusion
	if len(predicted) != len(actual) {
		return c, fmt.Errorf("%d predictions, %d labels: %w", len(predicted), len(actual), ErrLength)
	}
	for i, p := range predicted {
		c.Add(p, actual[i])
	}
	return c, nil
}

// Add counts one prediction.
func (c *Confusion) Add(predicted, actual bool) {
	switch {
	case predicted && actual:
		c.TP++
	case predicted:
		c.FP++
	case actual:
		c.FN++
	default:
		c.TN++
	}
}

// N returns the number of predictions counted.
func (c Confusion) N() int { return c.TP + c.FP + c.TN + c.FN }

// Precision returns TP / (TP + FP), or 0 when nothing was predicted
// positive: a judge that never says "equivalent" earns no precision.
func (c Confusion) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall returns TP / (TP + FN), or 0 when there are no positives.
func (c Confusion) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 returns the harmonic mean of precision and recall, 2TP / (2TP + FP +
// FN), or 0 when TP is 0.
func (c Confusion) F1() float64 { return ratio(2*c.TP, 2*c.TP+c.FP+c.FN) }

// Accuracy returns (TP + TN) / N, or 0 when N is 0.
func (c Confusion) Accuracy() float64 { return ratio(c.TP+c.TN, c.N()) }

func ratio(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}
