package gmn

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pgequiv/pgequiv/gmn/graph"
)

// ErrForeignEmbeddings is returned when embeddings made by one model are
// scored by another.
var ErrForeignEmbeddings = errors.New("gmn: embeddings were computed by a different model")

// Embeddings are a graph's standalone node embeddings: the input node
// states h⁰ (operator-type embedding plus content-node string encoding),
// which depend on the graph alone. Propagation needs the other graph of the
// pair (cross-graph attention, the merged positional encoding), so this is
// the part of a score a cache can keep per query. Embeddings are read-only
// and safe to share between goroutines.
type Embeddings struct {
	model *Model
	g     *graph.Graph
	h0    []float64 // len(g.Nodes)×Hidden, row-major
}

// Graph returns the embedded graph.
func (e *Embeddings) Graph() *graph.Graph { return e.g }

// Bytes is the approximate memory e holds beyond the graph.
func (e *Embeddings) Bytes() int64 { return int64(8*len(e.h0)) + 64 }

// Embed computes g's standalone node embeddings. It is safe for concurrent
// use.
func (m *Model) Embed(g *graph.Graph) (*Embeddings, error) {
	if err := g.Validate(m.cfg.NumTypes); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGraph, err)
	}
	sc := m.pool.Get().(*scratch)
	defer m.pool.Put(sc)
	p := &sc.in
	p.reset()
	p.n1, p.n = len(g.Nodes), len(g.Nodes)
	m.addGraph(p, g, 0, 0)
	sc.tape.Reset()
	h := m.initialStates(sc.tape, p).Val.RawMatrix()
	out := make([]float64, 0, p.n*m.cfg.Hidden)
	for i := 0; i < h.Rows; i++ {
		out = append(out, h.Data[i*h.Stride:i*h.Stride+h.Cols]...)
	}
	for _, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, ErrNonFinite
		}
	}
	return &Embeddings{model: m, g: g, h0: out}, nil
}

// ScoreEmbedded is Score on embedded graphs: the encoders are skipped and
// only the pair-dependent propagation and readout run. It returns the same
// similarity as Score on the embedded graphs (up to rounding).
func (m *Model) ScoreEmbedded(a, b *Embeddings, seeds []graph.Pair) (float64, error) {
	return m.ScoreEmbeddedContext(context.Background(), a, b, seeds)
}

// ScoreEmbeddedContext is ScoreEmbedded, stopping with ctx's error when
// ctx ends (polled before each propagation step).
func (m *Model) ScoreEmbeddedContext(ctx context.Context, a, b *Embeddings, seeds []graph.Pair) (float64, error) {
	if a.model != m || b.model != m {
		return 0, ErrForeignEmbeddings
	}
	sc := m.pool.Get().(*scratch)
	defer m.pool.Put(sc)
	p := &sc.in
	if err := m.prepareInput(p, a.g, b.g, seeds, m.cfg.NumTypes, false); err != nil {
		return 0, err
	}
	p.h0 = append(append(sc.h0[:0], a.h0...), b.h0...)
	sc.h0 = p.h0
	sc.tape.Reset()
	p.ctx, p.err = ctx, nil
	vecs := m.forward(sc.tape, p)
	p.ctx = nil // the scratch is reused by calls that pass no context
	if p.err != nil {
		return 0, p.err
	}
	d2 := pairDist(sc.tape, vecs).Scalar()
	if math.IsNaN(d2) || math.IsInf(d2, 0) {
		return 0, ErrNonFinite
	}
	return math.Exp(-d2 / m.cfg.Tau), nil
}
