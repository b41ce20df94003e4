package gmn

import (
	"math/rand/v2"
	"testing"

	"github.com/pgequiv/pgequiv/gmn/graph"
)

// benchPair returns two plan-like graphs of about 40 nodes each.
func benchPair() (*graph.Graph, *graph.Graph, []graph.Pair) {
	rng := rand.New(rand.NewPCG(100, 200))
	a, b := randomPlan(30, rng), randomPlan(30, rng)
	return a, b, graph.ContentSeeds(a, b)
}

func benchmarkScore(b *testing.B, enc EncoderKind) {
	m, err := New(Config{NumTypes: testTypes, Encoder: enc}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	g1, g2, seeds := benchPair()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Score(g1, g2, seeds); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g1.Nodes)+len(g2.Nodes))/2, "nodes/graph")
}

// Concurrent scoring throughput over GOMAXPROCS goroutines.
func BenchmarkScoreParallel(b *testing.B) {
	m, err := New(Config{NumTypes: testTypes}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	g1, g2, seeds := benchPair()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := m.Score(g1, g2, seeds); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// Default config (Hidden 32, T 3), one goroutine, ~40 nodes per graph.
func BenchmarkScoreNGram(b *testing.B) { benchmarkScore(b, EncoderNGram) }
func BenchmarkScoreCNN(b *testing.B)   { benchmarkScore(b, EncoderCNN) }

func BenchmarkPairStep(b *testing.B) {
	m, err := New(Config{NumTypes: testTypes}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	tr, err := NewTrainer(m, TrainConfig{})
	if err != nil {
		b.Fatal(err)
	}
	g1, g2, seeds := benchPair()
	batch := []Example{{A: g1, B: g2, Seeds: seeds, Label: 1}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tr.PairStep(batch); err != nil {
			b.Fatal(err)
		}
	}
}
