package metrics

import (
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol
}

func TestAverageRanks(t *testing.T) {
	tests := []struct {
		x, want []float64
	}{
		{[]float64{3, 1, 2}, []float64{3, 1, 2}},
		{[]float64{5, 6, 7, 8, 7}, []float64{1, 2, 3.5, 5, 3.5}},
		{[]float64{2, 2, 2}, []float64{2, 2, 2}},
		{[]float64{math.Inf(-1), 0, math.Inf(1), 0}, []float64{1, 2.5, 4, 2.5}},
	}
	for _, tt := range tests {
		got := averageRanks(tt.x)
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("averageRanks(%v) = %v, want %v", tt.x, got, tt.want)
				break
			}
		}
	}
}

func TestAUC(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		labels []bool
		want   float64
		tol    float64
	}{
		// scikit-learn's roc_auc_score example: 3 of 4 pairs ordered.
		{"sklearn", []float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}, 0.75, 1e-12},
		{"perfect", []float64{0.1, 0.2, 0.8, 0.9}, []bool{false, false, true, true}, 1, 0},
		{"inverted", []float64{0.9, 0.8, 0.2, 0.1}, []bool{false, false, true, true}, 0, 0},
		{"all tied", []float64{0.5, 0.5, 0.5, 0.5}, []bool{false, true, false, true}, 0.5, 0},
		// Pairs (pos, neg): 3>1, 3>2, 2>1 and 2=2 for half: 3.5 / 4.
		{"one tie", []float64{1, 2, 2, 3}, []bool{false, false, true, true}, 0.875, 1e-12},
		// Positives {1, 1, 0} against negatives {1, 0}: wins 1>0 twice, ties
		// 1=1 twice and 0=0 once, one loss: (2 + 3/2) / 6.
		{"binary scores", []float64{1, 1, 0, 1, 0}, []bool{true, true, true, false, false}, 3.5 / 6, 1e-12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AUC(tt.scores, tt.labels)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got, tt.want, tt.tol) {
				t.Errorf("AUC = %v, want %v", got, tt.want)
			}
			c, err := ROC(tt.scores, tt.labels)
			if err != nil {
				t.Fatal(err)
			}
			if area := c.Area(); !near(area, tt.want, 1e-12) {
				t.Errorf("ROC area = %v, want %v", area, tt.want)
			}
		})
	}
}

// bruteAUC counts positive–negative pairs directly.
func bruteAUC(scores []float64, labels []bool) float64 {
	var wins float64
	var n int
	for i := range scores {
		for j := range scores {
			if !labels[i] || labels[j] {
				continue
			}
			n++
			switch {
			case scores[i] > scores[j]:
				wins++
			case scores[i] == scores[j]:
				wins += 0.5
			}
		}
	}
	return wins / float64(n)
}

func TestAUCMatchesPairCount(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 100; trial++ {
		n := 2 + r.IntN(60)
		scores := make([]float64, n)
		labels := make([]bool, n)
		for i := range scores {
			scores[i] = float64(r.IntN(6)) // few levels: many ties
			labels[i] = r.IntN(2) == 1
		}
		labels[0], labels[1] = true, false
		got, err := AUC(scores, labels)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ROC(scores, labels)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteAUC(scores, labels)
		if !near(got, want, 1e-12) || !near(c.Area(), want, 1e-12) {
			t.Fatalf("AUC = %v, curve area %v, pair count %v for %v %v", got, c.Area(), want, scores, labels)
		}
	}
}

