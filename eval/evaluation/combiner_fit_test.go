package evaluation

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/gmntrain"
	"github.com/pgequiv/pgequiv/eval/metrics"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
)

// TestFitCombiner refits the judge's logistic combiners on the shared
// Spider pairs and reports their db-grouped 5-fold cross-validated AUC:
//
//	FIT_COMBINER=1 go test ./eval/evaluation -run FitCombiner -v
//	FIT_COMBINER=1 FIT_GMN_OOF=oof.jsonl go test ./eval/evaluation -run FitCombiner -v
//
// The first fits DefaultCombiner (structural scores and the refuter's
// search evidence); with FIT_GMN_OOF, the out-of-fold GMN scores of
// `pgequiv train --cv 5 --oof` fit GMNCombiner (GMN and search evidence).
// Proved pairs are not fitted (they keep their band whatever the combiner
// says); unknown and refuted ones are, as the combiner orders both bands
// (FIT_ON=unknown or all changes that).
func TestFitCombiner(t *testing.T) {
	if os.Getenv("FIT_COMBINER") == "" {
		t.Skip("set FIT_COMBINER=1 to refit the combiners")
	}
	shared := shareddata.Path(t, "data")
	pairs, err := dataset.ReadPairsFile(filepath.Join(shared, "spider_pair_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// A generous budget: the searches end by their instance count, as on
	// an idle machine, not by a clock that other load slows.
	judge := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: time.Second}}
	results, err := Run(context.Background(), pairs, &Schemas{Dir: filepath.Join(shared, "schemas")}, Options{Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	var oof map[string]float64
	if f := os.Getenv("FIT_GMN_OOF"); f != "" {
		oof = readOOF(t, f)
	}
	fitted := func(r Result) bool {
		switch os.Getenv("FIT_ON") {
		case "all":
			return r.Err == nil
		case "unknown":
			return r.Err == nil && r.Verdict.Label == equivalence.Unknown
		}
		return r.Err == nil && !r.Verdict.Label.Proved()
	}
	features := func(v equivalence.Verdict, id string) []float64 {
		ev := equivalence.SearchEvidence(v.Search)
		if oof != nil {
			return []float64{1, oof[id], ev}
		}
		return []float64{1, v.Scores.ESM, v.Scores.RelPM, v.Scores.ASTTE, ev}
	}
	combiner := func(w []float64) equivalence.Combiner {
		if oof != nil {
			return equivalence.LogisticCombiner{Bias: w[0], GMN: w[1], Search: w[2]}
		}
		return equivalence.LogisticCombiner{Bias: w[0], ESM: w[1], RelPM: w[2], ASTTE: w[3], Search: w[4]}
	}
	dbs := make([]string, len(results))
	for i, r := range results {
		dbs[i] = r.Pair.DB
		if oof != nil {
			results[i].Verdict.Scores.GMN = oof[r.Pair.ID]
		}
	}
	folds, err := gmntrain.DBFolds(dbs, 5)
	if err != nil {
		t.Fatal(err)
	}
	scores := make([]float64, len(results))
	actual := make([]bool, len(results))
	for k := 0; k < 5; k++ {
		var xs [][]float64
		var ys []float64
		for _, r := range results {
			if folds[r.Pair.DB] != k && fitted(r) {
				xs = append(xs, features(r.Verdict, r.Pair.ID))
				ys = append(ys, float64(r.Pair.Label))
			}
		}
		c := combiner(fitLogistic(xs, ys))
		for i, r := range results {
			if folds[r.Pair.DB] == k {
				scores[i] = equivalence.Rescore(r.Verdict, c, equivalence.Options{}).Score
				actual[i] = r.Pair.Label == 1
			}
		}
	}
	auc, err := metrics.AUC(scores, actual)
	if err != nil {
		t.Fatal(err)
	}
	var xs [][]float64
	var ys []float64
	for _, r := range results {
		if fitted(r) {
			xs = append(xs, features(r.Verdict, r.Pair.ID))
			ys = append(ys, float64(r.Pair.Label))
		}
	}
	t.Logf("pairs fitted (FIT_ON=%q): %d of %d", os.Getenv("FIT_ON"), len(xs), len(results))
	base := make([]float64, len(results))
	for i, r := range results {
		base[i] = r.Verdict.Score
	}
	if oof == nil {
		b, _ := metrics.AUC(base, actual)
		t.Logf("pooled AUC with the shipped combiner: %.4f", b)
	}
	t.Logf("db-grouped 5-fold CV, pooled AUC of the judge's score: %.4f", auc)
	t.Logf("weights fit on all pairs: %+v", combiner(fitLogistic(xs, ys)))
}

// fitLogistic fits logistic regression weights by Newton's method with a
// small ridge penalty (the features are few and the pairs hundreds).
func fitLogistic(xs [][]float64, ys []float64) []float64 {
	if len(xs) == 0 {
		return nil
	}
	d := len(xs[0])
	w := make([]float64, d)
	const ridge = 1e-2
	for iter := 0; iter < 50; iter++ {
		g := make([]float64, d)
		h := make([][]float64, d)
		for i := range h {
			h[i] = make([]float64, d)
			h[i][i] = ridge
			g[i] = ridge * w[i]
		}
		for n, x := range xs {
			z := 0.0
			for i := range x {
				z += w[i] * x[i]
			}
			p := 1 / (1 + math.Exp(-z))
			for i := range x {
				g[i] += (p - ys[n]) * x[i]
				for j := range x {
					h[i][j] += p * (1 - p) * x[i] * x[j]
				}
			}
		}
		step := solve(h, g)
		for i := range w {
			w[i] -= step[i]
		}
	}
	return w
}

// solve solves a·x = b by Gaussian elimination with partial pivoting.
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x
}

func readOOF(t *testing.T, path string) map[string]float64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec struct {
			ID    string  `json:"id"`
			Score float64 `json:"score"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		out[rec.ID] = rec.Score
	}
	return out
}
