package gmn

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	ad "github.com/pgequiv/pgequiv/gmn/autodiff"
	"github.com/pgequiv/pgequiv/gmn/graph"
)

var encoders = []EncoderKind{EncoderNGram, EncoderCNN}

func TestScoreProperties(t *testing.T) {
	for _, enc := range encoders {
		t.Run(enc.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			m, err := New(Config{NumTypes: testTypes, Encoder: enc}, rng)
			if err != nil {
				t.Fatal(err)
			}
			a, c := randomPlan(15, rng), randomPlan(15, rng)
			const tol = 1e-9
			self, err := m.Score(a, a.Clone(), graph.ContentSeeds(a, a))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(self-1) > tol {
				t.Errorf("Score(a, a) = %.12g, want 1 (tol %g)", self, tol)
			}
			ac, err := m.Score(a, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !(ac > 0 && ac < 1) {
				t.Errorf("Score(a, c) = %g, want in (0, 1)", ac)
			}
			// Renumbering nodes (and reordering edges) changes nothing.
			pc := permute(c, rng)
			apc, err := m.Score(a, pc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(apc-ac) > tol {
				t.Errorf("Score(a, perm(c)) = %.12g, Score(a, c) = %.12g (tol %g)", apc, ac, tol)
			}
			pa := permute(a, rng)
			if s, _ := m.Score(a, pa, nil); math.Abs(s-1) > tol {
				t.Errorf("Score(a, perm(a)) = %.12g, want 1", s)
			}
			// Swapping the arguments changes nothing.
			ca, _ := m.Score(c, a, nil)
			if math.Abs(ca-ac) > tol {
				t.Errorf("Score(c, a) = %.12g, Score(a, c) = %.12g", ca, ac)
			}
		})
	}
}

// Distinct identifiers get distinct content encodings (kid ≠ child).
func TestContentEncodersKeepIdentifiersApart(t *testing.T) {
	words := []string{"kid", "child", "kids", "dik", "", "x", "Kid"}
	for _, enc := range encoders {
		t.Run(enc.String(), func(t *testing.T) {
			m, err := New(Config{NumTypes: testTypes, Encoder: enc}, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			g := &graph.Graph{}
			g.AddNode(graph.Node{Kind: graph.Computing})
			for _, w := range words {
				g.AddNode(graph.Node{Kind: graph.Content, Type: 9, Text: w})
			}
			var p pairInput
			if err := m.prepare(&p, g, g, nil, testTypes); err != nil {
				t.Fatal(err)
			}
			tp := ad.NewTape(false)
			enc := m.encodeContent(tp, &p).Val
			const minDist = 1e-3
			for i := range words {
				for j := i + 1; j < len(words); j++ {
					d := 0.0
					for k, v := range enc.RawRowView(i) {
						d = math.Max(d, math.Abs(v-enc.RawRowView(j)[k]))
					}
					if d < minDist {
						t.Errorf("%q and %q encode within %g (max abs diff %g)", words[i], words[j], minDist, d)
					}
				}
			}
		})
	}
}

func TestScoreErrors(t *testing.T) {
	m, err := New(Config{NumTypes: testTypes}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	ok := randomPlan(5, rand.New(rand.NewPCG(2, 2)))
	cases := []struct {
		name  string
		a, b  *graph.Graph
		seeds []graph.Pair
	}{
		{"empty", &graph.Graph{}, ok, nil},
		{"nil", ok, nil, nil},
		{"maskType", &graph.Graph{Nodes: []graph.Node{{Type: testTypes}}}, ok, nil},
		{"edge", &graph.Graph{Nodes: []graph.Node{{}}, Edges: []graph.Edge{{From: 0, To: 1}}}, ok, nil},
		{"seed", ok, ok, []graph.Pair{{A: 0, B: 99}}},
	}
	for _, tc := range cases {
		if _, err := m.Score(tc.a, tc.b, tc.seeds); !errors.Is(err, ErrGraph) {
			t.Errorf("%s: err = %v, want ErrGraph", tc.name, err)
		}
	}
}

func TestNewValidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		name string
		cfg  Config
	}{
		{"noTypes", Config{}},
		{"negHidden", Config{NumTypes: 3, Hidden: -1}},
		{"evenKernel", Config{NumTypes: 3, CNNKernel: 2}},
		{"tau", Config{NumTypes: 3, Tau: -1}},
		{"encoder", Config{NumTypes: 3, Encoder: 7}},
	}
	for _, tc := range cases {
		if _, err := New(tc.cfg, rng); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", tc.name, err)
		}
	}
	if _, err := New(Config{NumTypes: 3}, nil); !errors.Is(err, ErrNilRand) {
		t.Errorf("nil rng: err = %v", err)
	}
}

// Concurrent Score calls share the pool and weights; run with -race.
func TestScoreConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, err := New(Config{NumTypes: testTypes}, rng)
	if err != nil {
		t.Fatal(err)
	}
	var gs []*graph.Graph
	for i := 0; i < 6; i++ {
		gs = append(gs, randomPlan(8+3*i, rng))
	}
	want := make([]float64, len(gs)*len(gs))
	for i, a := range gs {
		for j, b := range gs {
			if want[i*len(gs)+j], err = m.Score(a, b, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range want {
				i, j := (k+w)%len(want)/len(gs), (k+w)%len(want)%len(gs)
				got, err := m.Score(gs[i], gs[j], nil)
				if err != nil || got != want[i*len(gs)+j] {
					errs <- "mismatch"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
