package gmn

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/pgequiv/pgequiv/gmn/graph"
)

// synthBatch returns n labelled pairs: a graph against a renumbered copy of
// itself (label 1) or against an unrelated graph (label 0).
func synthBatch(n int, rng *rand.Rand) []Example {
	var out []Example
	for i := 0; i < n; i++ {
		a := randomPlan(4+rng.IntN(4), rng)
		if i%2 == 0 {
			b := permute(a, rng)
			out = append(out, Example{A: a, B: b, Label: 1})
		} else {
			b := randomPlan(4+rng.IntN(4), rng)
			out = append(out, Example{A: a, B: b, Label: 0})
		}
	}
	return out
}

func TestPairTrainingReducesLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	cfg := Config{NumTypes: testTypes, Hidden: 8, GraphDim: 8, Steps: 2, NGramBuckets: 64}
	m, err := New(cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(m, TrainConfig{LR: 0.01, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	batch := synthBatch(12, rng)
	first, err := tr.PairStep(batch)
	if err != nil {
		t.Fatal(err)
	}
	var last float64
	for i := 0; i < 40; i++ {
		if last, err = tr.PairStep(batch); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("pair BCE %.4f → %.4f", first, last)
	if !(last < 0.5*first) {
		t.Errorf("loss %g → %g after 40 steps, want below half", first, last)
	}
	if tr.Steps() != 41 {
		t.Errorf("Steps = %d, want 41", tr.Steps())
	}
}

func TestContrastiveTrainingReducesLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	m, err := New(Config{NumTypes: testTypes, Hidden: 8, GraphDim: 8, Steps: 2, NGramBuckets: 64}, rng)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(m, TrainConfig{LR: 0.01, Workers: 2, DropFrac: 0.1, MaskFrac: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	var gs []*graph.Graph
	for i := 0; i < 8; i++ {
		gs = append(gs, randomPlan(10, rng))
	}
	mean := func(n int) float64 {
		s := 0.0
		for i := 0; i < n; i++ {
			l, err := tr.ContrastiveStep(gs, rng)
			if err != nil {
				t.Fatal(err)
			}
			s += l
		}
		return s / float64(n)
	}
	early := mean(5)
	mean(20)
	late := mean(5)
	t.Logf("NT-Xent %.4f → %.4f", early, late)
	if !(late < 0.8*early) {
		t.Errorf("NT-Xent %g → %g, want a 20%% drop", early, late)
	}
}

// Two runs from the same seeds end with bit-identical weights, and the
// worker count only changes rounding.
func TestTrainingDeterministic(t *testing.T) {
	run := func(workers int) *Model {
		rng := rand.New(rand.NewPCG(41, 42))
		m, err := New(tinyConfig(EncoderCNN), rng)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTrainer(m, TrainConfig{LR: 0.01, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		batch := synthBatch(7, rng)
		var gs []*graph.Graph
		for _, ex := range batch {
			gs = append(gs, ex.A)
		}
		for i := 0; i < 3; i++ {
			if _, err := tr.PairStep(batch); err != nil {
				t.Fatal(err)
			}
			if _, err := tr.ContrastiveStep(gs, rng); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	a, b, c := run(3), run(3), run(1)
	const tol = 1e-9
	for i, p := range a.ps.Params() {
		pb, pc := b.ps.Params()[i].Val.RawMatrix().Data, c.ps.Params()[i].Val.RawMatrix().Data
		for j, v := range p.Val.RawMatrix().Data {
			if v != pb[j] {
				t.Fatalf("%s[%d]: run 1 %v, run 2 %v (same seed, same workers)", p.Name, j, v, pb[j])
			}
			if d := v - pc[j]; d > tol || d < -tol {
				t.Fatalf("%s[%d]: 3 workers %v, 1 worker %v (tol %g)", p.Name, j, v, pc[j], tol)
			}
		}
	}
}

func TestTrainerErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	m, err := New(tinyConfig(EncoderNGram), rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []TrainConfig{{LR: -1}, {Workers: -2}, {Temperature: -1}, {DropFrac: 1}} {
		if _, err := NewTrainer(m, cfg); !errors.Is(err, ErrTrainConfig) {
			t.Errorf("%+v: err = %v, want ErrTrainConfig", cfg, err)
		}
	}
	tr, err := NewTrainer(m, TrainConfig{})
	if err != nil {
		t.Fatal(err)
	}
	g := randomPlan(4, rng)
	if _, err := tr.PairStep(nil); !errors.Is(err, ErrBatch) {
		t.Errorf("empty batch: %v", err)
	}
	if _, err := tr.PairStep([]Example{{A: g, B: g, Label: 2}}); !errors.Is(err, ErrBatch) {
		t.Errorf("label 2: %v", err)
	}
	if _, err := tr.PairStep([]Example{{A: g, B: &graph.Graph{}, Label: 1}}); !errors.Is(err, ErrGraph) {
		t.Errorf("empty graph: %v", err)
	}
	if _, err := tr.ContrastiveStep([]*graph.Graph{g}, rng); !errors.Is(err, ErrBatch) {
		t.Errorf("one graph: %v", err)
	}
	if _, err := tr.ContrastiveStep([]*graph.Graph{g, g}, nil); !errors.Is(err, ErrNilRand) {
		t.Errorf("nil rng: %v", err)
	}
	if tr.Steps() != 0 {
		t.Errorf("failed steps updated the weights: Steps = %d", tr.Steps())
	}
}

func TestEvalPairsDoesNotUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	m, err := New(tinyConfig(EncoderNGram), rng)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrainer(m, TrainConfig{})
	if err != nil {
		t.Fatal(err)
	}
	batch := synthBatch(4, rng)
	l1, err := tr.EvalPairs(batch)
	if err != nil {
		t.Fatal(err)
	}
	l2, _ := tr.EvalPairs(batch)
	if l1 != l2 || tr.Steps() != 0 {
		t.Errorf("EvalPairs changed state: %g then %g, steps %d", l1, l2, tr.Steps())
	}
	step, _ := tr.PairStep(batch)
	if step != l1 {
		t.Errorf("PairStep reported %g, EvalPairs %g before the update", step, l1)
	}
	if l3, _ := tr.EvalPairs(batch); l3 == l1 {
		t.Error("PairStep did not change the loss")
	}
}
