package gmn

import (
	"math"

	ad "github.com/pgequiv/pgequiv/gmn/autodiff"
	"github.com/pgequiv/pgequiv/gmn/graph"
)

// scratch is the per-call working memory of Score, recycled through the
// model's sync.Pool: a forward-only tape whose matrices are reused and the
// flattened input buffers.
type scratch struct {
	tape *ad.Tape
	in   pairInput
	h0   []float64 // backing store for in.h0
}

// Score returns the similarity exp(−‖h_a − h_b‖²/τ) ∈ (0, 1] of two graphs.
// seeds are extra node pairs (a's node, b's node) identified when computing
// the positional encoding, typically graph.ContentSeeds(a, b); the roots are
// always identified. Score is safe for concurrent use.
func (m *Model) Score(a, b *graph.Graph, seeds []graph.Pair) (float64, error) {
	d2, err := m.SqDistance(a, b, seeds)
	if err != nil {
		return 0, err
	}
	return math.Exp(-d2 / m.cfg.Tau), nil
}

// SqDistance returns ‖h_a − h_b‖², the quantity Score maps to a similarity.
func (m *Model) SqDistance(a, b *graph.Graph, seeds []graph.Pair) (float64, error) {
	sc := m.pool.Get().(*scratch)
	defer m.pool.Put(sc)
	if err := m.prepare(&sc.in, a, b, seeds, m.cfg.NumTypes); err != nil {
		return 0, err
	}
	sc.tape.Reset()
	d2 := pairDist(sc.tape, m.forward(sc.tape, &sc.in)).Scalar()
	if math.IsNaN(d2) || math.IsInf(d2, 0) {
		return 0, ErrNonFinite
	}
	return d2, nil
}
