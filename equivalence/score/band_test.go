package score

import "testing"

// The bands meet but do not overlap: every proof ranks above every
// unsettled pair, and every unsettled pair above every refuted one.
func TestBandsOrderOutcomes(t *testing.T) {
	const eps = 1e-9 // 0.9 + 0.05 is not exactly 0.95
	groups := [][]Outcome{{Refuted, RefutedWeakly, RefutedByStructure}, {Unsettled}, {ProvedUnderAssumptions}, {Proved}}
	for i := 1; i < len(groups); i++ {
		for _, lo := range groups[i-1] {
			for _, hi := range groups[i] {
				if top, floor := Band(lo, 1), Band(hi, 0); top > floor+eps {
					t.Errorf("outcome %d tops at %v, above outcome %d's floor %v", lo, top, hi, floor)
				}
			}
		}
	}
}

func TestLikelyThreshold(t *testing.T) {
	tests := []struct {
		score, threshold float64
		want             string
	}{
		{0.5, 0, LikelyEquivalent},
		{0.49, 0, LikelyDifferent},
		{0.6, 0.7, LikelyDifferent},
		{0.7, 0.7, LikelyEquivalent},
	}
	for _, tc := range tests {
		if got := Likely(tc.score, tc.threshold); got != tc.want {
			t.Errorf("Likely(%v, %v) = %q, want %q", tc.score, tc.threshold, got, tc.want)
		}
	}
}

// An opinion moves a score within the unsettled band, a weak one half as
// far, and never lifts a score below the band.
func TestAdvisedStaysInBand(t *testing.T) {
	if got := Advised(0.5, true, false, 3, 3); got != 0.7 {
		t.Errorf("unanimous equivalent from 0.5: %v, want 0.7", got)
	}
	if got := Advised(0.5, true, true, 3, 3); got != 0.6 {
		t.Errorf("unanimous weak equivalent from 0.5: %v, want 0.6", got)
	}
	if got := Advised(0, false, false, 3, 3); got != 0 {
		t.Errorf("not equivalent from 0: %v, want 0", got)
	}
	if got := Advised(0.9, true, false, 3, 3); got > 0.9 {
		t.Errorf("equivalent from the band's top: %v, above 0.9", got)
	}
}
