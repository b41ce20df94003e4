package gmn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pgequiv/pgequiv/gmn/graph"
)

// Scoring cached standalone embeddings gives Score's similarity, for both
// encoders, in either argument order, and interleaved with plain Score
// calls that reuse the same pooled scratch.
func TestScoreEmbeddedMatchesScore(t *testing.T) {
	for _, enc := range encoders {
		t.Run(enc.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			m, err := New(Config{NumTypes: testTypes, Encoder: enc}, rng)
			if err != nil {
				t.Fatal(err)
			}
			const tol = 1e-12
			for i := 0; i < 20; i++ {
				a, b := randomPlan(5+rng.IntN(30), rng), randomPlan(5+rng.IntN(30), rng)
				seeds := graph.ContentSeeds(a, b)
				want, err := m.Score(a, b, seeds)
				if err != nil {
					t.Fatal(err)
				}
				ea, err := m.Embed(a)
				if err != nil {
					t.Fatal(err)
				}
				eb, err := m.Embed(b)
				if err != nil {
					t.Fatal(err)
				}
				got, err := m.ScoreEmbedded(ea, eb, seeds)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > tol {
					t.Fatalf("pair %d: ScoreEmbedded = %.15g, Score = %.15g (tol %g)", i, got, want, tol)
				}
				// The scratch used by ScoreEmbedded must not leak its
				// precomputed states into the next plain Score.
				if again, _ := m.Score(a, b, seeds); again != want {
					t.Fatalf("pair %d: Score after ScoreEmbedded = %.15g, before %.15g", i, again, want)
				}
			}
		})
	}
}

func TestScoreEmbeddedRejectsForeignEmbeddings(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m1, _ := New(Config{NumTypes: testTypes}, rng)
	m2, _ := New(Config{NumTypes: testTypes}, rng)
	g := randomPlan(8, rng)
	e1, err := m1.Embed(g)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := m2.Embed(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m1.ScoreEmbedded(e1, e2, nil); !errors.Is(err, ErrForeignEmbeddings) {
		t.Fatalf("err = %v, want ErrForeignEmbeddings", err)
	}
	bad := &graph.Graph{}
	bad.AddNode(graph.Node{Kind: graph.Computing, Type: testTypes + 5})
	if _, err := m1.Embed(bad); !errors.Is(err, ErrGraph) {
		t.Fatalf("Embed(bad type) err = %v, want ErrGraph", err)
	}
}

// ScoreEmbeddedContext stops at a propagation step once its context has
// ended, and with a live context scores as ScoreEmbedded does; the pooled
// scratch keeps no context for the next call.
func TestScoreEmbeddedContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, err := New(Config{NumTypes: testTypes}, rng)
	if err != nil {
		t.Fatal(err)
	}
	a, b := randomPlan(20, rng), randomPlan(25, rng)
	ea, err := m.Embed(a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := m.Embed(b)
	if err != nil {
		t.Fatal(err)
	}
	seeds := graph.ContentSeeds(a, b)
	want, err := m.ScoreEmbedded(ea, eb, seeds)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.ScoreEmbeddedContext(ctx, ea, eb, seeds); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v, want context.Canceled", err)
	}
	for _, c := range []context.Context{context.Background(), nil} {
		var got float64
		if c == nil {
			got, err = m.ScoreEmbedded(ea, eb, seeds)
		} else {
			got, err = m.ScoreEmbeddedContext(c, ea, eb, seeds)
		}
		if err != nil || got != want {
			t.Fatalf("after a cancelled call: %v, %v; want %v", got, err, want)
		}
	}
}
