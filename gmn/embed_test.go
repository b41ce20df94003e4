package gmn

import (
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
