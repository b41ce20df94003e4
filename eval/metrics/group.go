package metrics

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Sample is one judged pair as the per-group breakdown sees it.
type Sample struct {
	Group     string  // e.g. the pair's database or candidate source
	Score     float64 // the judge's score; higher means more likely equivalent
	Predicted bool    // the judge's verdict is "equivalent"
	Actual    bool    // the label is "equivalent"
}

// GroupStats summarises the samples of one group.
type GroupStats struct {
	Group     string
	Confusion Confusion
	// AUC is the area under the ROC curve of the group's scores, or NaN
	// when the group's labels are all of one class.
	AUC float64
}

// ByGroup returns one GroupStats per distinct Sample.Group, sorted by group
// name. Pass samples with a common Group to get overall figures.
func ByGroup(samples []Sample) ([]GroupStats, error) {
	groups := make(map[string][]int)
	for i, s := range samples {
		if math.IsNaN(s.Score) {
			return nil, fmt.Errorf("sample %d (group %q): %w", i, s.Group, ErrNaN)
		}
		groups[s.Group] = append(groups[s.Group], i)
	}
	out := make([]GroupStats, 0, len(groups))
	for g, members := range groups {
		st := GroupStats{Group: g}
		scores := make([]float64, len(members))
		labels := make([]bool, len(members))
		for k, i := range members {
			s := samples[i]
			st.Confusion.Add(s.Predicted, s.Actual)
			scores[k], labels[k] = s.Score, s.Actual
		}
		auc, err := AUC(scores, labels)
		switch {
		case errors.Is(err, ErrOneClass):
			auc = math.NaN()
		case err != nil:
			return nil, fmt.Errorf("group %q: %w", g, err)
		}
		st.AUC = auc
		out = append(out, st)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Group < out[b].Group })
	return out, nil
}
