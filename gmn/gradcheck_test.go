package gmn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgequiv/pgequiv/gmn/graph"
)

func TestModelGradCheck(t *testing.T) {
	const h, tol = 1e-6, 1e-5 // tol: max |analytic − numeric| / max(1, |numeric|)
	for _, enc := range encoders {
		for _, mode := range []string{"pair", "contrastive"} {
			t.Run(enc.String()+"/"+mode, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(11, uint64(enc)))
				m, err := New(tinyConfig(enc), rng)
				if err != nil {
					t.Fatal(err)
				}
				// Zero-initialised biases put padded CNN positions exactly on
				// the ReLU kink, where central differences read 1/2; jitter
				// every weight so the check sees a smooth point.
				for _, p := range m.ps.Params() {
					for j := range p.Val.RawMatrix().Data {
						p.Val.RawMatrix().Data[j] += 0.1 * rng.NormFloat64()
					}
				}
				tr, err := NewTrainer(m, TrainConfig{Workers: 2})
				if err != nil {
					t.Fatal(err)
				}
				a, b, c := randomPlan(4, rng), randomPlan(5, rng), randomPlan(3, rng)
				var loss func() (float64, error)
				switch mode {
				case "pair":
					batch := []Example{
						{A: a, B: b, Label: 0},
						{A: a, B: permute(a, rng), Label: 1, Seeds: nil},
						{A: c, B: b, Label: 0.3, Seeds: graph.ContentSeeds(c, b)},
					}
					loss = func() (float64, error) { return tr.pairGrads(batch) }
				case "contrastive":
					v1, _ := graph.MaskAttributes(a, 0.3, m.MaskType(), rng)
					views := []viewPair{{a: a, b: v1}, {a: b, b: permute(b, rng)}, {a: c, b: c}}
					loss = func() (float64, error) { return tr.contrastiveGrads(views) }
				}
				if _, err := loss(); err != nil {
					t.Fatal(err)
				}
				got := m.ps.NewGrads()
				got.AddScaled(1, tr.total)
				checked, bad := 0, 0
				for pi, p := range m.ps.Params() {
					w := p.Val.RawMatrix().Data
					g := got[pi].RawMatrix().Data
					for j := range w {
						old := w[j]
						w[j] = old + h
						fp, _ := loss()
						w[j] = old - h
						fm, _ := loss()
						w[j] = old
						num := (fp - fm) / (2 * h)
						checked++
						if e := math.Abs(g[j]-num) / math.Max(1, math.Abs(num)); e > tol {
							bad++
							if bad <= 5 {
								t.Errorf("%s[%d]: analytic %.9g numeric %.9g", p.Name, j, g[j], num)
							}
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d weights off", bad, checked)
				}
			})
		}
	}
}
