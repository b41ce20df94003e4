package metrics

import (
	"fmt"
	"math"
	"sort"
)

// AUC returns the area under the ROC curve of scores against labels (true =
// positive, i.e. equivalent), computed as the Mann–Whitney U statistic: the
// probability that a random positive scores above a random negative, with
// ties counting one half. It equals the trapezoidal area of ROC's curve.
func AUC(scores []float64, labels []bool) (float64, error) {
	npos, nneg, err := checkBinary(scores, labels)
	if err != nil {
		return 0, err
	}
	r := averageRanks(scores)
	var sum float64
	for i, pos := range labels {
		if pos {
			sum += r[i]
		}
	}
	p, n := float64(npos), float64(nneg)
	return (sum - p*(p+1)/2) / (p * n), nil
}

// ROCPoint is one point of a ROC curve: predicting positive for scores at or
// above Threshold gives false- and true-positive rates FPR and TPR.
type ROCPoint struct {
	FPR, TPR  float64
	Threshold float64
}

// Curve is a ROC curve from (0, 0) to (1, 1), with FPR and TPR
// non-decreasing and Threshold decreasing.
type Curve []ROCPoint

// ROC returns the ROC curve of scores against labels: one point per distinct
// score, from the highest down, after a first point (0, 0) at threshold +Inf.
// Tied scores move the curve diagonally, so its area equals AUC.
func ROC(scores []float64, labels []bool) (Curve, error) {
	npos, nneg, err := checkBinary(scores, labels)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	c := Curve{{FPR: 0, TPR: 0, Threshold: math.Inf(1)}}
	tp, fp := 0, 0
	for k, i := range idx {
		if labels[i] {
			tp++
		} else {
			fp++
		}
		if k+1 < len(idx) && scores[idx[k+1]] == scores[i] {
			continue
		}
		c = append(c, ROCPoint{
			FPR:       float64(fp) / float64(nneg),
			TPR:       float64(tp) / float64(npos),
			Threshold: scores[i],
		})
	}
	return c, nil
}

// Area returns the trapezoidal area under the curve.
func (c Curve) Area() float64 {
	var a float64
	for k := 1; k < len(c); k++ {
		a += (c[k].FPR - c[k-1].FPR) * (c[k].TPR + c[k-1].TPR) / 2
	}
	return a
}

func checkBinary(scores []float64, labels []bool) (npos, nneg int, err error) {
	if err := checkScores("scores", scores, len(labels)); err != nil {
		return 0, 0, err
	}
	for _, pos := range labels {
		if pos {
			npos++
		}
	}
	nneg = len(labels) - npos
	if npos == 0 || nneg == 0 {
		return 0, 0, fmt.Errorf("%d positives, %d negatives: %w", npos, nneg, ErrOneClass)
	}
	return npos, nneg, nil
}