func TestROCPoints(t *testing.T) {
	scores := []float64{0.9, 0.8, 0.8, 0.3, 0.1}
	labels := []bool{true, true, false, true, false}
	got, err := ROC(scores, labels)
	if err != nil {
		t.Fatal(err)
	}
	want := Curve{
		{0, 0, math.Inf(1)},
		{0, 1.0 / 3, 0.9},
		{0.5, 2.0 / 3, 0.8}, // the tie at 0.8 moves diagonally
		{0.5, 1, 0.3},
		{1, 1, 0.1},
	}
	if len(got) != len(want) {
		t.Fatalf("ROC = %v, want %v", got, want)
	}
	for i := range want {
		if !near(got[i].FPR, want[i].FPR, 1e-12) || !near(got[i].TPR, want[i].TPR, 1e-12) || got[i].Threshold != want[i].Threshold {
			t.Errorf("point %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestBinaryInputErrors(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		labels []bool
		want   error
	}{
		{"length", []float64{1, 2}, []bool{true}, ErrLength},
		{"empty", nil, nil, ErrEmpty},
		{"nan", []float64{1, math.NaN()}, []bool{true, false}, ErrNaN},
		{"all positive", []float64{1, 2}, []bool{true, true}, ErrOneClass},
		{"all negative", []float64{1, 2}, []bool{false, false}, ErrOneClass},
	}
	for _, tt := range tests {
		if _, err := AUC(tt.scores, tt.labels); !errors.Is(err, tt.want) {
			t.Errorf("%s: AUC error = %v, want %v", tt.name, err, tt.want)
		}
		if _, err := ROC(tt.scores, tt.labels); !errors.Is(err, tt.want) {
			t.Errorf("%s: ROC error = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestSpearman(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		// Ranks of y are 1, 2, 3.5, 5, 3.5: ρ = 8 / sqrt(10 · 9.5).
		{"scipy example", []float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}, 8 / math.Sqrt(95)},
		{"monotone, not linear", []float64{1, 2, 3, 4}, []float64{1, 10, 100, 1000}, 1},
		{"reversed", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// d = 0, 1, -1, 0: ρ = 1 - 6·2 / (4·15).
		{"one swap", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 0.8},
	}
	for _, tt := range tests {
		got, err := Spearman(tt.x, tt.y)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !near(got, tt.want, 1e-12) {
			t.Errorf("%s: Spearman = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// naiveTauB is the O(n²) definition: concordant minus discordant pairs over
// the geometric mean of the pairs untied in x and in y.
func naiveTauB(x, y []float64) float64 {
	sign := func(v float64) int {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	}
	var s, tx, ty, n0 int
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			dx, dy := sign(x[i]-x[j]), sign(y[i]-y[j])
			s += dx * dy
			if dx == 0 {
				tx++
			}
			if dy == 0 {
				ty++
			}
			n0++
		}
	}
	return float64(s) / math.Sqrt(float64(n0-tx)*float64(n0-ty))
}

func TestKendallTauB(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		// scipy.stats.kendalltau documentation example.
		{"scipy example", []float64{12, 2, 1, 12, 2}, []float64{1, 4, 7, 1, 0}, -0.47140452079103173},
		// 5 concordant, 1 discordant of 6 pairs.
		{"one swap", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 4.0 / 6},
		{"ties cancel", []float64{1, 1, 2, 2}, []float64{1, 2, 1, 2}, 0},
		{"identical with ties", []float64{1, 2, 2, 3}, []float64{1, 2, 2, 3}, 1},
		{"reversed", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
	}
	for _, tt := range tests {
		got, err := KendallTauB(tt.x, tt.y)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !near(got, tt.want, 1e-12) {
			t.Errorf("%s: KendallTauB = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestKendallTauBMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for trial := 0; trial < 200; trial++ {
		n := 2 + r.IntN(80)
		levels := 1 + r.IntN(10) // few levels: many ties
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(levels))
			y[i] = float64(r.IntN(levels))
		}
		x[0], x[1], y[0], y[1] = 0, 1, 1, 0 // neither variable is constant
		got, err := KendallTauB(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if want := naiveTauB(x, y); !near(got, want, 1e-12) {
			t.Fatalf("KendallTauB = %v, naive %v for x=%v y=%v", got, want, x, y)
		}
	}
}

func TestCorrelationErrors(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want error
	}{
		{"length", []float64{1, 2}, []float64{1}, ErrLength},
		{"empty", nil, nil, ErrEmpty},
		{"nan in y", []float64{1, 2}, []float64{1, math.NaN()}, ErrNaN},
		{"constant x", []float64{3, 3, 3}, []float64{1, 2, 3}, ErrConstant},
		{"single pair", []float64{1}, []float64{2}, ErrConstant},
	}
	for _, tt := range tests {
		if _, err := Spearman(tt.x, tt.y); !errors.Is(err, tt.want) {
			t.Errorf("%s: Spearman error = %v, want %v", tt.name, err, tt.want)
		}
		if _, err := KendallTauB(tt.x, tt.y); !errors.Is(err, tt.want) {
			t.Errorf("%s: KendallTauB error = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestConfusion(t *testing.T) {
	tests := []struct {
		name              string
		pred, actual      []bool
		want              Confusion
		prec, rec, f1, ac float64
	}{
		{
			name:   "mixed",
			pred:   []bool{true, true, true, false, false, false},
			actual: []bool{true, true, false, true, false, false},
			want:   Confusion{TP: 2, FP: 1, TN: 2, FN: 1},
			prec:   2.0 / 3, rec: 2.0 / 3, f1: 2.0 / 3, ac: 4.0 / 6,
		},
		{
			name:   "precise but timid",
			pred:   []bool{true, false, false, false},
			actual: []bool{true, true, true, false},
			want:   Confusion{TP: 1, FN: 2, TN: 1},
			prec:   1, rec: 1.0 / 3, f1: 0.5, ac: 0.5,
		},
		{
			name:   "never predicts positive",
			pred:   []bool{false, false},
			actual: []bool{true, false},
			want:   Confusion{FN: 1, TN: 1},
			prec:   0, rec: 0, f1: 0, ac: 0.5,
		},
		{name: "empty"},
	}
	for _, tt := range tests {
		c, err := NewConfusion(tt.pred, tt.actual)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if c != tt.want {
			t.Errorf("%s: confusion = %+v, want %+v", tt.name, c, tt.want)
		}
		for _, m := range []struct {
			metric    string
			got, want float64
		}{
			{"precision", c.Precision(), tt.prec},
			{"recall", c.Recall(), tt.rec},
			{"F1", c.F1(), tt.f1},
			{"accuracy", c.Accuracy(), tt.ac},
		} {
			if !near(m.got, m.want, 1e-12) {
				t.Errorf("%s: %s = %v, want %v", tt.name, m.metric, m.got, m.want)
			}
		}
	}
	if _, err := NewConfusion([]bool{true}, nil); !errors.Is(err, ErrLength) {
		t.Errorf("length mismatch: error = %v, want ErrLength", err)
	}
}

func TestByGroup(t *testing.T) {
	samples := []Sample{
		{Group: "gpt4", Score: 0.9, Predicted: true, Actual: true},
		{Group: "gpt35", Score: 0.2, Predicted: false, Actual: false},
		{Group: "gpt4", Score: 0.4, Predicted: false, Actual: true},
		{Group: "gpt4", Score: 0.6, Predicted: true, Actual: false},
		{Group: "gpt35", Score: 0.7, Predicted: true, Actual: false},
	}
	got, err := ByGroup(samples)
	if err != nil {
		t.Fatal(err)
	}
	want := []GroupStats{
		{Group: "gpt35", Confusion: Confusion{FP: 1, TN: 1}, AUC: math.NaN()},
		// Positives 0.9, 0.4 against negative 0.6: one of two pairs.
		{Group: "gpt4", Confusion: Confusion{TP: 1, FP: 1, FN: 1}, AUC: 0.5},
	}
	if len(got) != len(want) {
		t.Fatalf("ByGroup = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Group != want[i].Group || got[i].Confusion != want[i].Confusion || !near(got[i].AUC, want[i].AUC, 1e-12) {
			t.Errorf("group %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := ByGroup([]Sample{{Score: math.NaN()}}); !errors.Is(err, ErrNaN) {
		t.Errorf("NaN score: error = %v, want ErrNaN", err)
	}
}

func TestPlotROC(t *testing.T) {
	good, err := ROC([]float64{0.9, 0.8, 0.7, 0.3, 0.2}, []bool{true, true, false, true, false})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "roc.png")
	err = PlotROC(path,
		NamedCurve{Name: "judge", Curve: good},
		NamedCurve{Name: "chance", Curve: Curve{{0, 0, math.Inf(1)}, {1, 1, 0}}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	const px = 480 // PlotSize at 96 dpi
	if b := img.Bounds(); b.Dx() != px || b.Dy() != px {
		t.Errorf("image is %dx%d, want %dx%d", b.Dx(), b.Dy(), px, px)
	}
}

func TestPlotROCErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		path   string
		curves []NamedCurve
		want   error
	}{
		{"no curves", filepath.Join(dir, "a.png"), nil, ErrNoCurves},
		{"empty curve", filepath.Join(dir, "b.png"), []NamedCurve{{Name: "x"}}, ErrEmpty},
		{"missing directory", filepath.Join(dir, "no", "c.png"), []NamedCurve{{Name: "x", Curve: Curve{{0, 0, 1}, {1, 1, 0}}}}, os.ErrNotExist},
	}
	for _, tt := range tests {
		if err := PlotROC(tt.path, tt.curves...); !errors.Is(err, tt.want) {
			t.Errorf("%s: error = %v, want %v", tt.name, err, tt.want)
		}
	}
}
