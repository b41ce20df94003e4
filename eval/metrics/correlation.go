package metrics

import (
	"fmt"
	"math"
	"sort"
)

// Spearman returns Spearman's rank correlation ρ of x and y: the Pearson
// correlation of their ranks, with tied values given their average rank.
func Spearman(x, y []float64) (float64, error) {
	if err := checkPair(x, y); err != nil {
		return 0, err
	}
	rx, ry := averageRanks(x), averageRanks(y)
	// Average ranks always have mean (n+1)/2.
	mean := float64(len(x)+1) / 2
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mean, ry[i]-mean
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, fmt.Errorf("spearman: %w", ErrConstant)
	}
	return sxy / math.Sqrt(sxx*syy), nil
}

// KendallTauB returns Kendall's τ-b of x and y, which corrects τ for ties in
// either variable. It runs in O(n log n) (Knight, 1966): sort by x then y,
// and count the discordant pairs as the swaps a merge sort by y makes.
func KendallTauB(x, y []float64) (float64, error) {
	if err := checkPair(x, y); err != nil {
		return 0, err
	}
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		if x[i] != x[j] {
			return x[i] < x[j]
		}
		return y[i] < y[j]
	})
	// Pairs tied in x (tx) and tied in both (txy), from runs in this order.
	var tx, txy int64
	for start := 0; start < n; {
		end := start + 1
		for end < n && x[idx[end]] == x[idx[start]] {
			end++
		}
		tx += pairs(end - start)
		for s := start; s < end; {
			e := s + 1
			for e < end && y[idx[e]] == y[idx[s]] {
				e++
			}
			txy += pairs(e - s)
			s = e
		}
		start = end
	}
	ys := make([]float64, n)
	for k, i := range idx {
		ys[k] = y[i]
	}
	swaps := mergeCountSwaps(ys, make([]float64, n))
	// ys is now sorted: count pairs tied in y.
	var ty int64
	for start := 0; start < n; {
		end := start + 1
		for end < n && ys[end] == ys[start] {
			end++
		}
		ty += pairs(end - start)
		start = end
	}
	n0 := pairs(n)
	// Concordant minus discordant: pairs tied in neither variable, less
	// twice the discordant ones.
	s := n0 - tx - ty + txy - 2*swaps
	den := float64(n0-tx) * float64(n0-ty)
	if den == 0 {
		return 0, fmt.Errorf("kendall: %w", ErrConstant)
	}
	return float64(s) / math.Sqrt(den), nil
}

func pairs(k int) int64 { return int64(k) * int64(k-1) / 2 }

// mergeCountSwaps sorts v in place using buf as scratch and returns the
// number of strictly inverted pairs (equal values are not inversions).
func mergeCountSwaps(v, buf []float64) int64 {
	if len(v) < 2 {
		return 0
	}
	mid := len(v) / 2
	swaps := mergeCountSwaps(v[:mid], buf[:mid]) + mergeCountSwaps(v[mid:], buf[mid:])
	copy(buf, v)
	l, r := buf[:mid], buf[mid:len(v)]
	i, j, k := 0, 0, 0
	for i < len(l) && j < len(r) {
		if r[j] < l[i] {
			v[k] = r[j]
			swaps += int64(len(l) - i)
			j++
		} else {
			v[k] = l[i]
			i++
		}
		k++
	}
	k += copy(v[k:], l[i:])
	copy(v[k:], r[j:])
	return swaps
}

func checkPair(x, y []float64) error {
	if err := checkScores("x", x, len(y)); err != nil {
		return err
	}
	return checkScores("y", y, len(x))
}
